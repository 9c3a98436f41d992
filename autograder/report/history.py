"""Every graded version of a submission, kept: OUT/ASSIGNMENT/<id>/versions/<sha256>.ipynb (the notebook as
submitted) and <sha256>.json (its instructor record, with when it was graded).

The gradebook holds the version graded last; this folder holds all of them, so the workspace can show a
student's history and the diff of the code cells between two versions, and `counting` can apply the
course's rule for which version counts (course.toml `[course] counts`: latest, best, latest before the
deadline) wherever grades are read (`report.exports.assignment_grades`, so every export alike).  A version is named by its content
hash: the same notebook submitted again is one version.  The copy is bounded by the notebook size cap.
"""
from __future__ import annotations

import difflib
import json
import time
from dataclasses import dataclass
from datetime import datetime
from typing import Any, Callable
from pathlib import Path

from autograder.notebook.parse import MAX_NOTEBOOK_BYTES, InvalidNotebook, code_cells, read_notebook
from autograder.score.results import SubmissionResult

MAX_DIFF_LINES = 5000   # lines of one diff shown


@dataclass(frozen=True)
class Version:
    sha256: str
    graded_at: float
    submitted_at: str       # ISO time the LMS gave at intake ("" unknown)
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
    who = _identities(out / result.assignment / "identities.json").get(result.submission_id, {})
    record = {"graded_at": time.time(), "submitted_at": who.get("submitted_at") or "", "record": result.to_record()}
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
            r = SubmissionResult.from_stored(d["record"])
        except (OSError, ValueError, KeyError, TypeError):
            continue
        nb = where / f"{f.stem}.ipynb"
        found.append(Version(f.stem, float(d.get("graded_at", 0)), str(d.get("submitted_at") or ""), r.score, r.max_score, r.status,
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


_SEEN: dict[Path, tuple[int, dict[str, Any]]] = {}


def _identities(path: Path) -> dict[str, Any]:
    """identities.json as written at intake (read again only when it changed: once per class, not per result)."""
    try:
        stamp = path.stat().st_mtime_ns
    except OSError:
        return {}
    if path not in _SEEN or _SEEN[path][0] != stamp:
        try:
            _SEEN[path] = (stamp, json.loads(path.read_text(encoding="utf-8")))
        except (OSError, ValueError):
            return {}
    return _SEEN[path][1]


COUNTS = ("latest", "best", "latest_before_deadline")


def _record(out: Path, assignment: str, submission_id: str, sha256: str) -> SubmissionResult:
    d = json.loads((folder(out, assignment, submission_id) / f"{sha256}.json").read_text(encoding="utf-8"))
    return SubmissionResult.from_stored(d["record"])


def _when(v: Version) -> datetime | None:
    try:
        return datetime.fromisoformat(v.submitted_at) if v.submitted_at else None
    except ValueError:
        return None


def counted_sha(kept: list[Version], current: SubmissionResult, rule: str, due: datetime | None) -> str:
    """Which version counts under `rule`: `latest` the gradebook's (graded last); `best` the highest score
    (the latest of equals); `latest_before_deadline` the latest submitted by `due` (the student's own,
    extensions included), else the latest.  A provisional current result is never replaced."""
    if rule not in COUNTS:
        raise ValueError(f"[course] counts must be one of {', '.join(COUNTS)}, not {rule!r}")
    final = [v for v in kept if v.status != "crashed" or v.score]
    if rule == "latest" or current.provisional or not final:
        return current.sha256
    if rule == "best":
        best = max(final, key=lambda v: (v.score, v.graded_at))
        return best.sha256 if best.score > current.score else current.sha256
    on_time = [v for v in final if (w := _when(v)) is not None and due is not None and w <= due]
    return max(on_time, key=lambda v: (_when(v), v.graded_at)).sha256 if on_time else current.sha256


def counting(out: Path, assignment: str, results: list[SubmissionResult], rule: str,
             due: Callable[[str], datetime | None]) -> tuple[list[SubmissionResult], set[str]]:
    """`results` (the gradebook's, graded last) with each replaced by the version `rule` counts, as its
    stored record (overrides are applied after, against that version's content).  Returns the results and
    the ids whose counted version is not the latest."""
    if rule not in COUNTS:
        from autograder.course import CourseError

        raise CourseError(f"[course] counts must be one of {', '.join(COUNTS)}, not {rule!r}")
    if rule == "latest":
        return results, set()
    out_list, replaced = [], set()
    for r in results:
        kept = versions(out, assignment, r.submission_id)
        sha = counted_sha(kept, r, rule, due(r.submission_id) if kept else None)
        if sha != r.sha256:
            try:
                out_list.append(_record(out, assignment, r.submission_id, sha))
                replaced.add(r.submission_id)
                continue
            except (OSError, ValueError, KeyError):
                pass
        out_list.append(r)
    return out_list, replaced
