"""nbgrader interop, against the real nbgrader: the kit's per-exercise scores and late penalty land in
its gradebook and survive nbgrader's own `autograde`, `generate_feedback` and `export`."""

import csv
import os
import shutil
import subprocess
import sys
from dataclasses import replace
from pathlib import Path

import nbformat
import pytest

nbgrader = pytest.importorskip("nbgrader")

from autograder.config.settings import GradeSettings  # noqa: E402
from autograder.interop.nbgrader import TASK_PREFIX, grade_course, source_notebook, write_source_notebook  # noqa: E402
from tests.nbfactory import edit  # noqa: E402

BIN = Path(sys.executable).parent
POINTS = {"double": 8.0, "later": 2.0}  # the toy's test files (ANSWER is tested in test_double.py)


def nbg(course: Path, *args: str, check=True) -> subprocess.CompletedProcess:
    env = {**os.environ, "PATH": f"{BIN}{os.pathsep}{os.environ.get('PATH', '')}"}  # nbgrader runs `alembic`
    r = subprocess.run([str(BIN / "nbgrader"), *args], cwd=course, env=env, capture_output=True, text=True, timeout=300)
    assert r.returncode == 0 or not check, r.stdout + r.stderr
    return r


def settings(out: Path = Path("results")) -> GradeSettings:
    return GradeSettings(out=out, device="cpu", allow_weak_isolation=True)


@pytest.fixture(scope="module")
def kit(late_toy_kit):
    """The toy kit with a deadline (10 % of the maximum per day late)."""
    return late_toy_kit


def test_exercise_points_come_from_the_reference(toy_kit):
    from autograder.config.assignment import load_assignment
    from autograder.interop.nbgrader import exercise_points

    assert exercise_points(load_assignment("toy", toy_kit), settings()) == POINTS


def test_source_notebook_has_one_task_cell_per_exercise(toy_kit):
    nb = source_notebook(toy_kit, "toy", POINTS)
    meta = [c.metadata["nbgrader"] for c in nb.cells]
    assert all(m["schema_version"] == 3 for m in meta)
    assert [m["solution"] for m in meta].count(True) == 3
    assert not any(m["grade"] for m in meta)  # nothing nbgrader's autograde could score by itself
    tasks = {m["grade_id"]: m["points"] for m in meta if m["task"]}
    assert tasks == {TASK_PREFIX + e: p for e, p in POINTS.items()}
    assert len({m["grade_id"] for m in meta}) == len(meta)


@pytest.fixture(scope="module")
def course(kit, tmp_path_factory):
    course = tmp_path_factory.mktemp("course")
    write_source_notebook(kit, "toy", course, settings=settings())
    nbg(course, "generate_assignment", "toy", "--force")
    master = kit / "solutions" / "toy.ipynb"
    partial = edit(master, tmp_path_factory.mktemp("p") / "toy.ipynb", replace={"return x * 2": "return x * 3"})
    # carol's notebook also leaves a mark wherever it runs outside a sandbox (`marker`)
    nb = nbformat.read(partial, as_version=4)
    nb.cells.append(
        nbformat.v4.new_code_cell(
            f"try:\n    open({str(marker(course))!r}, 'w').write('ran')\nexcept OSError:\n    pass"
        )
    )
    nbformat.write(nb, partial)
    for student, nb, stamp in (
        ("alice", master, "2026-10-01 11:00:00.000000 UTC"),
        ("bob", course / "release" / "toy" / "toy.ipynb", "2026-10-01 11:00:00.000000 UTC"),
        ("carol", partial, "2026-10-01 11:00:00.000000 UTC"),
        ("dave", master, "2026-10-02 13:00:00.000000 UTC"),
    ):  # 2 periods late
        d = course / "submitted" / student / "toy"
        d.mkdir(parents=True)
        shutil.copy(nb, d / "toy.ipynb")
        (d / "timestamp.txt").write_text(stamp)
    return course


def marker(course: Path) -> Path:
    """Where carol's notebook writes when it runs outside the kit's sandbox."""
    return course.with_name(course.name + "-ran-unsandboxed.txt")


def scores(course: Path) -> dict[str, tuple[float, float]]:
    """{student: (score, late penalty)} from nbgrader's own CSV export."""
    dest = course / "grades.csv"
    nbg(course, "export", "--to", str(dest))
    return {
        r["student_id"]: (float(r["score"]), float(r["late_submission_penalty"] or 0))
        for r in csv.DictReader(dest.open())
    }


@pytest.mark.slow
def test_released_notebook_passes_nbgrader_validate(course, toy_kit, tmp_path):
    released = course / "release" / "toy" / "toy.ipynb"
    text = released.read_text()
    assert "return x * 2" not in text and "raise NotImplementedError()" in text  # solutions stripped
    r = nbg(course, "validate", str(released))
    assert "Success! Your notebook passes all the tests." in r.stdout + r.stderr
    from autograder.student.release import release

    kit_nb = release(toy_kit, "toy", tmp_path / "student")[0]
    r = nbg(course, "validate", str(kit_nb))
    assert "Success!" in r.stdout + r.stderr


@pytest.mark.slow
def test_round_trip_without_nbgrader_autograde(course, kit, tmp_path):
    """The documented order: the kit grades (sandboxed), nbgrader's generate_feedback and export read what it
    wrote; `nbgrader autograde`, which runs every submission unsandboxed, is never needed.  Identities of
    another intake in the same results folder are kept beside the course's students."""
    from nbgrader.api import Gradebook

    from autograder.intake.roster import Identity, read_identities, write_identities

    results = tmp_path / "results"
    canvas = {"smithjohn_12345": Identity("12345", "smithjohn", lms_user_id="12345")}  # a Canvas class, graded before
    write_identities(results / "toy" / "identities.json", canvas)
    written = grade_course(kit, "toy", course, settings(results))
    # nbgrader's score is net of its late_submission_penalty: dave's raw 10 less the kit's 2-period penalty
    expected = {"alice": (10.0, 0.0), "bob": (0.0, 0.0), "carol": (4.0, 0.0), "dave": (8.0, 2.0)}
    assert written == {s: sc for s, (sc, _) in expected.items()}
    assert scores(course) == expected  # blank 0, master full, partial = the kit's score
    ids = read_identities(results / "toy" / "identities.json")
    assert ids["smithjohn_12345"] == canvas["smithjohn_12345"] and {"alice", "bob", "carol", "dave"} <= set(ids)
    with Gradebook(f"sqlite:///{course / 'gradebook.db'}") as gb:
        carol = {e: gb.find_grade(TASK_PREFIX + e, "toy", "toy", "carol").score for e in POINTS}
        assert carol["double"] < POINTS["double"] and sum(carol.values()) == 4.0
        assert not gb.find_submission("toy", "bob").needs_manual_grade  # formgrader shows it as graded
        assert gb.find_submission("toy", "alice").max_score == 10.0
    autograded = course / "autograded" / "alice" / "toy" / "toy.ipynb"
    assert all(not c.get("outputs") for c in nbformat.read(autograded, as_version=4).cells)
    nbg(course, "generate_feedback", "toy")
    bob = (course / "feedback" / "bob" / "toy" / "toy.html").read_text()
    assert "0.0 / 10.0" in bob or "0 / 10" in bob
    alice = (course / "feedback" / "alice" / "toy" / "toy.html").read_text()
    assert "10.0 / 10.0" in alice or "10 / 10" in alice
    # an instructor's override of carol's total (autograder override) reaches nbgrader too, as extra credit
    from autograder.grades.overrides import record
    from autograder.store.database import Gradebook as KitGradebook
    from autograder.store.marks import Marks

    db = results / "gradebook.sqlite"
    kit_gb = KitGradebook(db)
    carol_result = next(r for r in kit_gb.all("toy") if "carol" in r.submission_id)
    kit_gb.close()
    Marks(results).add_override(
        record([], carol_result, score=7.0, comment="regrade request: double() accepted", by="ta")
    )
    grade_course(kit, "toy", course, settings(results))
    assert scores(course) == {**expected, "carol": (7.0, 0.0)}
    # a rubric item (autograder rubric) reaches nbgrader's gradebook in its exercise's task, the kit's score
    from autograder.pipeline import rubric_add, rubric_apply
    from autograder.store.folder import assignment_grades

    g = assignment_grades(kit, "toy", results)
    bob_sid = next(r.submission_id for r in g.counted if "bob" in r.submission_id)
    item = rubric_add(g, exercise="double", title="right idea", points=1.5, comment="the loop is right", by="TA")
    rubric_apply(g.with_overrides_of([]), item.id, [bob_sid], by="TA")
    kit_score = {r.submission_id: r.score for r in assignment_grades(kit, "toy", results).rows}[bob_sid]
    grade_course(kit, "toy", course, settings(results))
    assert kit_score == 1.5 and scores(course) == {**expected, "carol": (7.0, 0.0), "bob": (1.5, 0.0)}
    with Gradebook(f"sqlite:///{course / 'gradebook.db'}") as gb:
        assert gb.find_grade(TASK_PREFIX + "double", "toy", "toy", "bob").score == 1.5
    assert not marker(course).exists()  # no student code ran outside the sandbox in the documented order
    # a course where someone runs nbgrader's autograde anyway keeps the kit's scores; it resets the late
    # penalty to nbgrader's own plugin's, which the kit puts back.  It runs the notebooks unsandboxed:
    nbg(course, "autograde", "toy", "--force")
    assert marker(course).read_text() == "ran"
    again = scores(course)
    assert {s: again[s] for s in ("alice", "bob", "carol")} == {
        "alice": expected["alice"],
        "bob": (1.5, 0.0),
        "carol": (7.0, 0.0),
    }
    grade_course(kit, "toy", course, settings(results))
    assert scores(course) == {**expected, "carol": (7.0, 0.0), "bob": (1.5, 0.0)}


def test_the_feedback_copy_has_no_outputs_and_an_unreadable_notebook_none(tmp_path):
    """What the kit leaves in autograded/ for formgrader: the student's saved outputs (HTML, scripts) are
    dropped; a notebook that cannot be read (graded invalid) leaves nothing rather than stopping the course."""
    from datetime import datetime, timezone

    from autograder.interop.nbgrader import _write_autograded

    nb = nbformat.v4.new_notebook(cells=[nbformat.v4.new_code_cell("x = 1")])
    nb.cells[0].outputs = [nbformat.v4.new_output("display_data", data={"text/html": "<script>steal()</script>"})]
    nbformat.write(nb, tmp_path / "in.ipynb")
    dest = tmp_path / "autograded" / "alice" / "toy" / "toy.ipynb"
    _write_autograded(tmp_path / "in.ipynb", dest, datetime(2026, 10, 1, 11, tzinfo=timezone.utc))
    assert "steal" not in dest.read_text() and nbformat.read(dest, as_version=4).cells[0].source == "x = 1"
    assert (dest.parent / "timestamp.txt").read_text().startswith("2026-10-01 11:00:00")
    (tmp_path / "bad.ipynb").write_text("{not json")
    _write_autograded(tmp_path / "bad.ipynb", tmp_path / "autograded" / "bob" / "toy" / "toy.ipynb", None)
    assert not (tmp_path / "autograded" / "bob").exists()


@pytest.mark.slow
def test_an_extension_keyed_by_email_reaches_nbgraders_gradebook(course, kit, tmp_path, capsys):
    """course.toml's extensions go through the roster as in every other export: dave's is keyed by his email,
    which nbgrader's folders never name; a key that names nobody is a warning."""
    from nbgrader.api import Gradebook

    from autograder.config.course import load_course

    mine = tmp_path / "course"
    shutil.copytree(course, mine)  # this test's own gradebook.db (nbgrader's config still names the fixture's root)
    roster = tmp_path / "roster.csv"
    roster.write_text(
        "id,name,login_id,email\n"
        + "".join(f"900{i},{s.title()},{s},{s}@uni.example\n" for i, s in enumerate(("alice", "bob", "carol", "dave")))
    )
    toml = tmp_path / "course.toml"
    toml.write_text(
        '[course]\nroster = "roster.csv"\n\n[assignments.toy.deadline.extensions]\n'
        '"dave@uni.example" = 2\n"nobody@uni.example" = 1\n'
    )
    warnings: list[str] = []
    written = grade_course(
        kit,
        "toy",
        mine,
        replace(settings(tmp_path / "results"), course=load_course(toml)),
        roster_csv=roster,
        warn=warnings.append,
    )
    # nbgrader's students stay its folders' names; dave: 8 without his extension
    assert written == {"alice": 10.0, "bob": 0.0, "carol": 4.0, "dave": 10.0}
    with Gradebook(f"sqlite:///{mine / 'gradebook.db'}") as gb:
        assert gb.find_submission_notebook("toy", "toy", "dave").late_submission_penalty is None
    assert any("'nobody@uni.example'" in w and "names nobody" in w for w in warnings), warnings
    assert not any("not on the roster" in w for w in warnings), warnings
