"""Making an override, as every face does it (`autograder override`, the workspace's form): record it in
the audit trail (`score.overrides`, which holds only the overrides), then rewrite what shows the
assignment's grades from the gradebook so they carry it at once."""
from __future__ import annotations

from pathlib import Path

from autograder.report.gradebook import Gradebook
from autograder.report.grades_csv import write_grades_csv
from autograder.score.overrides import WHOLE, Override, effective, record


def set_override(db: Path, assignment: str, submission_id: str, *, test: str | None, score: float, comment: str,
                 by: str) -> Override:
    """Record an override of `test` (id, name or unique prefix; None: the whole score) and rewrite the
    assignment's grades.csv with the overrides in force.  `score.overrides.OverrideError` when refused."""
    gb = Gradebook(db)
    try:
        o = record(db, gb.get(assignment, submission_id), test_id=test or WHOLE, score=score, comment=comment, by=by)
        write_grades_csv(db.parent / assignment / "grades.csv", effective(db, gb.all(assignment))[0])
    finally:
        gb.close()
    return o
