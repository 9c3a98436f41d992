"""The notebook namespace as probes see it, and how student exceptions are described."""

from __future__ import annotations

import errno
import linecache
import os
import re
import traceback
from typing import Any

_CELL_FILE = re.compile(r"^<cell (\d+)>$")
UNDEFINED = "the notebook does not define"  # how a name no cell defined reads (a MissingAnswer), wherever shown


class MissingAnswer(KeyError):
    """A probe asked for a name the notebook never defined.

    A KeyError on purpose: when a dict subclass serves as a module's globals, CPython falls
    back to builtins (`print`, `range`, ...) only if `__missing__` raises KeyError.
    """

    def __str__(self) -> str:
        return f"{UNDEFINED} `{self.args[0]}` (did you run/keep the cell that defines it?)"


_NAME_ERROR = re.compile(r"name '([^']+)' is not defined")


def undefined_name(error: dict[str, Any]) -> str | None:
    """The global name a NameError (as `describe_exception` describes it) says no cell defined: the loss a probe's
    lookup of it (a MissingAnswer) is, met inside the student's own code (the cell that defines it raised first,
    or never ran).  None for any other error, UnboundLocalError included (a local its function left unset)."""
    if error.get("type") != "NameError":
        return None
    m = _NAME_ERROR.match(str(error.get("message") or ""))
    return m.group(1) if m else None


class StudentNamespace(dict):
    """The notebook's globals; a missing name raises a readable MissingAnswer."""

    def __missing__(self, key: str) -> Any:
        raise MissingAnswer(key)


def cell_filename(index: int, source: str) -> str:
    """The filename cell code is compiled under; its source is registered so tracebacks show lines."""
    name = f"<cell {index}>"
    linecache.cache[name] = (len(source), None, source.splitlines(True), name)
    return name


def disk_full() -> str:
    """What ENOSPC means in a sandbox: the notebook filled its own bounded disk (`disk.py`)."""
    try:
        st = os.statvfs("/tmp")  # the work folder, /tmp and /dev/shm are one tmpfs
    except OSError:
        return "the disk is full"
    where = "its work folder, /tmp and /dev/shm together"
    if st.f_ffree == 0:
        return f"the notebook created more than {st.f_files} files on disk ({where})"
    return f"the notebook wrote more than {st.f_blocks * st.f_frsize // 2**20} MiB to disk ({where})"


def describe_exception(exc: BaseException) -> dict[str, Any]:
    """Type, message and the frames that are in notebook cells (what a student can act on)."""
    try:
        message = str(exc)[:2000]
        if isinstance(exc, OSError) and exc.errno == errno.ENOSPC:
            message = f"{disk_full()}: {message}"
    except Exception:  # noqa: BLE001 - a student's __str__ may raise
        message = "<message could not be printed>"
    frames = []
    try:
        for fr in traceback.extract_tb(exc.__traceback__):
            m = _CELL_FILE.match(fr.filename or "")
            if m:
                frames.append({"cell": int(m.group(1)), "line": fr.lineno, "code": (fr.line or "")[:300]})
        if isinstance(exc, SyntaxError) and exc.filename and (m := _CELL_FILE.match(exc.filename)):
            frames.append({"cell": int(m.group(1)), "line": exc.lineno or 0, "code": (exc.text or "").strip()[:300]})
    except Exception:  # noqa: BLE001
        pass
    try:
        type_name = type(exc).__name__[:100]
    except Exception:  # noqa: BLE001
        type_name = "Exception"
    return {"type": type_name, "message": message, "frames": frames[-5:]}
