"""Making an override, as every face does it (`autograder override`, the workspace's form): record it in
the audit trail (`score.overrides`, which holds only the overrides) against the version of the submission
that counts (`[course] counts`), then rewrite what shows the assignment's grades so they carry it at once."""
from __future__ import annotations

from autograder.report.exports import AssignmentGrades
from autograder.report.grades_csv import write_assignment_grades_csv
from autograder.score.overrides import WHOLE, Override, record


def set_override(grades: AssignmentGrades, submission_id: str, *, test: str | None, score: float, comment: str,
                 by: str) -> Override:
    """Record an override of `test` (id, name or unique prefix; None: the whole score) on the counted version
    of `submission_id` in `grades` (`exports.assignment_grades`, just read), and rewrite the assignment's
    grades.csv: `grades` with that submission's overrides read again (`with_overrides_of`, the other rows
    unchanged).  `score.overrides.OverrideError` when refused."""
    counted = next((r for r in grades.counted if r.submission_id == submission_id), None)
    o = record(grades.out / "gradebook.sqlite", counted, test_id=test or WHOLE, score=score, comment=comment, by=by)
    write_assignment_grades_csv(grades.with_overrides_of({o.submission_id}))
    return o
