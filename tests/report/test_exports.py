"""Canvas / Moodle / generic exports; the Canvas CSV is read back under Canvas's import rules."""

import csv
import io
import json
import re
from dataclasses import replace
from datetime import datetime, timedelta, timezone

import pytest

from autograder.config.deadline import LatePolicy
from autograder.grades.rows import grade_rows
from autograder.intake.roster import Identity
from autograder.report.canvas_csv import write_canvas_csv
from autograder.report.escape import csv_cell
from autograder.report.exports import write_generic_csv, write_generic_json
from autograder.report.moodle_csv import write_moodle_csv
from tests.grades.factory import grader_failure, result

IDENTITY = ["Student", "ID", "SIS User ID", "SIS Login ID", "Section"]
READ_ONLY = {
    "Current Points",
    "Final Points",
    "Current Score",
    "Unposted Current Score",
    "Final Score",
    "Unposted Final Score",
    "Current Grade",
    "Final Grade",
    "Integration ID",
    "Root Account",
}


class CanvasImportError(ValueError):
    pass


def canvas_import(text: str, course: dict[str, dict], assignments: dict[str, str]):
    """Apply Canvas's gradebook-import rules to a CSV; returns {user_id: {assignment: grade}}, new assignments,
    and warnings.  `course` maps Canvas user ids to {"sis_user_id", "login_id"}; `assignments` id -> title."""
    text = text.removeprefix("\ufeff")
    rows = list(csv.reader(io.StringIO(text, newline="")))
    header = rows[0]
    if header[0].strip() != "Student":
        raise CanvasImportError("first column must be Student")
    if not {"ID", "SIS User ID", "SIS Login ID"} & set(header):
        raise CanvasImportError("no column to identify students by")
    cols = {}
    new = {}
    for i, h in enumerate(header):
        if h in IDENTITY or h in READ_ONLY:
            continue
        m = re.fullmatch(r"(.*)\s\((\d+)\)", h)
        if m:
            if m[2] not in assignments:
                raise CanvasImportError(f"unknown assignment id {m[2]}")
            cols[i] = m[2]
        else:
            cols[i] = f"new:{h}"
            new[f"new:{h}"] = None
    body = rows[1:]
    if body and re.search(r"Points Possible", body[0][0]):
        for i, key in cols.items():
            if key in new:
                new[key] = float(body[0][i])
        body = body[1:]
    grades, warnings = {}, []
    by_sis = {v["sis_user_id"]: k for k, v in course.items()}
    by_login = {v["login_id"]: k for k, v in course.items()}
    for row in body:
        if len(row) != len(header):
            raise CanvasImportError(f"row has {len(row)} cells, header {len(header)}: {row}")
        cell = dict(zip(header, row))
        uid = (
            (cell.get("ID") if cell.get("ID") in course else None)
            or by_sis.get(cell.get("SIS User ID", ""))
            or by_login.get(cell.get("SIS Login ID", ""))
        )
        if uid is None:
            warnings.append(f"unknown student {cell['Student']}")
            continue
        for i, key in cols.items():
            v = row[i].strip()
            if v == "":
                continue  # blank: no change
            if v.upper() == "EX":
                grades.setdefault(uid, {})[key] = "EX"
                continue
            grades.setdefault(uid, {})[key] = float(v.rstrip("%"))
    return grades, new, warnings


COURSE = {
    "12345": {"sis_user_id": "S001", "login_id": "jsmith"},
    "23456": {"sis_user_id": "S002", "login_id": "mg"},
    "34567": {"sis_user_id": "S003", "login_id": "po"},
    "45678": {"sis_user_id": "S004", "login_id": "na"},
}
DUE = LatePolicy.from_table({"due": "2026-10-01T23:59:00+00:00", "penalty_percent": 10})


def class_rows():
    results = [
        result("smithjohn_12345"),
        result("garcia_23456", (1, 0.5, 0, "timeout", 1), status="timeout", message="cell 4 did not finish in time"),
        result("obrien_34567", (0, 0, 0, 0, 0), status="invalid", message="not a notebook"),
        grader_failure("ghost_56789"),
        result("__reference__"),
    ]
    ids = {
        "smithjohn_12345": Identity(
            "12345",
            "Smith, John",
            "john@uni.edu",
            "S001",
            "jsmith",
            "A",
            "12345",
            datetime(2026, 10, 2, 5, tzinfo=timezone.utc),
            True,
        ),
        "garcia_23456": Identity(
            "23456",
            "=HYPERLINK(\"http://x\")",
            "maria@uni.edu",
            "S002",
            "mg",
            "B",
            "23456",
            datetime(2026, 10, 1, 5, tzinfo=timezone.utc),
            False,
        ),
        "obrien_34567": Identity("34567", "O'Brien, Pat", "pat@uni.edu", "", "", "A", "34567"),
        "ghost_56789": Identity("56789", "Ghost, G", "g@uni.edu", "S009", "", "A", "56789"),
    }
    roster = list(ids.values()) + [Identity("45678", "Nobody, Absent", "nobody@uni.edu", "S004", "na", "B", "45678")]
    return grade_rows(results, ids, policy=DUE, roster=roster)


def test_grade_rows_late_blank_for_grader_failures_and_missing():
    rows = {r.identity.student_id: r for r in class_rows()}
    assert len(rows) == 5  # reference run left out, missing student added
    assert rows["12345"].raw_score == 10 and rows["12345"].score == 9 and rows["12345"].late.late
    assert rows["23456"].score == 1 + 1.5 + 2 and not rows["23456"].late.late
    assert rows["34567"].score == 0  # invalid notebook: a real 0
    assert rows["56789"].score is None and not rows["56789"].gradable  # grader failure: blank, not 0
    assert rows["45678"].status == "missing" and rows["45678"].score is None


def test_canvas_csv_round_trips_through_canvas_import_rules(tmp_path):
    path = tmp_path / "canvas.csv"
    export = write_canvas_csv(path, class_rows(), assignment_name="Homework 1: tensors, autograd", assignment_id=4321)
    text = path.read_text(encoding="utf-8")
    lines = text.splitlines()
    assert lines[0] == 'Student,ID,SIS User ID,SIS Login ID,Section,"Homework 1: tensors, autograd (4321)"'
    assert lines[1] == "Points Possible,,,,,10"
    grades, new, warnings = canvas_import(
        text, COURSE | {"56789": {"sis_user_id": "S009", "login_id": ""}}, {"4321": "Homework 1"}
    )
    assert grades == {"12345": {"4321": 9.0}, "23456": {"4321": 4.5}, "34567": {"4321": 0.0}}
    assert not new and not warnings and not export.skipped
    assert "'=HYPERLINK" in text  # formula neutralised


def test_canvas_csv_new_assignment_scaling_and_zero_for_missing(tmp_path):
    path = tmp_path / "c.csv"
    write_canvas_csv(path, class_rows(), assignment_name="Lab 1", points_possible=20, missing="zero")
    grades, new, warnings = canvas_import(path.read_text(), COURSE, {})
    assert new == {"new:Lab 1": 20.0}
    assert grades["12345"] == {"new:Lab 1": 18.0} and grades["45678"] == {"new:Lab 1": 0.0}
    assert warnings == ["unknown student Ghost, G"]  # not in this course: Canvas warns; we wrote a blank anyway


def test_moodle_csv(tmp_path):
    path = tmp_path / "moodle.csv"
    export = write_moodle_csv(path, class_rows(), item_name="Homework 1")
    rows = list(csv.DictReader(io.StringIO(path.read_text(encoding="utf-8"))))
    assert list(rows[0]) == ["Email address", "Full name", "Homework 1", "Feedback for Homework 1"]
    by_mail = {r["Email address"]: r for r in rows}
    assert (
        by_mail["john@uni.edu"]["Homework 1"] == "9" and "Late:" in by_mail["john@uni.edu"]["Feedback for Homework 1"]
    )
    assert by_mail["maria@uni.edu"]["Full name"].startswith("'=")
    assert set(export.skipped) == {
        "ghost_56789: not graded: the grader itself failed",
        "45678: no submission",
    }  # no trustworthy grade: not sent, with the reason
    with pytest.raises(ValueError):
        write_moodle_csv(path, class_rows(), item_name="x", identity="nickname")


def test_generic_csv_and_json(tmp_path):
    rows = class_rows()
    write_generic_csv(tmp_path / "g.csv", rows)
    table = list(csv.DictReader(io.StringIO((tmp_path / "g.csv").read_text(encoding="utf-8"))))
    assert len(table) == 5
    john = next(r for r in table if r["student_id"] == "12345")
    assert john["score"] == "9" and john["raw_score"] == "10" and john["late_penalty"] == "1" and john["late"] == "true"
    assert john["hidden/test_later.py::test_later outcome"] == "passed"
    maria = next(r for r in table if r["student_id"] == "23456")
    assert maria["hidden/test_double.py::test_answer outcome"] == "timeout"
    assert maria["hidden/test_double.py::test_double_random score"] == "1.5"
    write_generic_json(tmp_path / "g.json", rows, "toy")
    data = json.loads((tmp_path / "g.json").read_text())
    assert data["assignment"] == "toy" and len(data["students"]) == 5
    ghost = next(s for s in data["students"] if s["identity"]["student_id"] == "56789")
    assert ghost["score"] is None and ghost["status"] == "crashed"


def test_csv_cell():
    assert csv_cell("=1+1") == "'=1+1" and csv_cell("-2") == "-2" and csv_cell("@x") == "'@x"
    assert csv_cell("Smith, John") == "Smith, John"


def test_a_known_submission_time_decides_over_the_canvas_late_flag():
    """Canvas's LATE marker never overrides the time the download gives: a student inside an extension
    that Canvas does not know of keeps full marks (it cost one day's penalty)."""
    r = [result("a"), result("b"), result("c")]
    ids = {
        "a": Identity(
            "1",
            lms_user_id="1",
            submitted_at=datetime(2026, 10, 5, tzinfo=timezone.utc),
            late=False,
            time_source="mtime",
        ),  # the time says 3 days late, Canvas says on time
        "b": Identity(
            "2",
            lms_user_id="2",
            login_id="bob",
            submitted_at=datetime(2026, 10, 2, tzinfo=timezone.utc),
            late=True,
            time_source="mtime",
        ),  # late for Canvas, inside bob's extension
        "c": Identity("3", lms_user_id="3", late=True),
    }  # no time known: the flag is all there is
    policy = replace(DUE, extensions={"BOB": DUE.due + timedelta(days=2)})
    rows = {x.submission_id: x for x in grade_rows(r, ids, policy=policy)}
    assert rows["a"].score == 6 and rows["b"].score == 10 and "extension" in rows["b"].late.explanation
    assert rows["c"].score == 9 and "marked this submission late" in rows["c"].late.explanation
