"""nbgrader interop: a source notebook nbgrader accepts, and grades written into its gradebook."""
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

nbgrader = pytest.importorskip("nbgrader")

from autograder.interop.nbgrader import GRADE_ID, source_notebook, write_source_notebook  # noqa: E402

BIN = Path(sys.executable).parent


def nbg(course: Path, *args: str, check=True) -> subprocess.CompletedProcess:
    env = {**os.environ, "PATH": f"{BIN}{os.pathsep}{os.environ.get('PATH', '')}"}   # nbgrader runs `alembic`
    return subprocess.run([str(BIN / "nbgrader"), *args], cwd=course, env=env, capture_output=True, text=True,
                          timeout=300, check=check)


def test_source_notebook_metadata(toy_kit):
    nb = source_notebook(toy_kit, "toy")
    meta = [c.metadata["nbgrader"] for c in nb.cells]
    assert all(m["schema_version"] == 3 for m in meta)
    assert [m["solution"] for m in meta].count(True) == 3
    (grade,) = [m for m in meta if m["grade"]]
    assert grade["grade_id"] == GRADE_ID and grade["points"] == 10 and grade["locked"]
    assert len({m["grade_id"] for m in meta}) == len(meta)


@pytest.fixture(scope="module")
def course(toy_kit, tmp_path_factory):
    course = tmp_path_factory.mktemp("course")
    write_source_notebook(toy_kit, "toy", course)
    nbg(course, "generate_assignment", "toy", "--force")
    return course


@pytest.mark.slow
def test_released_notebook_passes_nbgrader_validate(course, toy_kit, tmp_path):
    released = course / "release" / "toy" / "toy.ipynb"
    text = released.read_text()
    assert "return x * 2" not in text and "raise NotImplementedError()" in text      # solutions stripped
    r = nbg(course, "validate", str(released))
    assert "Success! Your notebook passes all the tests." in r.stdout + r.stderr
    # the kit's own `release` output carries nbgrader metadata too and validates
    from autograder.notebook.release import release
    kit_nb = release(toy_kit, "toy", tmp_path / "student")[0]
    r = nbg(course, "validate", str(kit_nb))
    assert "Success!" in r.stdout + r.stderr


@pytest.mark.slow
def test_grade_course_writes_nbgrader_gradebook(course, toy_kit, tmp_path):
    from nbgrader.api import Gradebook

    from autograder.execute.sandbox import choose_isolation
    from autograder.interop.nbgrader import grade_course
    from autograder.judge.session import GradeOptions

    for student, nb, stamp in (("alice", toy_kit / "solutions" / "toy.ipynb", "2026-10-01 20:00:00.000000 UTC"),
                               ("bob", course / "release" / "toy" / "toy.ipynb", "2026-10-01 21:00:00.000000 UTC")):
        d = course / "submitted" / student / "toy"
        d.mkdir(parents=True)
        shutil.copy(nb, d / "toy.ipynb")
        (d / "timestamp.txt").write_text(stamp)
    scores = grade_course(toy_kit, "toy", course, out=tmp_path / "results",
                          options=GradeOptions(device="cpu", isolation=choose_isolation(True)))
    assert scores == {"alice": 10.0, "bob": 0.0}
    with Gradebook(f"sqlite:///{course / 'gradebook.db'}") as gb:
        assert gb.find_grade(GRADE_ID, "toy", "toy", "alice").score == 10.0
        assert gb.find_submission("toy", "bob").score == 0.0
        assert gb.find_submission("toy", "alice").max_score == 10.0
    r = nbg(course, "export", "--to", str(tmp_path / "grades.csv"))
    assert "alice" in (tmp_path / "grades.csv").read_text()
