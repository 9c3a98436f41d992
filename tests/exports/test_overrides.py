"""Instructor overrides: recorded as an audit trail, applied to every export, feedback page and grades.csv,
kept across re-grades of the same notebook, stale (shown, not applied) once the notebook changes."""
import csv
import io
import json
from dataclasses import replace

import pytest

from autograder.report.gradebook import Gradebook
from autograder.score import overrides as ov
from tests.exports.factory import grader_failure, result
from tests.exports.test_commands import run, setup_out

HIDDEN = "hidden/test_double.py::test_double_partial"


def export_json(toy_kit, out):
    assert run(["export", "toy", "--out", str(out), "--format", "json"], toy_kit) == 0
    return {s["submission_id"]: s for s in json.loads((out / "toy" / "grades_export.json").read_text())["students"]}


def test_test_and_whole_overrides_reach_exports_feedback_and_grades_csv(toy_kit, tmp_path, capsys):
    out = setup_out(tmp_path)                       # doejane_23456: 1 + 0 + 0 + 0 + 2 = 3/10
    assert run(["override", "toy", "doejane_23456", "--test", HIDDEN, "--score", "1.5", "--comment",
                "dtype kept, checked by hand", "--by", "TA Kim", "--out", str(out)], toy_kit) == 0
    assert f"override #1: doejane_23456 {HIDDEN}: 0 -> 1.5" in capsys.readouterr().out
    s = export_json(toy_kit, out)["doejane_23456"]
    assert s["score"] == 4.5 and next(t for t in s["tests"] if t["id"] == HIDDEN)["score"] == 1.5
    grades = list(csv.DictReader(io.StringIO((out / "toy" / "grades.csv").read_text())))
    assert {g["submission_id"]: g["score"] for g in grades}["doejane_23456"] == "4.5"
    assert run(["override", "toy", "smithjohn_12345", "--score", "7", "--comment", "copied part 3",
                "--by", "Prof", "--out", str(out)], toy_kit) == 0
    assert export_json(toy_kit, out)["smithjohn_12345"]["score"] == 7
    capsys.readouterr()
    assert run(["passback", "toy", "--out", str(out), "--canvas-url", "https://c.example", "--course", "1",
                "--canvas-assignment", "2", "--dry-run"], toy_kit) == 0
    assert "(smithjohn_12345): 7/10; comment: Score: 7/10. Total set to 7 by Prof: copied part 3" in \
        capsys.readouterr().out                                              # the LMS comment says why
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
        assert run(["override", "toy", "smithjohn_12345", "--score", str(score), "--comment", why, "--by", "TA",
                    "--out", str(out)], toy_kit) == 0
    trail = ov.history(db, "toy")
    assert [(o.old_score, o.new_score) for o in trail] == [(10, 8), (8, 6)]      # old -> new, nothing deleted
    gb = Gradebook(db)
    gb.put(result("smithjohn_12345"))              # re-graded, same notebook (same sha256)
    gb.close()
    assert export_json(toy_kit, out)["smithjohn_12345"]["score"] == 6
    gb = Gradebook(db)
    gb.put(replace(result("smithjohn_12345"), sha256="cd" * 32))   # the student resubmitted
    gb.close()
    capsys.readouterr()
    assert export_json(toy_kit, out)["smithjohn_12345"]["score"] == 10            # stale: not applied
    assert "is stale" in capsys.readouterr().err
    assert run(["override", "toy", "smithjohn_12345", "--list", "--out", str(out)], toy_kit) == 0
    listing = capsys.readouterr().out
    assert "8 -> 6 [stale]" in listing and "10 -> 8 [superseded]" in listing
    assert len(ov.history(db, "toy")) == 2


def test_refused_overrides(toy_kit, tmp_path, capsys):
    out = setup_out(tmp_path)
    db = out / "gradebook.sqlite"
    gb = Gradebook(db)
    gb.put(grader_failure("ghost_1"))
    gb.put(replace(result("prov_2"), provisional="host fault"))
    good = gb.get("toy", "smithjohn_12345")
    gb.close()
    for sid in ("ghost_1", "prov_2", "nobody"):
        assert run(["override", "toy", sid, "--score", "1", "--comment", "x", "--by", "a", "--out", str(out)],
                   toy_kit) == 2
    with pytest.raises(ov.OverrideError, match="between 0 and 10"):
        ov.record(db, good, score=11, comment="x", by="a")
    with pytest.raises(ov.OverrideError, match="between 0 and 2"):
        ov.record(db, good, test_id=HIDDEN, score=2.5, comment="x", by="a")
    with pytest.raises(ov.OverrideError, match="no test"):
        ov.record(db, good, test_id="hidden/nope.py::t", score=1, comment="x", by="a")
    with pytest.raises(ov.OverrideError, match="comment"):
        ov.record(db, good, score=1, comment="  ", by="a")
    with pytest.raises(ov.OverrideError, match="between"):
        ov.record(db, good, score=float("nan"), comment="x", by="a")
    with pytest.raises(ov.OverrideError, match="longer than 2000"):
        ov.record(db, good, score=1, comment="x" * (ov.MAX_COMMENT + 1), by="a")
    assert ov.history(db, "toy") == []


def test_grade_writes_grades_csv_with_overrides_in_force(toy_kit, tmp_path):
    """The pipeline's grades.csv, after a real (sandboxed) re-grade of the same notebook: the override holds."""
    from autograder.assignment import load_assignment
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
    ov.record(db, stored, score=stored.max_score - 1, comment="late slides", by="Prof")
    run = grade_class(a, subs, out=out, options=GradeOptions(), force=True)
    assert run.results[0].sha256 == stored.sha256
    grades = list(csv.DictReader(io.StringIO((out / "toy" / "grades.csv").read_text())))
    assert [(g["submission_id"], float(g["score"])) for g in grades] == [("master", stored.max_score - 1)]
