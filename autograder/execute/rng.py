"""Seeding every generator a cell or a probe may draw from, before each one runs.

`torch.manual_seed` is not used: it queues lazy seeding for CUDA, XPU and MPS with a formatted
stack trace each (~150 us per call on a CPU-only build, a fifth of a probe round trip).  The same
generators are seeded directly: the CPU one always, CUDA's where CUDA is present, so every value a
probe draws is the same as under `torch.manual_seed`.

Where TensorFlow is loaded (a TensorFlow assignment's worker, or a notebook that imported it), its
global seed and Keras's global seed generator are set too, by `keras.utils.set_random_seed` (~30 us),
so a layer's initial weights, `tf.random.*` and an unseeded `shuffle` draw the same for the reference
and the student.  Nothing here imports TensorFlow: a worker that has not loaded it pays nothing.
"""

from __future__ import annotations

import functools
import random
import sys

import numpy as np
import torch


def seed_all(seed: int) -> None:
    seed = int(seed)
    if "tensorflow" in sys.modules:  # first: it seeds python's and numpy's generators too, reseeded below
        _seed_tensorflow(seed)
    random.seed(seed)
    np.random.seed(seed % 2**32)
    torch.default_generator.manual_seed(seed)
    if _has_cuda():
        torch.cuda.manual_seed_all(seed)


def _seed_tensorflow(seed: int) -> None:
    keras = sys.modules.get("keras")
    if keras is not None and hasattr(keras, "utils"):
        keras.utils.set_random_seed(seed % 2**32)  # tf.random.set_seed + Keras's global SeedGenerator
    else:
        sys.modules["tensorflow"].random.set_seed(seed % 2**63)


@functools.cache
def _has_cuda() -> bool:
    """Asked once per process, on its first seeding (in a worker, never in the zygote): 2-5 us a call,
    a call before each of a submission's ~470 probe calls and ~40 cells, for an answer that cannot change."""
    return torch.cuda.is_available()
