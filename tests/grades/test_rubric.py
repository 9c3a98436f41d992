"""Rubric items: scores derived from the items applied (never stored), retroactive edits and deletes in every
export and in the audit trail with each student's score before and after, rubric files, comments that are not
overrides, manual exercises pending until graded (LTI PendingManual), what passback confirms first."""

import csv
import io
import json
import shutil
from pathlib import Path

from autograder.grades import rubric
from autograder.grades.rubric import Applied, Bounds, Item
from autograder.store.marks import Marks
from tests.cli.test_commands import run, setup_out
from tests.grades.factory import result
from tests.lms.test_lti import Platform, platform  # noqa: F401 - the LTI platform recorder and its fixture

SMITH, DOE = "smithjohn_12345", "doejane_23456"  # 10/10; 3/10 (double 1/6, answer 0/2, later 2/2)


def canvas(toy_kit, out, roster):
    assert (
        run(
            ["export", "toy", "--out", str(out), "--format", "canvas", "--assignment-id", "77", "--roster", roster],
            toy_kit,
        )
        == 0
    )
    rows = list(csv.reader(io.StringIO((out / "toy" / "canvas.csv").read_text())))
    return {r[1]: r[-1] for r in rows[2:]}


def moodle(toy_kit, out, roster):
    assert (
        run(
            [
                "export",
                "toy",
                "--out",
                str(out),
                "--format",
                "moodle",
                "--moodle-identity",
                "sis_id",
                "--roster",
                roster,
            ],
            toy_kit,
        )
        == 0
    )
    rows = list(csv.reader(io.StringIO((out / "toy" / "moodle.csv").read_text(encoding="utf-8-sig"))))
    return {r[0]: (r[2], r[3]) for r in rows[1:]}


def rubric_cli(toy_kit, out, *argv):
    return run(["rubric", "toy", *argv, "--out", str(out), "--by", "TA Kim"], toy_kit)


def test_add_apply_edit_delete_rescore_every_export_and_the_trail_says_who_moved(toy_kit, tmp_path, capsys):
    out = setup_out(tmp_path)
    roster = str(tmp_path / "roster.csv")
    assert (
        rubric_cli(
            toy_kit,
            out,
            "--exercise",
            "double",
            "--add",
            "dtype lost",
            "--points",
            "-1",
            "--comment",
            "double() must keep the input's dtype",
        )
        == 0
    )
    item = capsys.readouterr().out.strip().splitlines()[-1]  # the new item's id, as the last line
    assert item == "1"
    assert canvas(toy_kit, out, roster) == {"12345": "10", "23456": "3", "34567": ""}  # adding changes nobody
    # applied to one student by a roster id (the login), one by submission id
    assert rubric_cli(toy_kit, out, "--apply", item, "js", DOE, "--roster", roster) == 0
    assert f"{SMITH}: 10 -> 9 (-1)" in capsys.readouterr().out
    assert canvas(toy_kit, out, roster) == {"12345": "9", "23456": "2", "34567": ""}
    m = moodle(toy_kit, out, roster)
    assert m["S1"][0] == "9" and "dtype lost (-1): double() must keep the input's dtype" in m["S1"][1]
    # retroactive: new points re-score everyone who has it, within the exercise's floor (doe: double 1 - 2 -> 0)
    assert rubric_cli(toy_kit, out, "--edit", item, "--points", "-2") == 0
    assert canvas(toy_kit, out, roster) == {"12345": "8", "23456": "2", "34567": ""}
    assert moodle(toy_kit, out, roster)["S1"][0] == "8"
    # a new text changes the feedback only
    assert rubric_cli(toy_kit, out, "--edit", item, "--comment", "cast back with .to(x.dtype)") == 0
    m = moodle(toy_kit, out, roster)
    assert m["S1"][0] == "8" and "cast back with .to(x.dtype)" in m["S1"][1] and "must keep" not in m["S1"][1]
    assert rubric_cli(toy_kit, out, "--unapply", item, DOE) == 0
    assert canvas(toy_kit, out, roster)["23456"] == "3"
    # deleted: everyone who had it is re-scored without it
    assert rubric_cli(toy_kit, out, "--delete", item) == 0
    assert canvas(toy_kit, out, roster) == {"12345": "10", "23456": "3", "34567": ""}
    assert moodle(toy_kit, out, roster)["S1"][0] == "10"
    grades = list(csv.DictReader(io.StringIO((out / "toy" / "grades.csv").read_text())))
    assert {g["submission_id"]: g["score"] for g in grades} == {SMITH: "10", DOE: "3"}  # rewritten at each change
    capsys.readouterr()
    assert rubric_cli(toy_kit, out, "--trail") == 0
    trail = capsys.readouterr().out.splitlines()
    assert [line.split(": ")[1].split(" item")[0] for line in trail] == [
        "add",
        "apply",
        "edit",
        "edit",
        "unapply",
        "delete",
    ]
    assert "[nobody re-scored]" in trail[0]
    assert f"[{DOE} 3 -> 2; {SMITH} 10 -> 9]" in trail[1] or f"[{SMITH} 10 -> 9; {DOE} 3 -> 2]" in trail[1]
    assert "points -1 -> -2" in trail[2] and f"{SMITH} 9 -> 8" in trail[2] and f"{DOE} 2 -> 2" in trail[2]
    assert f"{SMITH} 8 -> 8" in trail[3] and "comment" in trail[3]  # feedback only
    assert f"{SMITH} 8 -> 10" in trail[5] and "TA Kim" in trail[5]
    assert [e["touched"] for e in Marks(out).trail("toy")][5] == [[SMITH, 8.0, 10.0]]
    assert Marks(out).overrides("toy") == []  # a rubric item is no override


def test_the_score_is_derived_never_stored(toy_kit, tmp_path, capsys):
    """Points live on the item: the gradebook's result and the applications hold none; an item's edit is read at once."""
    out = setup_out(tmp_path)
    assert rubric_cli(toy_kit, out, "--exercise", "later", "--add", "explained", "--points", "0.5") == 0
    assert rubric_cli(toy_kit, out, "--apply", "1", DOE) == 0
    from autograder.store.database import Gradebook
    from autograder.store.folder import assignment_grades

    gb = Gradebook(out / "gradebook.sqlite")
    assert gb.get("toy", DOE).score == 3  # the grader's result, untouched
    gb.close()
    g = assignment_grades(toy_kit, "toy", out)
    assert {r.submission_id: r.score for r in g.rows}[DOE] == 3  # later is 2/2 already: the ceiling holds
    assert (
        rubric_cli(toy_kit, out, "--exercise", "answer", "--add", "partly right", "--points", "1.5", "--key", "5") == 0
    )
    assert rubric_cli(toy_kit, out, "--apply", "2", DOE) == 0
    assert {r.submission_id: r.score for r in assignment_grades(toy_kit, "toy", out).rows}[DOE] == 4.5
    with Marks(out)._connect() as conn:  # someone edits the item's points behind the kit's back: still derived
        conn.execute("UPDATE rubric_items SET points=2 WHERE id=2")
    assert {r.submission_id: r.score for r in assignment_grades(toy_kit, "toy", out).rows}[DOE] == 5
    assert rubric_cli(toy_kit, out, "--exercise", "answer", "--add", "dup key", "--points", "0", "--key", "5") == 2
    assert "key 5 already applies" in capsys.readouterr().err
    assert rubric_cli(toy_kit, out, "--exercise", "nope", "--add", "x", "--points", "1") == 2
    assert rubric_cli(toy_kit, out, "--apply", "99", DOE) == 2
    assert rubric_cli(toy_kit, out, "--exercise", "answer", "--add", "x", "--points", "nan") == 2


def test_scoring_rule_bounds_and_staleness():
    r = result("a", (1, 0, 0, 1, 1))  # double 1/6
    items = [
        Item(1, "toy", "double", "bonus", 9.0),
        Item(2, "toy", "double", "minus", -3.0),
        Item(3, "toy", "answer", "note", 0.0, "a comment"),
    ]
    on = lambda *ids, sha=r.sha256: [Applied(i, "a", sha, "TA", 0.0) for i in ids]  # noqa: E731
    assert rubric.score(r, items, on(1))[0].score == 10  # capped at the exercise's 6 points
    assert rubric.score(r, items, on(1), bounds=Bounds(0, 1.5))[0].score == 13  # the course allows 50 % above
    assert rubric.score(r, items, on(2))[0].score == 4  # floored at 0 for the exercise
    assert rubric.score(r, items, on(2), bounds=Bounds(-1, 1))[0].score == 2
    shown, stale = rubric.score(r, items, on(3))
    assert shown.score == 5 and stale == [] and any("a comment" in t.message for t in shown.tests)
    assert rubric.exercise_points(shown) == {"double": (1, 6), "answer": (2, 2), "later": (2, 2)}
    assert rubric.exercise_points(rubric.score(r, items, on(1))[0])["double"] == (6, 6)
    shown, stale = rubric.score(r, items, on(2, sha="cd" * 32))  # applied to another version: stale
    assert shown.score == 5 and [a.item_id for a in stale] == [2]
    deleted = [Item(2, "toy", "double", "minus", -3.0, deleted=True)]
    assert rubric.score(r, deleted, on(2))[0].score == 5


def test_the_course_file_sets_the_bounds(toy_kit, tmp_path, capsys):
    from autograder.config.course import load_course

    out = setup_out(tmp_path)
    course = tmp_path / "course.toml"
    course.write_text("[rubric]\nceiling = 1.5\n")
    assert rubric_cli(toy_kit, out, "--exercise", "later", "--add", "extra", "--points", "1") == 0
    assert rubric_cli(toy_kit, out, "--apply", "1", DOE) == 0
    assert run(["export", "toy", "--out", str(out), "--format", "json"], toy_kit, load_course(course)) == 0
    students = json.loads((out / "toy" / "grades_export.json").read_text())["students"]
    assert {s["submission_id"]: s["score"] for s in students}[DOE] == 4  # later 2/2 + 1: within 1.5 x 2
    course.write_text("[rubric]\nfloor = 1\nceiling = 0.5\n")
    from autograder.cli import main

    assert (
        main(
            [
                "--kit",
                str(toy_kit),
                "--course-file",
                str(course),
                "export",
                "toy",
                "--out",
                str(out),
                "--format",
                "json",
            ]
        )
        == 2
    )
    assert "[rubric] floor must be at most ceiling" in capsys.readouterr().err


def test_rubric_file_round_trip(toy_kit, tmp_path, capsys):
    out = setup_out(tmp_path)
    assert (
        rubric_cli(
            toy_kit,
            out,
            "--exercise",
            "double",
            "--add",
            'uses a "for" loop',
            "--points",
            "-0.5",
            "--comment",
            "vectorise:\n`x * 2`",
            "--note",
            "see office hours FAQ",
        )
        == 0
    )
    assert rubric_cli(toy_kit, out, "--exercise", "answer", "--add", "Ünïcode ✓", "--points", "0", "--key", "0") == 0
    assert rubric_cli(toy_kit, out, "--apply", "1", SMITH) == 0
    path = tmp_path / "rubric.toml"
    assert rubric_cli(toy_kit, out, "--export", str(path)) == 0
    other = setup_out(tmp_path / "next_term")  # next term's class
    assert rubric_cli(toy_kit, other, "--import", str(path)) == 0
    assert "2 added, 0 changed" in capsys.readouterr().out
    fields = lambda o: [(i.exercise, i.title, i.points, i.comment, i.note, i.key) for i in Marks(o).items("toy")]  # noqa: E731
    assert fields(other) == fields(out)
    assert fields(other)[1][3] == "vectorise:\n`x * 2`"
    # importing an edited file again edits the item (retroactively: who has it is re-scored), adds nothing
    path.write_text(path.read_text().replace("points = -0.5", "points = -1.0"))
    assert rubric_cli(toy_kit, out, "--import", str(path)) == 0
    assert "0 added, 1 changed" in capsys.readouterr().out
    assert canvas(toy_kit, out, str(tmp_path / "roster.csv"))["12345"] == "9"
    kit = manual_kit(toy_kit, tmp_path)  # by default, beside the assignment
    assert run(["rubric", "toy", "--export", "--out", str(out)], kit) == 0
    assert fields_of((kit / "assignments" / "toy" / "rubric.toml").read_text()) == fields_of(path.read_text())
    bad = tmp_path / "bad.toml"
    bad.write_text('[[item]]\nexercise = "double"\ntitle = "x"\n')
    assert rubric_cli(toy_kit, out, "--import", str(bad)) == 2
    assert "points are required" in capsys.readouterr().err


def fields_of(text):
    return [(i["exercise"], i["title"], i["points"]) for i in rubric.import_items(text)]


def test_a_group_comment_without_a_score_is_a_comment_not_an_override(toy_kit, tmp_path):
    from autograder.pipeline import set_group
    from autograder.store.folder import assignment_grades

    out = setup_out(tmp_path)
    assert run(["feedback", "toy", "--out", str(out)], toy_kit) == 0
    g = assignment_grades(toy_kit, "toy", out)
    done = set_group(
        g,
        [SMITH, DOE],
        test="hidden/test_double.py::test_double_partial",
        score=None,
        comment="Check the dtype of what you return.",
        by="root",
    )
    assert len(done) == 2 and Marks(out).overrides("toy") == []  # nothing overridden
    [item] = Marks(out).items("toy")
    assert item.points == 0 and item.exercise == "double" and item.comment == "Check the dtype of what you return."
    g = assignment_grades(toy_kit, "toy", out)
    assert {r.submission_id: r.score for r in g.rows} == {SMITH: 10, DOE: 3}
    assert not any("stale" in w or "overrid" in w for w in g.warnings)
    page = (out / "toy" / "feedback" / f"{DOE}.md").read_text()
    assert "Check the dtype of what you return." in page and "Score set to" not in page and "root" not in page
    # the same comment again reuses the item (the comment bank is zero-point items)
    set_group(
        assignment_grades(toy_kit, "toy", out),
        [DOE],
        test="hidden/test_double.py::test_double_partial",
        score=None,
        comment="Check the dtype of what you return.",
        by="TA",
    )
    assert len(Marks(out).items("toy")) == 1


def test_a_comment_bank_of_an_earlier_version_becomes_zero_point_items(tmp_path):
    import sqlite3

    db = tmp_path / "gradebook.sqlite"
    conn = sqlite3.connect(db)
    conn.executescript(
        "CREATE TABLE comment_bank (id INTEGER PRIMARY KEY AUTOINCREMENT, assignment TEXT NOT NULL, "
        "exercise TEXT NOT NULL, text TEXT NOT NULL, by TEXT NOT NULL, at REAL NOT NULL, "
        "UNIQUE (assignment, exercise, text));"
        "INSERT INTO comment_bank (assignment, exercise, text, by, at) VALUES "
        "('toy', 'double', 'keep the dtype', 'TA Kim', 1.0);"
    )
    conn.commit()
    conn.close()
    [item] = Marks(tmp_path).items("toy")
    assert (item.exercise, item.points, item.comment) == ("double", 0.0, "keep the dtype")
    assert len(Marks(tmp_path).items("toy")) == 1  # moved once


def test_an_override_shows_a_display_name_never_the_unix_account(toy_kit, tmp_path):
    out = setup_out(tmp_path)
    assert (
        run(
            ["override", "toy", SMITH, "--score", "7", "--comment", "copied part 3", "--by", "root", "--out", str(out)],
            toy_kit,
        )
        == 0
    )
    assert run(["feedback", "toy", "--out", str(out)], toy_kit) == 0
    page = (out / "toy" / "feedback" / f"{SMITH}.md").read_text()
    assert "Total set to 7 by course staff: copied part 3" in page and "root" not in page
    assert Marks(out).overrides("toy")[0].by == "root"  # the trail keeps who it was


def manual_kit(toy_kit, tmp_path) -> Path:
    kit = tmp_path / "kit"
    shutil.copytree(toy_kit, kit, ignore=shutil.ignore_patterns("__pycache__", ".cache"))
    with open(kit / "assignments" / "toy" / "manifest.toml", "a") as f:
        f.write('\n[manual.explain]\npoints = 4\ntitle = "Explain in your own words why double keeps the dtype"\n')
    return kit


def test_manual_exercises_are_pending_until_graded(toy_kit, tmp_path, capsys):
    from autograder.intake.roster import Identity, write_identities
    from autograder.store.folder import assignment_grades

    kit = manual_kit(toy_kit, tmp_path)
    out = setup_out(tmp_path)
    write_identities(
        out / "toy" / "identities.json",
        {
            SMITH: Identity("12345", "smithjohn", lti_user_id="lti-1"),
            DOE: Identity("23456", "doejane", lti_user_id="lti-2"),
        },
    )
    g = assignment_grades(kit, "toy", out)
    assert {r.submission_id: (r.score, r.max_score, r.pending) for r in g.rows} == {
        SMITH: (10, 14, ["explain"]),
        DOE: (3, 14, ["explain"]),
    }
    assert run(["feedback", "toy", "--out", str(out)], kit) == 0
    page = (out / "toy" / "feedback" / f"{SMITH}.md").read_text()
    assert "| ` explain ` | – | not graded yet |" in page
    capsys.readouterr()
    assert run(["rubric", "toy", "--progress", "--out", str(out)], kit) == 0
    assert "explain: 0/2 graded, 2 need a look" in capsys.readouterr().out
    assert (
        run(
            [
                "rubric",
                "toy",
                "--exercise",
                "explain",
                "--add",
                "complete",
                "--points",
                "4",
                "--out",
                str(out),
                "--by",
                "TA Kim",
            ],
            kit,
        )
        == 0
    )
    assert (
        run(
            [
                "rubric",
                "toy",
                "--exercise",
                "explain",
                "--add",
                "no answer",
                "--points",
                "0",
                "--out",
                str(out),
                "--by",
                "TA Lee",
            ],
            kit,
        )
        == 0
    )
    assert run(["rubric", "toy", "--apply", "1", SMITH, "--out", str(out), "--by", "TA Kim"], kit) == 0
    g = assignment_grades(kit, "toy", out)
    assert {r.submission_id: (r.score, r.pending) for r in g.rows} == {SMITH: (14, []), DOE: (3, ["explain"])}
    capsys.readouterr()
    assert run(["rubric", "toy", "--progress", "--out", str(out)], kit) == 0
    shown = capsys.readouterr().out
    assert "explain: 1/2 graded, 1 need a look" in shown and "TA Kim: 1 graded" in shown
    assert f"  needs a look: {DOE}" in shown
    assert "double: 2/2 graded" in shown
    assert run(["export", "toy", "--out", str(out), "--format", "json"], kit) == 0
    students = {s["submission_id"]: s for s in json.loads((out / "toy" / "grades_export.json").read_text())["students"]}
    assert students[DOE]["pending"] == ["explain"] and students[SMITH]["pending"] == []


def test_lti_pending_manual_then_fully_graded(toy_kit, tmp_path, platform):
    from autograder.intake.roster import Identity, write_identities
    from autograder.lms.lti import LtiTool, publish_scores
    from autograder.pipeline import rubric_add, rubric_apply
    from autograder.store.folder import assignment_grades

    kit = manual_kit(toy_kit, tmp_path)
    out = setup_out(tmp_path)
    write_identities(out / "toy" / "identities.json", {SMITH: Identity("12345", "smithjohn", lti_user_id="lti-1")})
    base, pem = platform
    tool = LtiTool("tool-123", f"{base}/token", pem, kid="k1")
    lineitem = f"{base}/courses/5/lineitems/9?type_id=1"
    rep = publish_scores(tool, lineitem, assignment_grades(kit, "toy", out).rows)
    assert not rep.failed
    [sent] = [s for s in Platform.scores if s["userId"] == "lti-1"]
    assert (sent["scoreGiven"], sent["scoreMaximum"], sent["gradingProgress"]) == (10, 14, "PendingManual")
    assert "not final" in sent["comment"]
    g = assignment_grades(kit, "toy", out)
    item = rubric_add(g, exercise="explain", title="clear and right", points=3, comment="good", by="TA Kim")
    rubric_apply(g.with_overrides_of([]), item.id, [SMITH], by="TA Kim")
    Platform.scores.clear()
    publish_scores(tool, lineitem, assignment_grades(kit, "toy", out).rows)
    [sent] = [s for s in Platform.scores if s["userId"] == "lti-1"]
    assert (sent["scoreGiven"], sent["scoreMaximum"], sent["gradingProgress"]) == (13, 14, "FullyGraded")


def test_passback_lists_changed_scores_and_sends_them_only_when_confirmed(toy_kit, tmp_path, capsys, platform):
    from autograder.intake.roster import Identity, write_identities

    out = setup_out(tmp_path)
    write_identities(
        out / "toy" / "identities.json",
        {
            SMITH: Identity("12345", "smithjohn", lti_user_id="lti-1"),
            DOE: Identity("23456", "doejane", lti_user_id="lti-2"),
        },
    )
    base, pem = platform
    key = tmp_path / "key.pem"
    key.write_bytes(pem)
    argv = [
        "passback",
        "toy",
        "--out",
        str(out),
        "--to",
        "lti",
        "--lti-lineitem",
        f"{base}/courses/5/lineitems/9?type_id=1",
        "--lti-token-url",
        f"{base}/token",
        "--lti-client-id",
        "tool-123",
        "--lti-key",
        str(key),
    ]
    assert run(argv, toy_kit) == 0 and len(Platform.scores) == 2  # the first passback: nothing was there
    assert rubric_cli(toy_kit, out, "--exercise", "double", "--add", "dtype lost", "--points", "-1") == 0
    assert rubric_cli(toy_kit, out, "--apply", "1", SMITH) == 0
    capsys.readouterr()
    assert run(argv, toy_kit) == 1  # a score in the LMS would change
    said = capsys.readouterr()
    assert f"changed since the last passback: {SMITH}: 10 -> 9 (-1)" in said.out and "--confirm" in said.err
    assert len(Platform.scores) == 2  # nothing sent
    assert run(argv + ["--dry-run"], toy_kit) == 0  # the preview
    assert run(argv + ["--confirm"], toy_kit) == 0 and Platform.scores[-1]["scoreGiven"] in (9, 3)
    assert {s["userId"]: s["scoreGiven"] for s in Platform.scores[2:]}["lti-1"] == 9
    capsys.readouterr()
    assert run(argv, toy_kit) == 0 and "changed since" not in capsys.readouterr().out  # sent: nothing pending


def test_line_comments_reach_the_feedback_at_their_line(toy_kit, tmp_path, capsys):
    out = setup_out(tmp_path)
    assert run(["feedback", "toy", "--out", str(out)], toy_kit) == 0
    assert rubric_cli(toy_kit, out, "--note-line", DOE, "4", "2", "`view` here would share storage <b>") == 0
    page = (out / "toy" / "feedback" / f"{DOE}.md").read_text()
    assert "## Comments on your code" in page and "**Cell 4, line 2**" in page
    assert "`view` here would share storage <b>" in page  # inside a code block: shown, inert
    html = (out / "toy" / "feedback" / f"{DOE}.html").read_text()
    assert "&lt;b&gt;" in html and "Cell 4, line 2" in html
    assert rubric_cli(toy_kit, out, "--note-line", DOE, "x", "2", "t") == 2
    # with the version's notebook kept (as `grade` keeps it), the comment quotes the line it is on
    from autograder.store.history import keep

    keep(out, result(SMITH), toy_kit / "solutions" / "toy.ipynb")
    assert rubric_cli(toy_kit, out, "--note-line", SMITH, "3", "3", "x + x reads better than x * 2?") == 0
    page = (out / "toy" / "feedback" / f"{SMITH}.md").read_text()
    assert "**Cell 3, line 3**\n\n```python\n    return x * 2\n```\n\n```\nx + x reads better" in page
    capsys.readouterr()
    assert rubric_cli(toy_kit, out, "--note-line", SMITH, "9", "1", "t") == 2
    assert "has no code cell 9 (its code cells: 2, 3, 4, 5)" in capsys.readouterr().err
    assert rubric_cli(toy_kit, out, "--unnote", "2") == 0  # a comment taken back: gone from the page
    assert "reads better" not in (out / "toy" / "feedback" / f"{SMITH}.md").read_text()
    assert rubric_cli(toy_kit, out, "--unnote", "2") == 2


def test_feedback_noise(toy_kit, tmp_path):
    """No device variant listed as a test, no over-escaped prose, lateness said as the penalty it is."""
    from datetime import datetime, timedelta, timezone

    from autograder.config.deadline import LatePolicy
    from autograder.grades.late import apply_late_policy
    from autograder.report.feedback import render_markdown

    r = result("a", (1, 1, 1, 1, 1))
    r.tests.append(
        r.tests[0].__class__(
            "public/test_double.py::test_double_small[cuda]",
            "double() on cuda",
            "double",
            "public",
            0.0,
            0.0,
            "skipped",
            device="cuda",
        )
    )
    r.tests[0].hint = "non-contiguous tensors; use .contiguous() first!"
    r.tests[0].outcome, r.tests[0].score, r.tests[0].message = "failed", 0.0, "x"
    md = render_markdown(r)
    assert "cuda" not in md and "non-contiguous tensors; use .contiguous() first!" in md
    assert "| ` double ` | 5 / 6 | 2 of 3 passed, 1 not run here |" in md
    due = datetime(2026, 10, 1, tzinfo=timezone.utc)
    policy = LatePolicy.from_table({"due": due.isoformat(), "penalty_percent": 10})
    late = apply_late_policy(10, 10, due + timedelta(minutes=50), policy)
    assert late.explanation.startswith(
        "submitted 50 min after the due date: 1 day's penalty (each started day "
        "counts), 10% of the maximum score deducted"
    )
    assert "day late" not in late.explanation


def test_apply_to_a_whole_group_of_identical_failures(toy_kit, tmp_path, capsys):
    from autograder.store.database import Gradebook

    out = setup_out(tmp_path)
    gb = Gradebook(out / "gradebook.sqlite")
    gb.put(result("roerick_34567", (1, 0, 0, 1, 1)))  # double fails as doe's does: same tests, messages
    gb.put(result("lee_45678", (1, 1, 0, 1, 1)))  # another failure of double
    gb.close()
    assert (
        rubric_cli(
            toy_kit,
            out,
            "--exercise",
            "double",
            "--add",
            "random inputs",
            "--points",
            "0",
            "--comment",
            "test on random tensors, not only [1, 2]",
        )
        == 0
    )
    assert rubric_cli(toy_kit, out, "--apply", "1", "--like", DOE) == 0
    assert sorted(a.submission_id for a in Marks(out).applied("toy")) == ["doejane_23456", "roerick_34567"]
    assert rubric.failure_groups([result("a"), result("b", (0, 1, 1, 1, 1))], "double") == {
        (("public/test_double.py::test_double_small", "failed", "expected [2., 4.], got [1., 2.]"),): ["b"],
        (): ["a"],
    }


def test_an_item_on_a_resubmitted_notebook_is_stale_until_applied_again(toy_kit, tmp_path, capsys):
    from dataclasses import replace

    from autograder.store.database import Gradebook

    out = setup_out(tmp_path)
    assert (
        rubric_cli(
            toy_kit,
            out,
            "--exercise",
            "double",
            "--add",
            "loop",
            "--points",
            "-1",
            "--comment",
            "vectorise it",
            "--note",
            "staff only: see the FAQ",
        )
        == 0
    )
    assert rubric_cli(toy_kit, out, "--apply", "1", SMITH) == 0
    assert run(["feedback", "toy", "--out", str(out)], toy_kit) == 0
    page = (out / "toy" / "feedback" / f"{SMITH}.md").read_text()
    assert "vectorise it" in page and "staff only" not in page  # the note is staff's alone
    gb = Gradebook(out / "gradebook.sqlite")
    gb.put(replace(result(SMITH), sha256="cd" * 32))  # the student resubmitted
    gb.close()
    capsys.readouterr()
    assert canvas(toy_kit, out, str(tmp_path / "roster.csv"))["12345"] == "10"  # not applied to the new version
    assert f"rubric item #1 (loop) of {SMITH} is stale" in capsys.readouterr().err
    assert rubric_cli(toy_kit, out, "--apply", "1", SMITH) == 0  # applied again, to the version that counts
    capsys.readouterr()
    assert canvas(toy_kit, out, str(tmp_path / "roster.csv"))["12345"] == "9"
    assert "is stale" not in capsys.readouterr().err
