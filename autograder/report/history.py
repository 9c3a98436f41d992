"""Every graded version of a submission, kept: OUT/ASSIGNMENT/<id>/versions/<sha256>.ipynb (the notebook as
submitted) and <sha256>.json (its instructor record, with when it was graded).

The gradebook holds the version graded last; this folder holds all of them, so the workspace can show a
student's history and the diff of the code cells between two versions.  A version is named by its content
hash: the same notebook submitted again is one version.  The copy is bounded by the notebook size cap.
"""
from __future__ import annotations

import difflib
import json
import time
from dataclasses import dataclass
from pathlib import Path

from autograder.notebook.parse import MAX_NOTEBOOK_BYTES, InvalidNotebook, code_cells, read_notebook
from autograder.score.results import SubmissionResult

MAX_DIFF_LINES = 5000   # lines of one diff shown


@dataclass(frozen=True)
class Version:
    sha256: str
    graded_at: float
    score: float
    max_score: float
    status: str
    notebook: Path | None   # None when the file was not kept (unreadable at intake, over the cap)


def folder(out: Path, assignment: str, submission_id: str) -> Path:
    return out / assignment / submission_id / "versions"


def keep(out: Path, result: SubmissionResult, notebook: Path | None) -> None:
    """Keep this graded version (its record, and the notebook when it is a readable file under the cap)."""
    if not result.sha256 or result.provisional:
        return   # nothing read, or not final: the next run grades it again
    where = folder(out, result.assignment, result.submission_id)
    where.mkdir(parents=True, exist_ok=True)
    if notebook is not None and notebook.is_file():
        with open(notebook, "rb") as f:
            data = f.read(MAX_NOTEBOOK_BYTES + 1)
        if len(data) <= MAX_NOTEBOOK_BYTES:
            (where / f"{result.sha256}.ipynb").write_bytes(data)
    record = {"graded_at": time.time(), "record": result.to_record()}
    tmp = where / f"{result.sha256}.json.tmp"
    tmp.write_text(json.dumps(record), encoding="utf-8")
    tmp.replace(where / f"{result.sha256}.json")


def versions(out: Path, assignment: str, submission_id: str) -> list[Version]:
    """The kept versions, oldest first."""
    where = folder(out, assignment, submission_id)
    found = []
    for f in where.glob("*.json") if where.is_dir() else []:
        try:
            d = json.loads(f.read_text(encoding="utf-8"))
            r = SubmissionResult.from_record(d["record"])
        except (OSError, ValueError, KeyError, TypeError):
            continue
        nb = where / f"{f.stem}.ipynb"
        found.append(Version(f.stem, float(d.get("graded_at", 0)), r.score, r.max_score, r.status,
                             nb if nb.is_file() else None))
    return sorted(found, key=lambda v: v.graded_at)


def code_lines(notebook: Path | None) -> list[str]:
    """The notebook's code cells as lines, each cell headed by its number (as the student counts cells)."""
    if notebook is None:
        return []
    try:
        cells = code_cells(read_notebook(notebook))
    except (InvalidNotebook, OSError):
        return ["# (this version cannot be read as a notebook)"]
    out = []
    for c in cells:
        out.append(f"# --- cell {c.index} ---")
        out += c.source.splitlines()
    return out


def code_diff(old: Path | None, new: Path | None, names: tuple[str, str] = ("before", "after")) -> list[str]:
    """A unified diff of two versions' code cells (at most MAX_DIFF_LINES lines)."""
    diff = list(difflib.unified_diff(code_lines(old), code_lines(new), *names, lineterm="", n=2))
    return diff[:MAX_DIFF_LINES] + (["... (diff cut)"] if len(diff) > MAX_DIFF_LINES else [])
