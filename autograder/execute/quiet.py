"""A native library's load-time chatter kept out of a notebook's output, in one place.

TensorFlow 2.21 writes C++ notices straight to file descriptor 2 while it loads ("oneDNN custom operations
are on", the CPU instructions it was not built for), the first of them before it reads
`TF_CPP_MIN_LOG_LEVEL`: Jupyter shows them under the student's setup cell, and in a grading worker they
would land in the notebook's output.  No setting reaches them; only the descriptor can be quieted.  Used
by a TensorFlow notebook's setup cell (through `autograder.student.selfcheck`) and by the worker's import.
"""

from __future__ import annotations

import os
import sys
from collections.abc import Iterator
from contextlib import contextmanager


def flush_output() -> None:
    """Python's buffers of stdout and stderr written out, whatever they have been replaced with (a student's
    notebook may have closed them or put anything there)."""
    for stream in (sys.stdout, sys.stderr):
        try:
            stream.flush()
        except Exception:  # noqa: BLE001 - replaced or closed
            pass


@contextmanager
def quiet_stderr() -> Iterator[None]:
    """File descriptor 2 points at /dev/null inside the block and is given back however it ends (an
    import that fails still raises, and its traceback shows).  Python's own buffers are flushed first, so
    nothing written before the block is lost with it."""
    flush_output()
    saved = os.dup(2)
    devnull = os.open(os.devnull, os.O_WRONLY)
    try:
        os.dup2(devnull, 2)
        yield
    finally:
        os.dup2(saved, 2)
        os.close(saved)
        os.close(devnull)
