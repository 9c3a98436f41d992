"""Files the kit writes, written atomically (a crash never leaves half a file) and as text any UTF-8 reader
accepts (`writable`)."""

from __future__ import annotations

import json
import os
import re
import tempfile
from pathlib import Path
from typing import Any

_SURROGATE = re.compile("[\ud800-\udfff]")


def writable(text: str) -> str:
    """`text` with every lone surrogate replaced by U+FFFD.  A notebook's JSON (`"\\ud800"`), a worker's
    string and a file name read from a non-UTF-8 disk can all carry one, and no UTF-8 file, database or
    web page can: the first writer to meet it raised, and the submission became a grader error."""
    return text if text.isascii() else _SURROGATE.sub("\ufffd", text)


def write_atomic(path: Path, text: str) -> None:
    """Every report, export and result file is written here: as UTF-8 that any reader accepts, whatever
    text reached it (results and identities are made `writable` where they are built; this is the net)."""
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.")
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as f:
            f.write(writable(text))
            f.flush()
            os.fsync(f.fileno())
        os.replace(tmp, path)
    except BaseException:
        os.unlink(tmp)
        raise


def write_json(path: Path, data: Any) -> None:
    write_atomic(path, json.dumps(data, indent=2, ensure_ascii=False, allow_nan=False, default=str) + "\n")
