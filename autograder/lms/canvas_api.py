"""Canvas grade passback through its REST API (`canvasapi`): a score and a feedback comment per student.

`plan()` decides what would be sent and is all that `dry_run=True` does (no request is
made, not even a read).  A real run reads the course and assignment once (the
assignment's `points_possible` scales our score), then per student GETs the submission
(so a student not enrolled is reported, not created) and PUTs
`submission[posted_grade]` and `comment[text_comment]`.  One student's error never stops
the others; every outcome is returned.  Ungradable submissions (grader failures) and
students without a submission are never sent.
"""
from __future__ import annotations

from dataclasses import dataclass, field

from autograder.report.exports import GradeRow


@dataclass(frozen=True)
class PlannedGrade:
    user_id: str            # Canvas user id (or "sis_user_id:..." when only the SIS id is known)
    submission_id: str
    score: float            # in our points; scaled to Canvas's points_possible when sent
    max_score: float
    comment: str


@dataclass
class PassbackReport:
    dry_run: bool
    planned: list[PlannedGrade]
    skipped: list[str] = field(default_factory=list)             # "who: why"
    sent: list[tuple[str, float]] = field(default_factory=list)   # (user id, posted grade)
    failed: list[tuple[str, str]] = field(default_factory=list)   # (user id, error)

    def lines(self) -> list[str]:
        verb = "would send" if self.dry_run else "sent"
        out = []
        if self.dry_run:
            out += [f"{verb}: user {p.user_id} ({p.submission_id}): {p.score:g}/{p.max_score:g}; comment: "
                    f"{p.comment[:120]}" for p in self.planned]
        else:
            out += [f"sent: user {u}: {g:g}" for u, g in self.sent]
            out += [f"FAILED: user {u}: {e}" for u, e in self.failed]
        out += [f"skipped: {s}" for s in self.skipped]
        return out


def plan(rows: list[GradeRow], *, comments: bool = True) -> PassbackReport:
    planned, skipped = [], []
    for row in rows:
        who = row.identity
        uid = who.lms_user_id or (f"sis_user_id:{who.sis_id}" if who.sis_id else "")
        label = row.submission_id or who.name or who.student_id
        if row.score is None or row.max_score is None:
            skipped.append(f"{label}: {'no submission' if row.result is None else 'not gradable (grader failure)'}")
        elif not uid:
            skipped.append(f"{label}: no Canvas user id or SIS id")
        else:
            planned.append(PlannedGrade(uid, row.submission_id, row.score, row.max_score,
                                        row.comment() if comments else ""))
    return PassbackReport(True, planned, skipped)


def passback(rows: list[GradeRow], *, base_url: str, token: str, course_id: int | str, assignment_id: int | str,
             dry_run: bool = False, comments: bool = True, points_possible: float | None = None) -> PassbackReport:
    report = plan(rows, comments=comments)
    if dry_run:
        return report
    from canvasapi import Canvas
    from canvasapi.exceptions import CanvasException

    report.dry_run = False
    canvas = Canvas(base_url.rstrip("/"), token)
    assignment = canvas.get_course(course_id).get_assignment(assignment_id)
    target = points_possible if points_possible is not None else getattr(assignment, "points_possible", None)
    for p in report.planned:
        grade = p.score if not target or not p.max_score else round(p.score * float(target) / p.max_score, 4)
        try:
            sub = assignment.get_submission(p.user_id)
            kwargs: dict = {"submission": {"posted_grade": f"{grade:g}"}}
            if p.comment:
                kwargs["comment"] = {"text_comment": p.comment}
            sub.edit(**kwargs)
            report.sent.append((p.user_id, grade))
        except CanvasException as e:
            report.failed.append((p.user_id, f"{type(e).__name__}: {e}"))
    return report
