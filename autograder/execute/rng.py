"""Seeding every generator a cell or a probe may draw from, before each one runs.

`torch.manual_seed` is not used: it queues lazy seeding for CUDA, XPU and MPS with a formatted
stack trace each (~150 us per call on a CPU-only build, a fifth of a probe round trip).  The same
generators are seeded directly: the CPU one always, CUDA's where CUDA is present, so every value a
probe draws is the same as under `torch.manual_seed`.
"""
from __future__ import annotations

import functools
import random

import numpy as np
import torch


def seed_all(seed: int) -> None:
    seed = int(seed)
    random.seed(seed)
    np.random.seed(seed % 2**32)
    torch.default_generator.manual_seed(seed)
    if _has_cuda():
        torch.cuda.manual_seed_all(seed)


@functools.cache
def _has_cuda() -> bool:
    """Asked once per process, on its first seeding (in a worker, never in the zygote): 2-5 us a call,
    a call before each of a submission's ~470 probe calls and ~40 cells, for an answer that cannot change."""
    return torch.cuda.is_available()
