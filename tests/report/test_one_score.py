"""One score and one order on every face.  A class with a late penalty and an override: each student's score and
name are the same in the table `autograder grade` prints, the Canvas and Moodle files, the generic CSV and JSON,
the instructor report and the workspace's pages; and the exercises come in the notebook's order (the master's
`check()` lines, `notebook.cells.exercise_key`) on every face that lists them, which here is neither
alphabetical, nor the test files' order, nor the hardest first."""

from __future__ import annotations

import csv
import io
import json
import shutil

import pytest

from autograder.cli import main
from autograder.config.course import load_course
from autograder.grades.rows import grade_rows
from autograder.pipeline import set_override
from autograder.report.feedback import student_view
from autograder.report.grades_csv import grades_table
from autograder.report.instructor_report import report_context
from autograder.report.table import print_table
from autograder.serve import pages
from autograder.serve.pages import Workspace
from autograder.store.folder import assignment_grades
from tests.cli.test_commands import setup_out
from tests.grades.factory import result

ORDER = [
    "later",
    "double",
    "answer",
]  # as the master below calls check(): not sorted, not the files', not hardest first
LATE = "Smith, John"  # smithjohn_12345: 10/10, a day late at 15 % a day: 8.5
OVERRIDDEN = "Doe, Jane"  # doejane_23456: 3/10 as graded, a 3-point test overridden by the TA from 0 to 3: 6


@pytest.fixture
def course(toy_kit, tmp_path):
    kit = tmp_path / "kit"
    shutil.copytree(toy_kit, kit, ignore=shutil.ignore_patterns("__pycache__"))
    master = kit / "solutions" / "toy.ipynb"
    nb = json.loads(master.read_text(encoding="utf-8"))
    nb["cells"].append(
        {
            "cell_type": "code",
            "metadata": {},
            "outputs": [],
            "execution_count": None,
            "id": "checks",
            "source": "".join(f'check("{e}")\n' for e in ORDER),
        }
    )
    master.write_text(json.dumps(nb), encoding="utf-8")
    out = setup_out(tmp_path)
    (tmp_path / "course.toml").write_text(
        '[course]\nroster = "roster.csv"\nresults = "results"\n'
        '[assignments.toy.deadline]\ndue = "2026-09-30T00:00:00+00:00"\n'
        'penalty_percent = 15\nperiod = "day"\n'
    )
    c = load_course(tmp_path / "course.toml")
    g = assignment_grades(kit, "toy", out, roster_csv=tmp_path / "roster.csv", course=c)
    set_override(
        g, "doejane_23456", test="hidden/test_double.py::test_double_random", score=3, comment="partial credit", by="TA"
    )
    return kit, out, tmp_path / "roster.csv", c


def _grades(course):
    kit, out, roster, c = course
    return assignment_grades(kit, "toy", out, roster_csv=roster, course=c)


def test_one_score_and_one_name_on_every_face(course, tmp_path):
    kit, out, roster, c = course
    g = _grades(course)
    expected = {LATE: (8.5, 10.0), OVERRIDDEN: (6.0, 6.0)}  # name: (score everywhere, before the late policy)
    by_name = {r.identity.name: r for r in g.rows}
    assert {n: by_name[n].score for n in expected} == {n: s for n, (s, _) in expected.items()}

    table = io.StringIO()  # what `autograder grade` prints: these rows (cli/grade.py)
    print_table(g.rows, "toy", stream=table)
    shown = {
        line.split("│")[1].strip(): line.split("│")[2].strip()
        for line in table.getvalue().splitlines()
        if line.startswith("│") and "(" in line.split("│")[1]
    }
    assert shown[f"{LATE} (smithjohn_12345)"] == "8.5/10 (raw 10)"
    assert shown[f"{OVERRIDDEN} (doejane_23456)"] == "6/10"  # the override is the score: no raw beside it

    base = ["--course-file", str(tmp_path / "course.toml"), "--kit", str(kit)]
    assert (
        main([*base, "export", "toy", "--format", "canvas", "--assignment-id", "7", "--to", str(tmp_path / "c.csv")])
        == 0
    )
    canvas = {
        r["Student"]: next(v for k, v in r.items() if k.endswith("(7)"))
        for r in csv.DictReader((tmp_path / "c.csv").open(encoding="utf-8"))
        if r["ID"]
    }
    assert (
        main(
            [
                *base,
                "export",
                "toy",
                "--format",
                "moodle",
                "--moodle-identity",
                "sis_id",
                "--to",
                str(tmp_path / "m.csv"),
            ]
        )
        == 0
    )
    moodle = {r["Full name"]: r for r in csv.DictReader((tmp_path / "m.csv").open(encoding="utf-8"))}
    assert main([*base, "export", "toy", "--format", "json", "--to", str(tmp_path / "g.json")]) == 0
    exported = {s["identity"]["name"]: s for s in json.loads((tmp_path / "g.json").read_text())["students"]}

    ws = Workspace(kit, out, roster, c)
    page = {v["who"]: v for v in pages.assignment_page(ws, "toy", {})["rows"]}
    report = {v["who"]: v for v in report_context(g.rows, title="toy", plots=False)["rows"]}
    for name, (score, raw) in expected.items():
        sid = by_name[name].submission_id
        assert float(canvas[name]) == score, name
        assert (
            float(
                moodle[name][
                    next(
                        k for k in moodle[name] if k not in ("ID number", "Full name") and not k.startswith("Feedback")
                    )
                ]
            )
            == score
        ), name
        assert exported[name]["score"] == score and exported[name]["raw_score"] == raw
        assert page[name]["score"] == score and report[name]["score"] == score
        sub = pages.submission_page(ws, "toy", sid)
        assert sub["row"].identity.name == name and sub["row"].score == score
        view = student_view(sub["row"].result, sub["row"].identity, sub["row"].late)
        assert view["who"] == name and view["score"] == score


def test_exercises_keep_the_notebooks_order_on_every_face(course, tmp_path):
    kit, out, roster, c = course
    g = _grades(course)
    assert list(g.order) == ORDER
    ws = Workspace(kit, out, roster, c)
    page = pages.assignment_page(ws, "toy", {})
    assert page["columns"] == ORDER and page["exercise_names"] == ORDER  # class view, its filter
    assert [e["exercise"] for e in page["ctx"]["exercises"]] == ORDER  # the report's, in the page
    assert list(dict.fromkeys(t["exercise"] for t in page["ctx"]["tests"])) == ORDER
    sub = pages.submission_page(ws, "toy", "doejane_23456")
    assert [ex for ex, _ in sub["menu"]] == ORDER  # the override menu
    assert [s["exercise"] for s in sub["sections"] if s["tests"]] == ORDER
    assert pages.exercise_page(ws, "toy", "double")["others"] == ["later", "answer"]
    row = next(r for r in g.rows if r.submission_id == "doejane_23456")
    view = student_view(row.result, row.identity, row.late, order=list(g.order))  # feedback page
    assert [e.exercise for e in view["exercises"]] == ORDER
    assert list(dict.fromkeys(t.exercise for t in view["tests"])) == ORDER
    # the Moodle feedback column, Canvas's and LTI's comments: a student who failed a test of each exercise
    comment = grade_rows([result("roe", (0, 1, 0.5, 0, 0))], order=g.order)[0].comment()
    failed = comment.split("Not passed: ")[1]
    assert [
        failed.index(name) for name in ("later() works", "double() on a known vector", "ANSWER is right")
    ] == sorted(failed.index(name) for name in ("later() works", "double() on a known vector", "ANSWER is right"))
    base = ["--course-file", str(tmp_path / "course.toml"), "--kit", str(kit)]
    assert main([*base, "export", "toy", "--format", "csv", "--to", str(tmp_path / "g.csv")]) == 0
    header = next(csv.reader((tmp_path / "g.csv").open(encoding="utf-8")))
    ex_of = {t.id: t.exercise for t in row.result.tests}
    per_column = [ex_of[h[: -len(" score")]] for h in header if h.endswith(" score") and h[: -len(" score")] in ex_of]
    assert list(dict.fromkeys(per_column)) == ORDER
    header, _ = grades_table(g.results, g.order)  # grades.csv (`write_assignment_grades_csv`)
    assert list(dict.fromkeys(ex_of[h] for h in header if h in ex_of)) == ORDER
    assert main([*base, "export", "toy", "--format", "json", "--to", str(tmp_path / "g.json")]) == 0
    student = next(
        s for s in json.loads((tmp_path / "g.json").read_text())["students"] if s["submission_id"] == "doejane_23456"
    )
    assert list(dict.fromkeys(t["exercise"] for t in student["tests"])) == ORDER
