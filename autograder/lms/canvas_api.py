"""Canvas grade passback through its REST API (`canvasapi`): a score and a feedback comment per student.

`plan()` decides what would be sent and is all that `dry_run=True` does (no request is
made, not even a read).  A real run:

1. reads the assignment once (its `points_possible` scales our score, and the comment states
   the score on that same scale, so the comment and the posted grade always agree);
2. lists the assignment's submissions with their comments, once (paginated): a student not
   enrolled is reported, never created; a student whose posted grade already equals ours and
   who already has our comment is left alone, so re-running changes nothing and posts no
   duplicate comment;
3. sends everything else in ONE bulk `update_grades` request (Canvas queues it as a job) and
   polls the job's Progress until it completes or fails.

Ungradable submissions (grader failures) and students without a submission are never sent
(the policy in docs/interop.md).  One student's problem never stops the others.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field

from autograder.grades.rows import GradeRow

POLL_SECONDS = 1.0  # between two reads of the bulk job's Progress
POLL_LIMIT = 600.0  # give up waiting (the job may still finish in Canvas) after this long


@dataclass(frozen=True)
class PlannedGrade:
    user_id: str  # Canvas user id (or "sis_user_id:..." when only the SIS id is known)
    submission_id: str
    score: float  # in our points; scaled to Canvas's points_possible when sent
    max_score: float
    comment: str


@dataclass
class PassbackReport:
    dry_run: bool
    planned: list[PlannedGrade]
    skipped: list[str] = field(default_factory=list)  # "who: why"
    sent: list[tuple[str, float]] = field(default_factory=list)  # (user id, posted grade)
    unchanged: list[str] = field(default_factory=list)  # user ids already holding this grade + comment
    failed: list[tuple[str, str]] = field(default_factory=list)  # (user id, error)

    def lines(self) -> list[str]:
        verb = "would send" if self.dry_run else "sent"
        out = []
        if self.dry_run:
            out += [
                f"{verb}: user {p.user_id} ({p.submission_id}): {p.score:g}/{p.max_score:g}; comment: {p.comment[:120]}"
                for p in self.planned
            ]
        else:
            out += [f"sent: user {u}: {g:g}" for u, g in self.sent]
            out += [f"unchanged: user {u}" for u in self.unchanged]
            out += [f"FAILED: user {u}: {e}" for u, e in self.failed]
        out += [f"skipped: {s}" for s in self.skipped]
        return out


def plan(
    rows: list[GradeRow], *, comments: bool = True, points_possible: float | None = None, missing: str = "blank"
) -> PassbackReport:
    """Grades follow the one export policy (`GradeRow.export_score`): a blank grade is not sent."""
    planned, skipped = [], []
    full = max((r.max_score for r in rows if r.max_score), default=None)  # a missing student's 0 is out of this
    for row in rows:
        who = row.identity
        uid = who.lms_user_id or (f"sis_user_id:{who.sis_id}" if who.sis_id else "")
        label = row.submission_id or who.name or who.student_id
        score, max_score = row.export_score(missing), row.max_score or full
        if score is None or max_score is None:
            skipped.append(f"{label}: {row.blank_reason or 'no points possible known'}")
        elif not uid:
            skipped.append(f"{label}: no Canvas user id or SIS id")
        else:
            planned.append(
                PlannedGrade(uid, row.submission_id, score, max_score, row.comment(points_possible) if comments else "")
            )
    return PassbackReport(True, planned, skipped)


def _scaled(p: PlannedGrade, target: float | None) -> float:
    return p.score if not target or not p.max_score else round(p.score * float(target) / p.max_score, 4)


def passback(
    rows: list[GradeRow],
    *,
    base_url: str,
    token: str,
    course_id: int | str,
    assignment_id: int | str,
    dry_run: bool = False,
    comments: bool = True,
    points_possible: float | None = None,
    poll_seconds: float = POLL_SECONDS,
    missing: str = "blank",
) -> PassbackReport:
    if dry_run:
        return plan(rows, comments=comments, points_possible=points_possible, missing=missing)
    from canvasapi import Canvas

    canvas = Canvas(base_url.rstrip("/"), token)
    assignment = canvas.get_course(course_id).get_assignment(assignment_id)
    target = points_possible if points_possible is not None else getattr(assignment, "points_possible", None)
    report = plan(rows, comments=comments, points_possible=float(target) if target else None, missing=missing)
    report.dry_run = False
    existing = {}
    for sub in assignment.get_submissions(include=["submission_comments", "user"]):
        comments_there = {c.get("comment", "") for c in getattr(sub, "submission_comments", None) or []}
        entry = (getattr(sub, "score", None), comments_there)
        existing[str(sub.user_id)] = entry
        sis = (getattr(sub, "user", None) or {}).get("sis_user_id")
        if sis:
            existing[f"sis_user_id:{sis}"] = entry
    grade_data: dict[str, dict[str, str]] = {}
    for p in report.planned:
        grade = _scaled(p, target)
        if p.user_id not in existing:
            report.failed.append((p.user_id, "not enrolled in the course (no submission record in Canvas)"))
            continue
        score_there, comments_there = existing[p.user_id]
        data: dict[str, str] = {}
        if score_there is None or abs(float(score_there) - grade) > 1e-9:
            data["posted_grade"] = f"{grade:g}"
        if p.comment and p.comment not in comments_there:
            data["text_comment"] = p.comment
        if not data:
            report.unchanged.append(p.user_id)
            continue
        grade_data[p.user_id] = data
    if grade_data:
        _bulk_update(
            assignment, grade_data, report, {p.user_id: _scaled(p, target) for p in report.planned}, poll_seconds
        )
    return report


def _bulk_update(
    assignment,
    grade_data: dict[str, dict[str, str]],
    report: PassbackReport,
    grades: dict[str, float],
    poll_seconds: float,
) -> None:
    """One `update_grades` request; the job's Progress is polled to its end."""
    from canvasapi.exceptions import CanvasException

    try:
        progress = assignment.submissions_bulk_update(grade_data=grade_data)
        waited = 0.0
        while getattr(progress, "workflow_state", "completed") in ("queued", "running") and waited < POLL_LIMIT:
            time.sleep(poll_seconds)
            waited += poll_seconds
            progress = progress.query()
    except CanvasException as e:
        report.failed += [(u, f"{type(e).__name__}: {e}") for u in grade_data]
        return
    state = getattr(progress, "workflow_state", "completed")
    if state == "completed":
        report.sent += [(u, grades[u]) for u in grade_data]
    else:
        why = getattr(progress, "message", None) or f"the bulk update job ended as {state!r}"
        report.failed += [(u, str(why)) for u in grade_data]
