"""Whoever a course file, an override or a folder of notebooks names, by whichever id the roster holds,
is that student; a key that names nobody is said out loud; the LMS gets what the student earned."""

from datetime import datetime, timezone
from pathlib import Path

import pytest

from autograder.config.course import load_course
from autograder.config.deadline import LatePolicy
from autograder.grades.overrides import Override, OverrideError, apply, resolve_submission, resolve_test
from autograder.grades.rows import grade_rows
from autograder.intake.roster import Identity, Roster, match_file_names
from autograder.lms import targets
from autograder.report.feedback import render_markdown, student_view
from autograder.report.instructor_report import report_context
from tests.cli.test_commands import run, setup_out
from tests.grades.factory import result

ROSTER = (
    "Student,ID,SIS User ID,SIS Login ID,Email,Section\n"
    "\"Smith, John\",12345,S1,js,js@u.edu,A\n\"Doe, Jane\",23456,S2,jd,jd@u.edu,B\n"
    "\"Müller, Zoë\",34567,S3,zm,zm@u.edu,B\n"
)
DUE = {"due": "2026-10-01T00:00:00+00:00", "penalty_percent": 10}


@pytest.mark.parametrize("key", ["js", "12345", "S1", "JS@u.edu", "smith_john_sid"])
def test_an_extension_keyed_by_any_roster_id_reaches_the_student(tmp_path, key):
    roster = tmp_path / "roster.csv"
    roster.write_text(ROSTER)
    who = Roster.read_csv(roster).find("12345")
    late = datetime(2026, 10, 2, 12, tzinfo=timezone.utc)  # 1.5 days late: 2 days' penalty without the extension
    policy = LatePolicy.from_table({**DUE, "extensions": {key: 2}})
    row = grade_rows(
        [result("s")],
        {"s": Identity(**{**who.to_json(), "submitted_at": late, "late": True, "time_source": "mtime"})},
        policy=policy,
    )[0]
    if key == "smith_john_sid":  # names nobody: not applied, and reported
        assert row.score == 8 and policy.unknown_extensions([who.ids()]) == [key]
    else:
        assert row.score == 10 and "extension" in row.late.explanation and policy.unknown_extensions([who.ids()]) == []


def test_commands_warn_of_an_extension_that_names_nobody(toy_kit, tmp_path, capsys):
    out = setup_out(tmp_path)
    course = tmp_path / "course.toml"
    course.write_text(
        f'[course]\nroster = "roster.csv"\nresults = "{out}"\n'
        '[assignments.toy.deadline]\ndue = "2026-09-01T00:00:00+00:00"\npenalty_percent = 10\n'
        '[assignments.toy.deadline.extensions]\njs = 60\nnobody_here = 1\n'
    )
    assert run(["export", "toy", "--format", "csv"], toy_kit, load_course(course)) == 0
    err = capsys.readouterr().err
    assert "'nobody_here' names nobody on the roster" in err and "'js'" not in err
    text = (out / "toy" / "grades_export.csv").read_text()
    assert "12345,smithjohn" not in text  # roster names, not the LMS's login-like names
    line = next(ln for ln in text.splitlines() if ln.startswith("12345,"))
    assert ",0,10,10," in line  # js's 60-day extension: no penalty, score 10


def test_a_folder_of_notebooks_is_matched_by_file_name(tmp_path):
    roster = tmp_path / "roster.csv"
    roster.write_text(ROSTER)
    when = datetime(2026, 10, 1, tzinfo=timezone.utc)
    found, unmatched, _ = match_file_names(
        [
            ("js", "js.ipynb", when),
            ("jd_u.edu", "jd@u.edu.ipynb", when),
            ("hw1", "zm/hw1.ipynb", when),
            ("stranger", "stranger.ipynb", when),
        ],
        Roster.read_csv(roster),
    )
    assert {k: v.name for k, v in found.items()} == {"js": "Smith, John", "jd_u.edu": "Doe, Jane", "hw1": "Müller, Zoë"}
    assert unmatched == ["stranger"] and found["js"].submitted_at == when and found["js"].lms_user_id == "12345"
    # the same student by her folder and by another file's name: neither is credited, both are named
    found, unmatched, notes = match_file_names(
        [("hw1", "zm/hw1.ipynb", when), ("34567-x", "34567.ipynb", None)], Roster.read_csv(roster)
    )
    assert found == {} and sorted(unmatched) == ["34567-x", "hw1"]
    assert "hw1 (zm/hw1.ipynb) and 34567-x (34567.ipynb)" in notes[0] and "none is credited" in notes[0]


def test_a_notebook_named_by_full_name_matches_a_unique_roster_name_and_is_refused_when_two_share_it(tmp_path):
    roster = tmp_path / "roster.csv"
    roster.write_text(
        "Student,ID,SIS User ID,SIS Login ID,Section\n\"Lovelace, Ada\",101,S1,al,A\n"
        "\"Smith, John\",102,S2,js1,A\n\"Smith, John\",103,S3,js2,B\n"
    )
    when = datetime(2026, 10, 1, tzinfo=timezone.utc)
    found, unmatched, notes = match_file_names(
        [("Ada_Lovelace", "Ada Lovelace.ipynb", when), ("John_Smith", "John Smith.ipynb", when)],
        Roster.read_csv(roster),
    )
    assert {k: v.student_id for k, v in found.items()} == {"Ada_Lovelace": "101"}
    assert unmatched == ["John_Smith"]
    assert "matched to Lovelace, Ada (101) by the full name" in notes[0]
    assert "Smith, John (102)" in notes[1] and "Smith, John (103)" in notes[1] and "not matched" in notes[1]


def test_passback_never_chooses_silently(tmp_path, toy_kit, capsys):
    from dataclasses import replace

    both = targets.PassbackSettings(
        canvas_url="https://canvas.example.edu/",
        course="42",
        canvas_assignment="7",
        lti_lineitem="https://lms/li/5?x=1",
        lti_token_url="https://lms/token",
        lti_client_id="c",
        lti_key=Path("k.pem"),
    )
    with pytest.raises(targets.TargetError, match="choose one") as e:
        targets.choose(both)
    assert e.value.settings == ("to",)
    t = targets.choose(replace(both, to="canvas"))
    assert t.kind == "canvas" and "https://canvas.example.edu/courses/42/assignments/7" in t.describe()
    assert targets.choose(replace(both, to="lti")).describe() == (
        "LTI 1.3 line item https://lms/li/5?x=1 (scores POSTed to https://lms/li/5/scores?x=1)"
    )
    with pytest.raises(targets.TargetError) as e:
        targets.choose(replace(both, to="lti", lti_key=None))
    assert e.value.settings == ("lti_key",)
    # the command names its own flags for what is missing
    from autograder.cli import main

    assert (
        main(
            [
                "--kit",
                str(toy_kit),
                "passback",
                "toy",
                "--to",
                "lti",
                "--lti-lineitem",
                "https://lms/li/5",
                "--out",
                str(tmp_path),
            ]
        )
        == 2
    )
    err = capsys.readouterr().err
    assert "--lti-token-url, --lti-client-id, --lti-key" in err


def test_passback_dry_run_says_where_it_writes(toy_kit, tmp_path, capsys):
    out = setup_out(tmp_path)
    argv = [
        "passback",
        "toy",
        "--out",
        str(out),
        "--dry-run",
        "--canvas-url",
        "http://127.0.0.1:9",
        "--course",
        "1",
        "--canvas-assignment",
        "2",
        "--lti-lineitem",
        "http://127.0.0.1:9/li/3",
        "--lti-token-url",
        "http://t",
        "--lti-client-id",
        "c",
        "--lti-key",
        str(tmp_path / "k.pem"),
    ]
    assert run(argv, toy_kit) == 2 and "--to canvas or --to lti" in capsys.readouterr().err
    assert run(argv + ["--to", "canvas"], toy_kit) == 0
    text = capsys.readouterr().out
    assert text.startswith("would write to: Canvas assignment http://127.0.0.1:9/courses/1/assignments/2")
    assert "would send: user 12345" in text


def test_override_by_roster_id_and_test_name(toy_kit, tmp_path, capsys):
    out = setup_out(tmp_path)
    roster = str(tmp_path / "roster.csv")
    assert (
        run(
            [
                "override",
                "toy",
                "jd",
                "--roster",
                roster,
                "--out",
                str(out),
                "--test",
                "ANSWER is",
                "--score",
                "1",
                "--comment",
                "by hand",
                "--by",
                "TA",
            ],
            toy_kit,
        )
        == 0
    )
    assert "doejane_23456 hidden/test_double.py::test_answer: 0 -> 1" in capsys.readouterr().out
    assert (
        run(
            ["override", "toy", "23456", "--out", str(out), "--score", "7", "--comment", "whole", "--by", "TA"], toy_kit
        )
        == 0
    )
    assert (
        run(["override", "toy", "nobody", "--out", str(out), "--score", "7", "--comment", "x", "--by", "TA"], toy_kit)
        == 2
    )
    assert "no submission or student 'nobody'" in capsys.readouterr().err
    r = result("x")
    with pytest.raises(OverrideError, match="names 3 tests"):
        resolve_test("double()", r)
    with pytest.raises(OverrideError) as e:
        resolve_test("ANSWR is right", r)
    assert "did you mean: ANSWER is right" in str(e.value) and str(e.value).count("::") == 0
    assert resolve_test("later() works", r) == "hidden/test_later.py::test_later"
    assert resolve_submission("S2", [("a", ("1", "S1")), ("b", ("2", "S2"))]) == "b"


def test_a_whole_score_override_is_no_test_row_and_skipped_device_tests_are_not_failures():
    r = result("a")
    r.tests[4].outcome, r.tests[4].score, r.tests[4].device = "skipped", 0.0, "cuda"  # later: not run on this grader
    o = Override(1, "toy", "a", "", r.sha256, 8, 7, "agreed in office hours", "TA", 0.0)
    shown = apply(r, [o])
    ctx = report_context(grade_rows([shown]), title="t")
    assert {e["exercise"] for e in ctx["exercises"]} == {"double", "answer"}  # no nameless row, no 'later' at 0 %
    assert all(e["pass_rate"] == 1.0 for e in ctx["exercises"])
    assert all("override" not in t["id"] for t in ctx["tests"])
    view = student_view(shown, order=["later", "answer", "double"])
    assert [e.exercise for e in view["exercises"]] == ["later", "answer", "double"]
    assert view["exercises"][0].state == "not run here" and all(t.outcome != "skipped" for t in view["tests"])
    assert all(t.name != "Instructor override of the total" for t in view["tests"])
    stub = result("b", (0, 0, 0, 1, 1))
    stub.tests[0].message = "not answered yet: double([1., 2.]) still raises NotImplementedError (the exercise's stub)."
    # no master's order: exercises alphabetically, as on every face (`notebook.cells.exercise_key`)
    assert [(e.exercise, e.state) for e in student_view(stub)["exercises"]] == [
        ("answer", "all passed"),
        ("double", "not answered yet"),
        ("later", "all passed"),
    ]
    md = render_markdown(shown, Identity("a1", "Zoë O'Brien-[x]"), title="Tensors: *the* basics")
    assert md.startswith("# Tensors: \\*the\\* basics: feedback for Zoë O'Brien-\\[x\\]\n")  # no `\\-`, `\\;` noise
    assert "Total set to 7 by TA: agreed in office hours" in md


def test_lms_comments_are_sentences():
    r = result("a", (1, 0, 1, 1, 1), message="cell 4 did not finish in time; it was skipped and the rest graded")
    comment = grade_rows([r])[0].comment()
    assert comment == (
        "Score: 7/10. Cell 4 did not finish in time; it was skipped and the rest graded. "
        "Not passed: double() agrees with the reference (failed)."
    )


def test_grade_without_a_course_secret_warns_in_one_line(toy_kit, tmp_path, monkeypatch, capsys):
    from autograder.cli import main

    for var in ("AUTOGRADER_SECRET", "AUTOGRADER_SECRET_FILE"):
        monkeypatch.delenv(var, raising=False)
    monkeypatch.setenv("HOME", str(tmp_path))
    monkeypatch.chdir(tmp_path)
    assert (
        main(
            [
                "--kit",
                str(toy_kit),
                "grade",
                "toy",
                str(tmp_path / "none.ipynb"),
                "--out",
                str(tmp_path / "r"),
                "--allow-weak-isolation",
            ]
        )
        == 2
    )  # the run stops at intake, after the warning
    warning = [ln for ln in capsys.readouterr().err.splitlines() if "course secret" in ln]
    assert len(warning) == 1 and warning[0].startswith("warning: no course secret")
    monkeypatch.setenv("AUTOGRADER_SECRET", "s3cret")
    assert (
        main(
            [
                "--kit",
                str(toy_kit),
                "grade",
                "toy",
                str(tmp_path / "none.ipynb"),
                "--out",
                str(tmp_path / "r"),
                "--allow-weak-isolation",
            ]
        )
        == 2
    )
    assert "course secret" not in capsys.readouterr().err


def test_a_copied_folder_warns_that_file_times_would_decide_lateness_and_a_csv_gives_the_times(tmp_path):
    import os

    from autograder.intake.batch import take

    folder = tmp_path / "mailed"
    folder.mkdir()
    for i, name in enumerate(("al", "js1", "js2")):
        nb = folder / f"{name}.ipynb"
        nb.write_text('{"nbformat": 4, "nbformat_minor": 5, "metadata": {}, "cells": []}')
        os.utime(nb, (1_790_000_000 + i, 1_790_000_000 + i))  # copied: within 2 s
    roster = tmp_path / "roster.csv"
    roster.write_text(
        "Student,ID,SIS User ID,SIS Login ID,Section\n\"Lovelace, Ada\",101,S1,al,A\n"
        "\"Smith, John\",102,S2,js1,A\n\"Smith, Jo\",103,S3,js2,B\n"
    )
    scratch = tmp_path / "scratch"
    scratch.mkdir()
    err = "\n".join(take([folder], scratch, roster=roster).notes)
    assert "file times lie within 5 s of each other" in err and "--submission-times" in err
    times = tmp_path / "times.csv"
    times.write_text("student,submitted_at\nal,2026-10-01T10:00:00+00:00\njs1.ipynb,2026-10-02T09:30:00+02:00\n")
    intake = take([folder], scratch, roster=roster, times=times)
    err = "\n".join(intake.notes)
    assert "within 5 s" not in err and "103: no time in" in err  # js2.ipynb, under the student's own id
    who = {w.student_id: w for w in intake.identities.values()}
    assert who["101"].submitted_at == datetime(2026, 10, 1, 10, tzinfo=timezone.utc) and who["101"].time_source == "csv"
    assert who["102"].submitted_at == datetime(2026, 10, 2, 7, 30, tzinfo=timezone.utc)
    assert who["103"].time_source == "mtime"
