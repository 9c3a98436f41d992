"""The kit's own helper programs, built from their fixed source once per process and written out as bytes.

02b's C harness (`HARNESS` in its probes.py), the process without Python that runs a student's kernels, was
compiled in each fresh worker that ran them: 0.06 s of CPU, twice for each notebook that answers the C exercise.
Built once in the zygote (the assignment's `warm_up()`), every worker forked from it writes the same bytes into its
own folder instead.  Only the kit's own source is built here, never a submission's.  The bytes live in the memory a
worker inherits, not in a file any other worker can reach: a student's worker can alter its own copy, which no
other process reads, and a fresh worker runs no code of the notebook.
"""

from __future__ import annotations

import hashlib
import os
import subprocess
from collections.abc import Sequence

_BUILT: dict[str, bytes] = {}  # (source, command) digest -> the executable's bytes


def build(source: str, command: Sequence[str], path: str, timeout: float = 60.0) -> None:
    """Make `path` the executable `command` (a C compiler and its flags; `-o path path.c` appended) builds from
    `source`: this process's earlier build of the same source by the same command, written out, else a build,
    whose bytes are kept.  Raises OSError when it does not build."""
    key = hashlib.sha256(repr((source, list(command))).encode()).hexdigest()
    blob = _BUILT.get(key)
    if blob is not None:
        with os.fdopen(os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o700), "wb") as f:
            f.write(blob)
        return
    with open(path + ".c", "w", encoding="utf-8") as f:
        f.write(source)
    try:
        done = subprocess.run([*command, "-o", path, path + ".c"], capture_output=True, text=True, timeout=timeout)
    except subprocess.SubprocessError as e:
        raise OSError(f"{command[0]} did not build {os.path.basename(path)}: {e}") from e
    if done.returncode != 0:
        raise OSError(f"{command[0]} did not build {os.path.basename(path)}: {done.stderr[-600:]}")
    with open(path, "rb") as f:
        _BUILT[key] = f.read()
