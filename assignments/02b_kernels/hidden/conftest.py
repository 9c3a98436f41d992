"""Random inputs shared by the hidden tests, and the probes' layouts to compare against."""
from __future__ import annotations

import math
from types import SimpleNamespace

import pytest
import torch

LAYOUTS = ("c", "t", "s", "o")


def randint(rng: torch.Generator, low: int, high: int) -> int:
    """An int in [low, high]."""
    return int(torch.randint(low, high + 1, (1,), generator=rng))


def random_shape(rng: torch.Generator, layout: str, max_cols: int = 40) -> tuple[int, ...]:
    """2-3 dims, at least 2 rows (the 'o' layout drops one) and 2 columns (the 's' and 't' layouts)."""
    ndim = randint(rng, 2, 3)
    shape = [randint(rng, 2, 5) for _ in range(ndim - 1)] + [randint(rng, 2, max_cols)]
    return tuple(shape)


def random_view(rng: torch.Generator, dtype: torch.dtype = torch.int64) -> tuple[torch.Tensor, torch.Tensor]:
    """A view of a 1-d base after a random permutation, narrow and step slice: (base, view)."""
    ndim = randint(rng, 1, 4)
    shape = [randint(rng, 1, 5) for _ in range(ndim)]
    base = torch.arange(math.prod(shape) + 3).to(dtype)
    v = base[3:].reshape(shape).permute(*torch.randperm(ndim, generator=rng).tolist())
    d = randint(rng, 0, ndim - 1)
    start = randint(rng, 0, v.shape[d] - 1)
    v = v.narrow(d, start, randint(rng, 1, v.shape[d] - start))
    d = randint(rng, 0, ndim - 1)
    v = v[(slice(None),) * d + (slice(None, None, randint(rng, 1, 2)),)]
    return base, v


@pytest.fixture
def helpers(probes):
    """laid_out is probes._layout itself: the judge imports probes.py (it also checks kernel sources with it), and
    `_layout` only makes a view, so the expected values come from the very view the probe hands the student's code."""
    return SimpleNamespace(LAYOUTS=LAYOUTS, laid_out=probes._layout, randint=randint, random_shape=random_shape,
                           random_view=random_view)


@pytest.fixture
def softmax_cases(rng):
    """(x, layout) pairs over dtypes and layouts, with a column count that is rarely a power of two."""
    cases = []
    for dtype in (torch.float32, torch.float64):
        for layout in LAYOUTS:
            x = torch.randn(random_shape(rng, layout), generator=rng, dtype=dtype) * 8
            cases.append((x, layout))
    return cases
