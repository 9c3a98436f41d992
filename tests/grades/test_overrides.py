"""Instructor overrides: recorded as an audit trail, applied to every export, feedback page and grades.csv,
kept across re-grades of the same notebook, stale (shown, not applied) once the notebook changes."""

import csv
import io
import json
from dataclasses import replace

import pytest

from autograder.grades import overrides as ov
from autograder.store.database import Gradebook
from autograder.store.marks import Marks
from tests.cli.test_commands import run, setup_out
from tests.grades.factory import grader_failure, result

HIDDEN = "hidden/test_double.py::test_double_partial"


def export_json(toy_kit, out):
    assert run(["export", "toy", "--out", str(out), "--format", "json"], toy_kit) == 0
    return {s["submission_id"]: s for s in json.loads((out / "toy" / "grades_export.json").read_text())["students"]}


def test_test_and_whole_overrides_reach_exports_feedback_and_grades_csv(toy_kit, tmp_path, capsys):
    out = setup_out(tmp_path)  # doejane_23456: 1 + 0 + 0 + 0 + 2 = 3/10
    assert (
        run(
            [
                "override",
                "toy",
                "doejane_23456",
                "--test",
                HIDDEN,
                "--score",
                "1.5",
                "--comment",
                "dtype kept, checked by hand",
                "--by",
                "TA Kim",
                "--out",
                str(out),
            ],
            toy_kit,
        )
        == 0
    )
    assert f"override #1: doejane_23456 {HIDDEN}: 0 -> 1.5" in capsys.readouterr().out
    s = export_json(toy_kit, out)["doejane_23456"]
    assert s["score"] == 4.5 and next(t for t in s["tests"] if t["id"] == HIDDEN)["score"] == 1.5
    grades = list(csv.DictReader(io.StringIO((out / "toy" / "grades.csv").read_text())))
    assert {g["submission_id"]: g["score"] for g in grades}["doejane_23456"] == "4.5"
    assert (
        run(
            [
                "override",
                "toy",
                "smithjohn_12345",
                "--score",
                "7",
                "--comment",
                "copied part 3",
                "--by",
                "Prof",
                "--out",
                str(out),
            ],
            toy_kit,
        )
        == 0
    )
    assert export_json(toy_kit, out)["smithjohn_12345"]["score"] == 7
    capsys.readouterr()
    assert (
        run(
            [
                "passback",
                "toy",
                "--out",
                str(out),
                "--canvas-url",
                "https://c.example",
                "--course",
                "1",
                "--canvas-assignment",
                "2",
                "--dry-run",
            ],
            toy_kit,
        )
        == 0
    )
    assert (
        "(smithjohn_12345): 7/10; comment: Score: 7/10. Total set to 7 by Prof: copied part 3"
        in capsys.readouterr().out
    )  # the LMS comment says why
    assert run(["feedback", "toy", "--out", str(out)], toy_kit) == 0
    page = (out / "toy" / "feedback" / "smithjohn_12345.md").read_text()
    assert "copied part 3" in page and "Prof" in page
    capsys.readouterr()
    assert run(["override", "toy", "--list", "--out", str(out)], toy_kit) == 0
    listing = capsys.readouterr().out
    assert "TA Kim: doejane_23456 " + HIDDEN + ": 0 -> 1.5 [in force] dtype kept" in listing
    assert "Prof: smithjohn_12345 whole submission: 10 -> 7 [in force]" in listing


def test_trail_kept_regrade_same_notebook_keeps_it_changed_notebook_makes_it_stale(toy_kit, tmp_path, capsys):
    out = setup_out(tmp_path)
    db = out / "gradebook.sqlite"
    for score, why in ((8, "first look"), (6, "second look")):
        assert (
            run(
                [
                    "override",
                    "toy",
                    "smithjohn_12345",
                    "--score",
                    str(score),
                    "--comment",
                    why,
                    "--by",
                    "TA",
                    "--out",
                    str(out),
                ],
                toy_kit,
            )
            == 0
        )
    trail = Marks(out).overrides("toy")
    assert [(o.old_score, o.new_score) for o in trail] == [(10, 8), (8, 6)]  # old -> new, nothing deleted
    gb = Gradebook(db)
    gb.put(result("smithjohn_12345"))  # re-graded, same notebook (same sha256)
    gb.close()
    assert export_json(toy_kit, out)["smithjohn_12345"]["score"] == 6
    gb = Gradebook(db)
    gb.put(replace(result("smithjohn_12345"), sha256="cd" * 32))  # the student resubmitted
    gb.close()
    capsys.readouterr()
    assert export_json(toy_kit, out)["smithjohn_12345"]["score"] == 10  # stale: not applied
    assert "is stale" in capsys.readouterr().err
    assert run(["override", "toy", "smithjohn_12345", "--list", "--out", str(out)], toy_kit) == 0
    listing = capsys.readouterr().out
    assert "8 -> 6 [stale]" in listing and "10 -> 8 [superseded]" in listing
    assert len(Marks(out).overrides("toy")) == 2


def test_refused_overrides(toy_kit, tmp_path, capsys):
    out = setup_out(tmp_path)
    db = out / "gradebook.sqlite"
    gb = Gradebook(db)
    gb.put(grader_failure("ghost_1"))
    gb.put(replace(result("prov_2"), provisional="host fault"))
    good = gb.get("toy", "smithjohn_12345")
    gb.close()
    for sid in ("ghost_1", "prov_2", "nobody"):
        assert (
            run(["override", "toy", sid, "--score", "1", "--comment", "x", "--by", "a", "--out", str(out)], toy_kit)
            == 2
        )
    with pytest.raises(ov.OverrideError, match="between 0 and 10"):
        ov.record([], good, score=11, comment="x", by="a")
    with pytest.raises(ov.OverrideError, match="between 0 and 2"):
        ov.record([], good, test_id=HIDDEN, score=2.5, comment="x", by="a")
    with pytest.raises(ov.OverrideError, match="no test"):
        ov.record([], good, test_id="hidden/nope.py::t", score=1, comment="x", by="a")
    with pytest.raises(ov.OverrideError, match="comment"):
        ov.record([], good, score=1, comment="  ", by="a")
    with pytest.raises(ov.OverrideError, match="between"):
        ov.record([], good, score=float("nan"), comment="x", by="a")
    with pytest.raises(ov.OverrideError, match="longer than 2000"):
        ov.record([], good, score=1, comment="x" * (ov.MAX_COMMENT + 1), by="a")
    assert Marks(out).overrides("toy") == []


def test_grade_writes_grades_csv_with_overrides_in_force(toy_kit, tmp_path):
    """The pipeline's grades.csv, after a real (sandboxed) re-grade of the same notebook: the override holds."""
    from autograder.config.assignment import load_assignment
    from autograder.intake.submissions import Submission
    from autograder.judge.session import GradeOptions
    from autograder.pipeline import grade_class

    a = load_assignment("toy", toy_kit)
    out = tmp_path / "results"
    subs = [Submission("master", toy_kit / "solutions" / "toy.ipynb", "master.ipynb")]
    grade_class(a, subs, out=out, options=GradeOptions())
    db = out / "gradebook.sqlite"
    gb = Gradebook(db)
    stored = gb.get("toy", "master")
    gb.close()
    Marks(out).add_override(ov.record([], stored, score=stored.max_score - 1, comment="late slides", by="Prof"))
    run = grade_class(a, subs, out=out, options=GradeOptions(), force=True)
    assert run.results[0].sha256 == stored.sha256
    grades = list(csv.DictReader(io.StringIO((out / "toy" / "grades.csv").read_text())))
    assert [(g["submission_id"], float(g["score"])) for g in grades] == [("master", stored.max_score - 1)]


def _resubmit(out, sid):
    gb = Gradebook(out / "gradebook.sqlite")
    gb.put(replace(result(sid), sha256="cd" * 32))  # the student resubmitted: the override made before is stale
    gb.close()


def test_clear_reapply_and_ack_in_the_trail_with_their_author(toy_kit, tmp_path, capsys):
    out = setup_out(tmp_path)
    argv = ["--out", str(out)]
    assert (
        run(
            [
                "override",
                "toy",
                "doejane_23456",
                "--test",
                HIDDEN,
                "--score",
                "1.5",
                "--comment",
                "dtype by hand",
                "--by",
                "TA Kim",
                *argv,
            ],
            toy_kit,
        )
        == 0
    )
    assert (
        run(
            ["override", "toy", "smithjohn_12345", "--score", "7", "--comment", "copied part 3", "--by", "Prof", *argv],
            toy_kit,
        )
        == 0
    )
    assert export_json(toy_kit, out)["smithjohn_12345"]["score"] == 7
    _resubmit(out, "smithjohn_12345")
    _resubmit(out, "doejane_23456")
    assert export_json(toy_kit, out)["smithjohn_12345"]["score"] == 10  # stale: not applied
    capsys.readouterr()
    # re-apply the whole-score one to the version that counts; acknowledge the test one
    assert run(["override", "toy", "smithjohn_12345", "--reapply", "--by", "TA Lee", *argv], toy_kit) == 0
    assert "re-applied: smithjohn_12345 whole submission: 10 -> 7" in capsys.readouterr().out
    assert export_json(toy_kit, out)["smithjohn_12345"]["score"] == 7
    assert (
        run(
            [
                "override",
                "toy",
                "doejane_23456",
                "--test",
                "double() keeps the dtype",
                "--ack",
                "--by",
                "TA Lee",
                *argv,
            ],
            toy_kit,
        )
        == 0
    )
    capsys.readouterr()
    export_json(toy_kit, out)
    assert "is stale" not in capsys.readouterr().err  # acknowledged: no longer warned about
    assert run(["override", "toy", "doejane_23456", "--test", HIDDEN, "--reapply", "--by", "x", *argv], toy_kit) == 2
    assert "no such override" in capsys.readouterr().err  # an acknowledged one is not stale any more
    # clear the re-applied one: the grader's score counts again
    assert run(["override", "toy", "smithjohn_12345", "--clear", "--by", "Prof", *argv], toy_kit) == 0
    assert export_json(toy_kit, out)["smithjohn_12345"]["score"] == 10
    assert run(["override", "toy", "smithjohn_12345", "--clear", "--by", "Prof", *argv], toy_kit) == 2
    assert run(["override", "toy", "smithjohn_12345", "--clear", "--score", "3", *argv], toy_kit) == 2
    capsys.readouterr()
    assert run(["override", "toy", "--list", *argv], toy_kit) == 0
    listing = capsys.readouterr().out
    assert "TA Lee: smithjohn_12345 whole submission: 10 -> 7 [superseded] re-applied: copied part 3" in listing
    assert "TA Lee: doejane_23456 " + HIDDEN + ": 2 -> 2 [ack] acknowledged stale #1, not applied" in listing
    assert "Prof: smithjohn_12345 whole submission: 7 -> 10 [clear] cleared #3" in listing
    assert [o.action for o in Marks(out).overrides("toy")] == ["set", "set", "reapply", "ack", "clear"]


def test_an_override_rewrites_feedback_and_report_and_reaches_moodle_comments(toy_kit, tmp_path, capsys):
    out = setup_out(tmp_path)
    argv = ["--out", str(out)]
    assert run(["feedback", "toy", *argv], toy_kit) == 0 and run(["report", "toy", *argv], toy_kit) == 0
    other = (out / "toy" / "feedback" / "smithjohn_12345.md").stat().st_mtime_ns
    assert (
        run(
            [
                "override",
                "toy",
                "doejane_23456",
                "--test",
                HIDDEN,
                "--score",
                "1.5",
                "--comment",
                "dtype kept, checked by hand",
                "--by",
                "TA Kim",
                *argv,
            ],
            toy_kit,
        )
        == 0
    )
    page = (out / "toy" / "feedback" / "doejane_23456.md").read_text()
    assert "dtype kept, checked by hand" in page and "4.5" in page  # rewritten by the override itself
    assert (out / "toy" / "feedback" / "smithjohn_12345.md").stat().st_mtime_ns == other  # others untouched
    report = (out / "toy" / "report.html").read_text()
    assert "4.5" in report
    assert run(["override", "toy", "doejane_23456", "--test", HIDDEN, "--clear", "--by", "TA Kim", *argv], toy_kit) == 0
    assert "dtype kept" not in (out / "toy" / "feedback" / "doejane_23456.md").read_text()
    assert (
        run(
            [
                "override",
                "toy",
                "doejane_23456",
                "--test",
                HIDDEN,
                "--score",
                "2",
                "--comment",
                "right idea, checked by hand",
                "--by",
                "TA Kim",
                *argv,
            ],
            toy_kit,
        )
        == 0
    )
    from autograder.report.moodle_csv import moodle_table
    from autograder.store.folder import assignment_grades

    rows = [
        replace(r, identity=replace(r.identity, email=f"{r.submission_id}@uni.example"))
        for r in assignment_grades(toy_kit, "toy", out).rows
    ]
    jane = next(line for line in moodle_table(rows, item_name="Toy").rows if line[0].startswith("doejane"))
    assert "right idea, checked by hand" in jane[-1] and "TA Kim" in jane[-1]  # the feedback column says why


def test_a_whole_score_override_is_an_override_in_the_json_not_a_test(toy_kit, tmp_path):
    out = setup_out(tmp_path)
    assert (
        run(
            [
                "override",
                "toy",
                "smithjohn_12345",
                "--score",
                "7",
                "--comment",
                "copied part 3",
                "--by",
                "Prof",
                "--out",
                str(out),
            ],
            toy_kit,
        )
        == 0
    )
    s = export_json(toy_kit, out)["smithjohn_12345"]
    assert s["score"] == 7 and all(t["id"] != "override::whole-submission" for t in s["tests"])
    assert sum(t["score"] for t in s["tests"]) == 10 and s["override"]["adjustment"] == -3
    assert "Total set to 7 by Prof: copied part 3" in s["override"]["note"]
    assert export_json(toy_kit, out)["doejane_23456"]["override"] is None


def test_a_provisional_result_says_why_in_the_table_and_the_exports(toy_kit, tmp_path, capsys):
    from autograder.grades.rows import grade_rows
    from autograder.report.table import rows

    out = setup_out(tmp_path)
    gb = Gradebook(out / "gradebook.sqlite")
    gb.put(replace(result("prov_2"), provisional="the worker was killed by the host (OOM)"))
    gb.close()
    capsys.readouterr()
    s = export_json(toy_kit, out)["prov_2"]
    assert s["score"] is None and s["provisional"] == "the worker was killed by the host (OOM)"
    assert (
        "1 submission is provisional (the worker was killed by the host (OOM)): prov_2; left blank"
        in capsys.readouterr().err
    )
    line = rows(grade_rows([replace(result("prov_2"), provisional="the worker was killed by the host (OOM)")]))[0]
    assert line[2] == "graded (provisional)" and line[4].startswith("provisional: the worker was killed")
