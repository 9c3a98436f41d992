"""Whether this process sees an NVIDIA GPU (its device files; the sandbox binds them only for GPU grading).

One answer for the trusted side (which memory cap, which device Triton kernels are tested on) and for the
worker and zygote (Triton's mode): they must agree, or a test asks for a device the worker cannot use.
"""

from __future__ import annotations

import glob
import os


def visible() -> bool:
    return bool(glob.glob("/dev/nvidia[0-9]*"))


def choose_triton_mode() -> None:
    """Triton decides when first imported (torch._inductor imports it before any student code) whether its
    kernels run in its CPU interpreter: they must where no GPU is visible (02b_kernels).  Call before torch."""
    if not visible():
        os.environ.setdefault("TRITON_INTERPRET", "1")
