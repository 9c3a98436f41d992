"""Which graded version of a submission counts: the course's rule (course.toml `[course] counts`: latest,
best, latest before the deadline), applied to the versions the store keeps (`store.history`, read through
`grades.rows.Stored`) wherever grades are read (`grades.rows.read_grades`, so every export alike).

The rule sees versions as values (`Version`) and asks the store for them: what counts is decided here, how
versions are kept on disk is the store's."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from pathlib import Path
from typing import Callable

from autograder.config.course import CourseError
from autograder.judge.results import SubmissionResult

COUNTS = ("latest", "best", "latest_before_deadline")


@dataclass(frozen=True)
class Version:
    """One graded version of a submission, as the store keeps it (`store.history.keep`)."""

    sha256: str
    graded_at: float
    submitted_at: str  # ISO time the LMS gave at intake ("" unknown)
    score: float
    max_score: float
    status: str
    notebook: Path | None  # None when the file was not kept (unreadable at intake, over the cap)


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


def counting(
    results: list[SubmissionResult],
    rule: str,
    due: Callable[[str], datetime | None],
    versions: Callable[[str], list[Version]],
    record: Callable[[str, str], SubmissionResult],
) -> tuple[list[SubmissionResult], set[str]]:
    """`results` (the gradebook's, graded last) with each replaced by the version `rule` counts, as its
    stored record (overrides are applied after, against that version's content).  `versions(id)` and
    `record(id, sha256)` read the store (a record that cannot be read leaves the latest in place).  Returns
    the results and the ids whose counted version is not the latest."""
    if rule not in COUNTS:
        raise CourseError(f"[course] counts must be one of {', '.join(COUNTS)}, not {rule!r}")
    if rule == "latest":
        return results, set()
    out_list, replaced = [], set()
    for r in results:
        kept = versions(r.submission_id)
        sha = counted_sha(kept, r, rule, due(r.submission_id) if kept else None)
        if sha != r.sha256:
            try:
                out_list.append(record(r.submission_id, sha))
                replaced.add(r.submission_id)
                continue
            except (OSError, ValueError, KeyError):
                pass
        out_list.append(r)
    return out_list, replaced
