"""Every graded version of a submission, kept: OUT/ASSIGNMENT/<id>/versions/<sha256>.ipynb (the notebook as
submitted) and <sha256>.json (its instructor record, with when it was graded).

The gradebook holds the version graded last; this folder holds all of them, so the workspace can show a
student's history and the diff of the code cells between two versions, and `counting` can apply the
course's rule for which version counts (course.toml `[course] counts`: latest, best, latest before the
deadline) wherever grades are read (`store.folder.assignment_grades`, so every export alike).  A version is named by its content
hash: the same notebook submitted again is one version.  The copy is bounded by the notebook size cap.
"""

from __future__ import annotations

import difflib
import json
import time
from pathlib import Path
from typing import Any

from autograder.config.limits import DIFF_LINE_CHARS, DIFF_LINES, DIFF_LINES_IN, DIFF_SECONDS
from autograder.grades.counting import Version
from autograder.judge.results import SubmissionResult
from autograder.notebook.parse import MAX_NOTEBOOK_BYTES, InvalidNotebook, code_cells, read_notebook


def folder(out: Path, assignment: str, submission_id: str) -> Path:
    return out / assignment / submission_id / "versions"


def keep(out: Path, result: SubmissionResult, notebook: Path | None) -> None:
    """Keep this graded version (its record, and the notebook when it is a readable file under the cap)."""
    if not result.sha256 or result.provisional:
        return  # nothing read, or not final: the next run grades it again
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


def kept_notebook(out: Path, result: SubmissionResult) -> Path | None:
    """The kept notebook of the version `result` was graded on, when it is kept."""
    nb = folder(out, result.assignment, result.submission_id) / f"{result.sha256}.ipynb"
    return nb if result.sha256 and nb.is_file() else None


def versions(out: Path, assignment: str, submission_id: str, latest: int | None = None) -> list[Version]:
    """The kept versions, oldest first; with `latest`, only that many of the last written (a page reads no
    more records than it lists, however often a student resubmitted: each record is up to 4 MiB)."""
    where = folder(out, assignment, submission_id)
    found = []
    records = list(where.glob("*.json")) if where.is_dir() else []
    if latest is not None and len(records) > latest:
        records = sorted(records, key=_mtime)[-latest:]
    for f in records:
        try:
            d = json.loads(f.read_text(encoding="utf-8"))
            r = SubmissionResult.from_stored(d["record"])
        except (OSError, ValueError, KeyError, TypeError):
            continue
        nb = where / f"{f.stem}.ipynb"
        found.append(
            Version(
                f.stem,
                float(d.get("graded_at", 0)),
                str(d.get("submitted_at") or ""),
                r.score,
                r.max_score,
                r.status,
                nb if nb.is_file() else None,
            )
        )
    return sorted(found, key=lambda v: v.graded_at)


def _mtime(f: Path) -> int:
    try:
        return f.stat().st_mtime_ns
    except OSError:
        return 0


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


class _OverBudget(Exception):
    pass


class _Budgeted(difflib.SequenceMatcher):
    """difflib's matcher that stops once its deadline passes.  Its cost is quadratic in the worst case (two
    versions whose lines alternate between shared and new cost 0.7 s at 4,000 lines; at 20,000 more than 30 s), and a
    student chooses both versions: every step checks the clock, so a diff ends within its budget."""

    def __init__(self, a: list[str], b: list[str], deadline: float) -> None:
        self.deadline = deadline
        super().__init__(None, a, b, autojunk=True)

    def find_longest_match(self, *args: int) -> difflib.Match:  # type: ignore[override]
        if time.monotonic() > self.deadline:
            raise _OverBudget
        return super().find_longest_match(*args)


def code_diff(
    old: Path | None, new: Path | None, names: tuple[str, str] = ("before", "after"), seconds: float = DIFF_SECONDS
) -> list[str]:
    """A unified diff of two versions' code cells, bounded whatever they hold: at most DIFF_LINES_IN lines of
    each (of DIFF_LINE_CHARS characters) are compared, DIFF_LINES lines shown, and the comparison stops after
    `seconds`; each cut is said in the diff."""
    a, b = code_lines(old), code_lines(new)
    notes = (
        [f"... (only the first {DIFF_LINES_IN} code lines of each version are compared)"]
        if max(len(a), len(b)) > DIFF_LINES_IN
        else []
    )
    a, b = ([line[:DIFF_LINE_CHARS] for line in x[:DIFF_LINES_IN]] for x in (a, b))
    try:
        diff = _unified(a, b, names, time.monotonic() + seconds)
    except _OverBudget:
        return [
            f"--- {names[0]}",
            f"+++ {names[1]}",
            f"... (these versions differ too much to compare line by line within {seconds:g} s)",
        ]
    cut = ["... (diff cut)"] if len(diff) > DIFF_LINES else []
    return diff[:DIFF_LINES] + cut + notes


def _unified(a: list[str], b: list[str], names: tuple[str, str], deadline: float, n: int = 2) -> list[str]:
    """`difflib.unified_diff(a, b, *names, lineterm="", n=n)` with `_Budgeted` as its matcher."""
    out = [f"--- {names[0]}", f"+++ {names[1]}"]
    for group in _Budgeted(a, b, deadline).get_grouped_opcodes(n):
        (_, i1, _, j1, _), (_, _, i2, _, j2) = group[0], group[-1]
        out.append(f"@@ -{_range(i1, i2)} +{_range(j1, j2)} @@")
        for tag, i1, i2, j1, j2 in group:
            if tag == "equal":
                out += [" " + line for line in a[i1:i2]]
                continue
            out += ["-" + line for line in a[i1:i2]] if tag in ("replace", "delete") else []
            out += ["+" + line for line in b[j1:j2]] if tag in ("replace", "insert") else []
        if len(out) > DIFF_LINES:
            break
    return out if len(out) > 2 else []


def _range(start: int, stop: int) -> str:
    """A hunk's range as unified diffs write it (difflib's `_format_range_unified`)."""
    length = stop - start
    begin = start + 1 if length else start
    return str(begin) if length == 1 else f"{begin},{length}"


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
