"""grades.csv: one row per submission, one column per test, properly quoted.

OUT/ASSIGNMENT/grades.csv is written by `write_assignment_grades_csv` from `store.folder.assignment_grades`,
as every export is: the version the course counts (`[course] counts`), with the overrides in force."""

from __future__ import annotations

import csv
import io
from pathlib import Path
from typing import TYPE_CHECKING, Sequence

from autograder.config.files import write_atomic
from autograder.judge.results import SubmissionResult
from autograder.notebook.cells import exercise_key
from autograder.report.escape import csv_row

if TYPE_CHECKING:
    from autograder.grades.rows import AssignmentGrades


def grades_table(results: list[SubmissionResult], order: Sequence[str] = ()) -> tuple[list[str], list[list[object]]]:
    """The header and rows; a column per test, exercises in the notebook's `order` (`notebook.cells.exercise_key`),
    each one's tests in the order first seen."""
    exercise_of: dict[str, str] = {}
    for r in results:
        for t in r.tests:
            exercise_of.setdefault(t.id, t.exercise)
    key = exercise_key(order)
    test_ids = sorted(exercise_of, key=lambda i: key(exercise_of[i]))
    header = ["submission_id", "source", "status", "score", "max_score", *test_ids, "message"]
    rows: list[list[object]] = []
    for r in results:
        by_id = {t.id: t for t in r.tests}
        cells = [(f"{by_id[i].score:g}" if i in by_id and by_id[i].outcome != "skipped" else "") for i in test_ids]
        rows.append([r.submission_id, r.source, r.status, f"{r.score:g}", f"{r.max_score:g}", *cells, r.message])
    return header, rows


def write_grades_csv(path: Path, results: list[SubmissionResult], order: Sequence[str] = ()) -> None:
    header, rows = grades_table(results, order)
    buf = io.StringIO()
    w = csv.writer(buf, quoting=csv.QUOTE_NONNUMERIC, lineterminator="\n")
    w.writerow(csv_row(header))  # every field through escape.csv_cell (test ids, source, message...)
    w.writerows(csv_row(row) for row in rows)
    write_atomic(path, buf.getvalue())


def write_assignment_grades_csv(grades: AssignmentGrades) -> Path:
    """OUT/ASSIGNMENT/grades.csv from the grades every export sends (counted versions, overrides in force)."""
    path = grades.out / grades.assignment.id / "grades.csv"
    write_grades_csv(path, grades.results, grades.order)
    return path
