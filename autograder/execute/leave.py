"""How a process that has loaded torch (and perhaps TensorFlow) ends: its work done, without taking the
interpreter apart.

Python's own exit ends with a last garbage collection over every object and then clears each module: with
torch, pytest and a class's results loaded that took 1-2 s of CPU after the grade command had printed its
table, and as long again in the zygote.  A caller that waits for the command's output to close (a script, CI,
the bench) waited for all of it.  `leave` does what the interpreter's exit does that anyone can see — the
threads' and the exit handlers' work (scratch folders removed, the sandbox's cgroups, multiprocessing's
children), the output flushed — and then ends the process with `os._exit`.
"""

from __future__ import annotations

import atexit
import os
import sys
import threading
from typing import NoReturn


def leave(code: int) -> NoReturn:
    """End this process with exit status `code` once its threads and exit handlers have run."""
    shutdown = getattr(threading, "_shutdown", None)  # what Py_Finalize runs first: joins non-daemon threads
    if shutdown is not None:
        shutdown()
    atexit._run_exitfuncs()
    for stream in (sys.stdout, sys.stderr):
        try:
            stream.flush()
        except (OSError, ValueError):  # a closed pipe (`| head`): nothing more can be said there
            pass
    os._exit(code)
