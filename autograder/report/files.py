"""Per-submission result files, written atomically (a crash never leaves half a file)."""
from __future__ import annotations

import json
import os
import tempfile
from pathlib import Path
from typing import Any

from autograder.score.results import SubmissionResult, writable


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


def write_submission(out: Path, result: SubmissionResult) -> Path:
    """DIR/ASSIGNMENT/<id>/results.json (student-safe) and instructor.json (everything)."""
    folder = out / result.assignment / result.submission_id
    write_json(folder / "instructor.json", result.to_record())
    write_json(folder / "results.json", result.to_results_json())
    return folder
