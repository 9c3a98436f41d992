"""Random inputs shared by the hidden tests of tf02b_kernels, and the expected values (computed here with torch)."""
from __future__ import annotations

from types import SimpleNamespace

import pytest
import torch


def randint(rng: torch.Generator, low: int, high: int) -> int:
    """An int in [low, high]."""
    return int(torch.randint(low, high + 1, (1,), generator=rng))


def random_shape(rng: torch.Generator, min_rank: int = 1, max_rank: int = 3, max_last: int = 40) -> tuple[int, ...]:
    rank = randint(rng, min_rank, max_rank)
    return tuple([randint(rng, 1, 5) for _ in range(rank - 1)] + [randint(rng, 1, max_last)])


def silu(x: torch.Tensor, beta: float) -> torch.Tensor:
    return x * torch.sigmoid(beta * x)


@pytest.fixture
def helpers():
    return SimpleNamespace(randint=randint, random_shape=random_shape, silu=silu)
