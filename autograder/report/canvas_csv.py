"""Canvas gradebook import CSV.

The layout Canvas exports and imports (Grades > Import): header
`Student,ID,SIS User ID,SIS Login ID,Section,<Assignment Name> (<assignment_id>)`, a second
row `Points Possible` with the assignment's points under its column, then one row per
student.  Canvas matches students by `ID` (its user id), else `SIS User ID`, else
`SIS Login ID`; `Student` and `Section` are informational.  A header without `(<id>)`
creates a new assignment, whose points come from the `Points Possible` row.  A blank grade
cell changes nothing: grades follow the one export policy of `rows.GradeRow.export_score`
(ungradable and provisional always blank, missing blank unless `missing="zero"`); the format has no
comment column, so `blanks` lists the reasons for the caller to show.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

from autograder.grades.rows import GradeRow
from autograder.report.escape import write_csv

IDENTITY_COLUMNS = ["Student", "ID", "SIS User ID", "SIS Login ID", "Section"]


@dataclass
class CanvasExport:
    header: list[str]
    rows: list[list[str]]
    skipped: list[str] = field(default_factory=list)  # students Canvas could not match (no id of any kind)
    blanks: list[str] = field(default_factory=list)  # "who: why" for each blank grade


def assignment_header(name: str, assignment_id: str | int | None) -> str:
    name = name.replace("\n", " ").strip()
    return f"{name} ({assignment_id})" if assignment_id not in (None, "") else name


def canvas_table(
    rows: list[GradeRow],
    *,
    assignment_name: str,
    assignment_id: str | int | None = None,
    points_possible: float | None = None,
    missing: str = "blank",
) -> CanvasExport:
    """`missing`: "blank" (Canvas leaves the grade unchanged) or "zero" for students with no submission."""
    maxes = [r.max_score for r in rows if r.max_score]
    max_score = max(maxes) if maxes else None
    points = points_possible if points_possible is not None else (max_score or 0.0)
    header = IDENTITY_COLUMNS + [assignment_header(assignment_name, assignment_id)]
    body = [["Points Possible", "", "", "", "", f"{points:g}"]]
    skipped, blanks = [], []
    for row in rows:
        who = row.identity
        if not (who.lms_user_id or who.sis_id or who.login_id):
            skipped.append(row.submission_id or who.student_id)
            continue
        score = row.export_score(missing)
        if score is not None and row.max_score and points != row.max_score:
            score = round(score * points / row.max_score, 4)
        if score is None:
            blanks.append(f"{row.submission_id or who.student_id}: {row.blank_reason}")
        body.append(
            [
                who.name or who.student_id,
                who.lms_user_id,
                who.sis_id,
                who.login_id,
                who.section,
                "" if score is None else f"{score:g}",
            ]
        )
    return CanvasExport(header, body, skipped, blanks)


def write_canvas_csv(path: Path, rows: list[GradeRow], **kw) -> CanvasExport:
    export = canvas_table(rows, **kw)
    write_csv(path, export.header, export.rows)
    return export
