"""Moodle grade import CSV (Grades > Import > CSV file).

A header row, one identity column that the import maps to a user field (`Email address`
by default; `ID number` or `Username` also work), a `Full name` column for people to read
(the import ignores unmapped columns), one grade column named after the grade item, and a
feedback column mapped at import to "Feedback for <item>".  UTF-8, comma separated.
Grades follow the one export policy of `rows.GradeRow.export_score`: a blank grade (ungradable,
provisional, missing unless `missing="zero"`) leaves the row out of the file (Moodle would otherwise
overwrite a grade); `skipped` lists them with the reason.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

from autograder.grades.rows import GradeRow
from autograder.report.escape import write_csv

IDENTITY_FIELDS = {"email": "Email address", "sis_id": "ID number", "login_id": "Username"}


@dataclass
class MoodleExport:
    header: list[str]
    rows: list[list[str]]
    skipped: list[str] = field(default_factory=list)


def moodle_table(
    rows: list[GradeRow],
    *,
    item_name: str,
    identity: str = "email",
    grade_max: float | None = None,
    missing: str = "blank",
) -> MoodleExport:
    if identity not in IDENTITY_FIELDS:
        raise ValueError(f"identity must be one of {', '.join(IDENTITY_FIELDS)}")
    header = [IDENTITY_FIELDS[identity], "Full name", item_name, f"Feedback for {item_name}"]
    body, skipped = [], []
    for row in rows:
        key = getattr(row.identity, identity)
        score = row.export_score(missing)
        if not key or score is None:
            why = row.blank_reason if key else f"no {IDENTITY_FIELDS[identity]}"
            skipped.append(f"{row.submission_id or row.identity.student_id}: {why}")
            continue
        if grade_max is not None and row.max_score and grade_max != row.max_score:
            score = round(score * grade_max / row.max_score, 4)
        body.append([key, row.identity.name, f"{score:g}", row.comment()])
    return MoodleExport(header, body, skipped)


def write_moodle_csv(path: Path, rows: list[GradeRow], **kw) -> MoodleExport:
    export = moodle_table(rows, **kw)
    write_csv(path, export.header, export.rows)
    return export
