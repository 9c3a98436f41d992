"""Export files of an assignment's grades (`grades.rows`): the generic CSV / JSON forms, and the one
entry point for every format (`write_export`).  Canvas and Moodle formats live in `canvas_csv.py` and
`moodle_csv.py`; which grade each row carries is decided in `grades.rows.GradeRow`, nowhere here.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from autograder.config.files import write_atomic
from autograder.grades.rows import AssignmentGrades, GradeRow
from autograder.judge.results import OVERRIDE_LINE_ID, TestResult
from autograder.notebook.cells import exercise_key
from autograder.report.canvas_csv import write_canvas_csv
from autograder.report.escape import write_csv
from autograder.report.moodle_csv import write_moodle_csv


def _fmt(x: float | None) -> str:
    return "" if x is None else f"{x:g}"


def per_test_columns(rows: list[GradeRow]) -> list[tuple[str, str]]:
    """(test id, display name): exercises in the notebook's order (`notebook.cells.exercise_key`), each one's tests
    in the order first seen."""
    cols: dict[str, tuple[str, str]] = {}
    for row in rows:
        for t in row.result.tests if row.result else []:
            cols.setdefault(t.id, (t.name, t.exercise))
    key = exercise_key(rows[0].order if rows else ())
    return [(tid, name) for tid, (name, _) in sorted(cols.items(), key=lambda c: key(c[1][1]))]


def _in_order(row: GradeRow, tests: list[TestResult]) -> list[TestResult]:
    key = exercise_key(row.order)
    return sorted(tests, key=lambda t: key(t.exercise))


def generic_table(rows: list[GradeRow], missing: str = "blank") -> tuple[list[str], list[list[str]]]:
    tests = per_test_columns(rows)
    header = [
        "student_id",
        "name",
        "email",
        "sis_id",
        "section",
        "submission_id",
        "status",
        "raw_score",
        "late_penalty",
        "score",
        "max_score",
        "submitted_at",
        "late",
        "late_explanation",
    ]
    for tid, _ in tests:
        header += [f"{tid} score", f"{tid} outcome"]
    header.append("message")
    body = []
    for row in rows:
        who, r = row.identity, row.result
        by_id = {t.id: t for t in r.tests} if r else {}
        line = [
            who.student_id,
            who.name,
            who.email,
            who.sis_id,
            who.section,
            row.submission_id,
            row.status,
            _fmt(row.raw_score),
            _fmt(row.late.penalty if row.late and row.gradable else None),
            _fmt(row.export_score(missing)),
            _fmt(row.max_score),
            who.submitted_at.isoformat() if who.submitted_at else "",
            ""
            if row.late is None and who.late is None
            else str(bool((row.late and row.late.late) or who.late)).lower(),
            row.late.explanation if row.late else "",
        ]
        for tid, _ in tests:
            t = by_id.get(tid)
            line += ["" if t is None or t.outcome == "skipped" else f"{t.score:g}", t.outcome if t else ""]
        line.append("; ".join(x for x in (row.blank_reason, r.message if r else "") if x))
        body.append(line)
    return header, body


def write_generic_csv(path: Path, rows: list[GradeRow], missing: str = "blank") -> None:
    header, body = generic_table(rows, missing)
    write_csv(path, header, body)


def generic_json(rows: list[GradeRow], assignment: str, missing: str = "blank") -> dict[str, Any]:
    students = []
    for row in rows:
        r = row.result
        students.append(
            {
                "identity": row.identity.to_json(),
                "submission_id": row.submission_id or None,
                "status": row.status,
                "raw_score": row.raw_score,
                "score": row.export_score(missing),
                "blank_reason": row.blank_reason,
                "max_score": row.max_score,
                "late": None
                if row.late is None
                else {
                    "late": row.late.late,
                    "penalty": row.late.penalty,
                    "late_by_seconds": row.late.late_by.total_seconds(),
                    "explanation": row.late.explanation,
                },
                "message": r.message if r else "",
                "provisional": (r.provisional or None) if r else None,
                "tests": [
                    {
                        "id": t.id,
                        "name": t.name,
                        "exercise": t.exercise,
                        "kind": t.kind,
                        "outcome": t.outcome,
                        "score": t.score,
                        "max_score": t.max_score,
                    }
                    for t in _in_order(row, r.tests if r else [])
                    if not t.is_override
                ],
                # a whole-score override is no test: the line `grades.overrides.apply` adds to carry it, shown as what it is
                "override": next(
                    (
                        {"adjustment": t.score, "note": t.message}
                        for t in (r.tests if r else [])
                        if t.id == OVERRIDE_LINE_ID
                    ),
                    None,
                ),
                # each exercise's rubric items (`grades.rubric`): what they added to its points, and their texts
                "rubric": [
                    {"exercise": t.exercise, "adjustment": t.score, "items": t.message.splitlines()}
                    for t in (r.tests if r else [])
                    if t.is_override and t.id != OVERRIDE_LINE_ID
                ],
                "pending": row.pending,
            }
        )
    return {"assignment": assignment, "students": students}


def write_generic_json(path: Path, rows: list[GradeRow], assignment: str, missing: str = "blank") -> None:
    write_atomic(
        path, json.dumps(generic_json(rows, assignment, missing), indent=2, ensure_ascii=False, allow_nan=False) + "\n"
    )


EXPORT_FILES = {
    "canvas": "canvas.csv",
    "moodle": "moodle.csv",
    "csv": "grades_export.csv",
    "json": "grades_export.json",
}


def write_export(
    fmt: str,
    dest: Path,
    grades: AssignmentGrades,
    *,
    name: str | None = None,
    canvas_id: str | None = None,
    points: float | None = None,
    missing: str = "blank",
    moodle_identity: str = "email",
) -> tuple[list[str], list[str]]:
    """One assignment's grades in an LMS import format (`fmt`: canvas, moodle, csv, json) at `dest`.
    Returns (students not exported, with why; Canvas cells left blank, with why)."""

    a, rows = grades.assignment, grades.rows
    if fmt == "canvas":
        canvas = write_canvas_csv(
            dest,
            rows,
            assignment_name=name or a.title,
            assignment_id=canvas_id,
            points_possible=points,
            missing=missing,
        )
        return canvas.skipped, canvas.blanks
    if fmt == "moodle":
        return write_moodle_csv(
            dest, rows, item_name=name or a.title, identity=moodle_identity, grade_max=points, missing=missing
        ).skipped, []
    if fmt == "csv":
        write_generic_csv(dest, rows, missing)
    else:
        write_generic_json(dest, rows, a.id, missing)
    return [], []
