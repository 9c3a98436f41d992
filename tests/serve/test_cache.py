"""The workspace keeps an assignment's grades between pages; after an override it computes again only the
overridden rows (`AssignmentGrades.with_overrides_of`).  What it shows must be what `exports.
assignment_grades` and the report compute from scratch, every export's source, whatever the overrides."""

from __future__ import annotations

import csv
import dataclasses
import shutil
from datetime import datetime, timedelta, timezone

import pytest

from autograder.intake.roster import Identity, write_identities
from autograder.pipeline import set_override
from autograder.report.grades_csv import grades_table
from autograder.report.instructor_report import report_context
from autograder.serve import pages
from autograder.serve.pages import Workspace
from autograder.store.database import Gradebook
from autograder.store.folder import assignment_grades
from tests.grades.factory import result
from tests.serve.conftest import trail  # noqa: E402

DUE = datetime(2026, 10, 1, 12, tzinfo=timezone.utc)
N = 12


@pytest.fixture
def course(toy_kit, tmp_path):
    """A class of N with a deadline (some late, one extension, one extension naming nobody), a roster with
    a student who did not submit and without one who did."""
    kit = tmp_path / "kit"
    shutil.copytree(toy_kit, kit)
    manifest = kit / "assignments" / "toy" / "manifest.toml"
    manifest.write_text(
        manifest.read_text() + f'\n[deadline]\ndue = "{DUE.isoformat()}"\npenalty_percent = 10\n'
        'period = "day"\n\n[deadline.extensions]\ns3 = 3\nnobody = 2\n'
    )
    out = tmp_path / "results"
    gb = Gradebook(out / "gradebook.sqlite")
    people, lines = {}, ["Student,ID,SIS User ID,SIS Login ID,Section"]
    for i in range(N):
        sid = f"student{i}_{100 + i}"
        gb.put(result(sid, ((1, 1, 0.5, 0, 1), (1, 1, 1, 1, 1), (0, 0, 0, 0, 0))[i % 3], time=1.0 + i))
        people[sid] = Identity(
            str(100 + i),
            f"Student {i}",
            login_id=f"s{i}",
            lms_user_id=str(100 + i),
            submitted_at=DUE + timedelta(hours=30 * (i % 4) - 1),
        )
        if i != N - 1:  # the last one submitted but is not on the roster
            lines.append(f"\"Student {i}\",{100 + i},S{i},s{i},A")
    gb.close()
    lines.append("\"Absent\",999,X9,x9,B")
    write_identities(out / "toy" / "identities.json", people)
    roster = tmp_path / "roster.csv"
    roster.write_text("\n".join(lines) + "\n")
    return kit, out, roster


def _from_scratch(kit, out, roster):
    g = assignment_grades(kit, "toy", out, roster_csv=roster)
    return g, report_context(g.rows, title=g.assignment.title, plots=False)


def _same(ws: Workspace, kit, out, roster) -> None:
    g, ctx = ws.grades("toy")
    fresh, fresh_ctx = _from_scratch(kit, out, roster)
    assert g.results == fresh.results and g.counted == fresh.counted
    assert g.rows == fresh.rows
    assert g.warnings == fresh.warnings
    assert {k: v for k, v in ctx.items() if k != "generated"} == {
        k: v for k, v in fresh_ctx.items() if k != "generated"
    }
    assert grades_table(g.results) == grades_table(fresh.results)


def test_after_overrides_only_the_overridden_rows_are_computed_and_the_grades_are_the_same(course, monkeypatch):
    kit, out, roster = course
    ws = Workspace(kit, out, roster)
    g, _ = ws.grades("toy")
    assert any("nobody" in w for w in g.warnings) and any("not on the roster" in w for w in g.warnings)
    full_reads = []
    real = pages.assignment_grades
    monkeypatch.setattr(pages, "assignment_grades", lambda *a, **k: full_reads.append(1) or real(*a, **k))

    # the workspace's form, then `autograder override` from a terminal (set_override with fresh grades),
    # a test override, a whole-score one over it, one superseding another, and one on a late student
    set_override(ws.grades("toy")[0], "student1_101", test=None, score=7, comment="regraded", by="TA")
    _same(ws, kit, out, roster)
    set_override(
        assignment_grades(kit, "toy", out, roster_csv=roster),
        "student2_102",
        test="hidden/test_double.py::test_double_random",
        score=1,
        comment="partial credit",
        by="TA",
    )
    set_override(
        assignment_grades(kit, "toy", out, roster_csv=roster),
        "student2_102",
        test=None,
        score=3,
        comment="and the total",
        by="TA",
    )
    set_override(
        assignment_grades(kit, "toy", out, roster_csv=roster),
        "student1_101",
        test=None,
        score=6,
        comment="second look",
        by="TA",
    )
    set_override(
        assignment_grades(kit, "toy", out, roster_csv=roster),
        "student5_105",
        test=None,
        score=2,
        comment="late, regraded",
        by="TA",
    )
    _same(ws, kit, out, roster)
    assert full_reads == []
    assert {r.submission_id: r.result.score for r in ws.grades("toy")[0].rows if r.result}["student1_101"] == 6

    # results stored again (a re-grade: another notebook, the override on the old one now stale; the same
    # notebook, its override still in force; a provisional result): only those rows again
    gb = Gradebook(out / "gradebook.sqlite")
    gb.put(dataclasses.replace(result("student1_101", (1, 0, 0, 0, 0)), sha256="cd" * 32))
    gb.put(result("student2_102", (1, 1, 1, 0, 0)))
    gb.put(dataclasses.replace(result("student7_107", (1, 1, 1, 1, 1)), provisional="a host fault"))
    gb.close()
    _same(ws, kit, out, roster)
    assert full_reads == []
    g = ws.grades("toy")[0]
    assert any("stale" in w and "student1_101" in w for w in g.warnings)
    assert {r.submission_id: r.result.score for r in g.rows if r.result}["student2_102"] == 3

    # an override after that keeps the stale one's warning in its place
    set_override(
        assignment_grades(kit, "toy", out, roster_csv=roster),
        "student0_100",
        test=None,
        score=1,
        comment="again",
        by="TA",
    )
    _same(ws, kit, out, roster)
    assert full_reads == []

    # a submission added: read again
    gb = Gradebook(out / "gradebook.sqlite")
    gb.put(result("newcomer_555", (1, 1, 0, 0, 0)))
    gb.close()
    _same(ws, kit, out, roster)
    assert full_reads == [1]

    # the roster changed: read again
    roster.write_text(roster.read_text() + "\"Late joiner\",998,X8,x8,B\n")
    _same(ws, kit, out, roster)
    assert full_reads == [1, 1]


def test_a_regrade_under_counts_best_keeps_the_best_version(course, tmp_path, monkeypatch):
    """`[course] counts = "best"`: a worse result stored again leaves the kept better version counting,
    as a full read decides it."""
    from autograder.config.course import load_course
    from autograder.store.history import keep

    kit, out, roster = course
    (tmp_path / "course.toml").write_text('[course]\ncounts = "best"\n')
    best = load_course(tmp_path / "course.toml")
    good = result("student1_101", (1, 1, 1, 1, 1))
    keep(out, good, None)
    gb = Gradebook(out / "gradebook.sqlite")
    gb.put(good)
    gb.close()
    ws = Workspace(kit, out, roster, best)
    ws.warm()
    full_reads = []
    real = pages.assignment_grades
    monkeypatch.setattr(pages, "assignment_grades", lambda *a, **k: full_reads.append(1) or real(*a, **k))
    worse = dataclasses.replace(result("student1_101", (1, 0, 0, 0, 0)), sha256="cd" * 32)
    keep(out, worse, None)
    gb = Gradebook(out / "gradebook.sqlite")
    gb.put(worse)
    gb.close()
    g, ctx = ws.grades("toy")
    fresh = assignment_grades(kit, "toy", out, roster_csv=roster, course=best)
    assert full_reads == [] and g.rows == fresh.rows and g.counted == fresh.counted
    assert {r.submission_id: r.result.sha256 for r in g.rows if r.result}["student1_101"] == "ab" * 32


def test_an_override_rewrites_grades_csv_as_a_full_read_gives_it(course):
    kit, out, roster = course
    g = assignment_grades(kit, "toy", out, roster_csv=roster)
    set_override(g, "student4_104", test=None, score=4, comment="regraded", by="TA")
    with open(out / "toy" / "grades.csv", newline="") as f:
        written = [row for row in csv.reader(f)]
    header, body = grades_table(assignment_grades(kit, "toy", out, roster_csv=roster).results)
    assert written[0] == header
    assert [row[:4] for row in written[1:]] == [[str(x) for x in row[:4]] for row in body]
    assert [row[-1] for row in written[1:]] == [row[-1] for row in body]
    assert dict((row[0], row[3]) for row in written[1:])["student4_104"] == "4"
    assert trail(out, "toy")[-1].new_score == 4
