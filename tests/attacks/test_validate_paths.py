"""Attacks on where `validate` and `check.all()` take their checks from: a notebook names a folder.

A notebook's `autograder` metadata says which assignment it is.  A hostile one names instead a folder the
student placed elsewhere (an absolute path, or `../` climbing out of the kit), holding a `public/` test and
a `probes.py` that, once imported, reads the caller's secret and writes a marker file, with the `version`
hash of that very folder so the version check agrees.  The checks must come only from the installed
package or the kit, for an assignment id that is one of theirs: both faces refuse, in the student's words,
before anything runs, and the marker never exists.
"""

from __future__ import annotations

import contextlib
import io
import os
from pathlib import Path

import nbformat
import pytest

from autograder.student import public_checks as checks

ROOT = Path(__file__).resolve().parents[2]
SECRET = "course-secret-7e2a-do-not-leak"

PROBES = '''
import os, pathlib
try:
    pathlib.Path({marker!r}).write_text("ran as %d: %s" % (os.getuid(), open({secret!r}).read()))
except OSError:
    pass  # inside a sandbox: nothing to write to
'''
TEST = '''
def test_anything(student):
    assert True
'''


def _hostile_folder(where: Path, marker: Path, secret: Path) -> Path:
    folder = where / "evil_checks"
    (folder / "public").mkdir(parents=True)
    (folder / "probes.py").write_text(PROBES.format(marker=str(marker), secret=str(secret)))
    (folder / "public" / "test_x.py").write_text(TEST)
    return folder


def _notebook(path: Path, assignment: object, version: str) -> Path:
    nb = nbformat.v4.new_notebook(cells=[nbformat.v4.new_code_cell("x = 1")])
    nb.metadata["autograder"] = {"assignment": assignment, "version": version}
    nbformat.write(nb, path)
    return path


@pytest.fixture
def hostile(tmp_path, monkeypatch):
    """(the marker file, the hostile folder, the secret file): the caller's secret in a file and in the
    environment, as an instructor's is."""
    secret = tmp_path / "secret"
    secret.write_text(SECRET)
    monkeypatch.setenv("AUTOGRADER_SECRET_FILE", str(secret))
    marker = tmp_path / "marker"
    folder = _hostile_folder(tmp_path / "placed", marker, secret)
    return marker, folder


def _names(folder: Path) -> dict[str, str]:
    """The ways a notebook can spell the hostile folder: absolute, climbing out of the kit or of the
    installed package, and hidden behind a real assignment's name."""
    return {
        "absolute": str(folder),
        "relative to the kit": os.path.relpath(folder, ROOT / "assignments"),
        "relative to the package": os.path.relpath(folder, checks.PACKAGED),
        "behind a real id": "01_tensors/" + os.path.relpath(folder, ROOT / "assignments" / "01_tensors"),
    }


@pytest.mark.parametrize("spelling", ["absolute", "relative to the kit", "relative to the package", "behind a real id"])
def test_validate_refuses_checks_a_notebook_points_to(tmp_path, hostile, spelling):
    from autograder.student.validate import validate

    marker, folder = hostile
    path = _notebook(tmp_path / "nb.ipynb", _names(folder)[spelling], checks.version(folder))
    lines: list[str] = []
    code = validate(path, out=lines.append)
    report = "\n".join(lines)
    assert not marker.exists(), f"validate imported the notebook's probes.py: {marker.read_text()}"
    assert code == 2, report
    assert "not an assignment's name" in report and "fresh copy of the notebook" in report, report
    assert "Running" not in report  # refused before any worker ran
    assert SECRET not in report


@pytest.mark.parametrize("spelling", ["absolute", "relative to the kit"])
def test_check_all_refuses_checks_a_notebook_points_to(tmp_path, hostile, spelling, monkeypatch):
    from autograder.student.selfcheck import Checker

    marker, folder = hostile
    monkeypatch.delenv("AUTOGRADER_WORKER", raising=False)
    monkeypatch.delenv("AUTOGRADER_VALIDATING", raising=False)
    path = _notebook(tmp_path / "nb.ipynb", _names(folder)[spelling], checks.version(folder))
    shown = io.StringIO()
    with contextlib.redirect_stdout(shown):
        ok = Checker("01_tensors", version=checks.version(ROOT / "assignments" / "01_tensors")).all(str(path))
    assert not marker.exists(), f"check.all() imported the notebook's probes.py: {marker.read_text()}"
    assert ok is False and "not an assignment's name" in shown.getvalue(), shown.getvalue()


def test_check_refuses_an_assignment_that_is_a_path(hostile):
    """`Checker(...)` itself (what `check("x")` runs on) takes an id only, whoever builds it."""
    from autograder.student.selfcheck import Checker

    marker, folder = hostile
    with pytest.raises(ValueError, match="not an assignment's name"):
        Checker(str(folder), checks.version(folder)).folder()
    assert not marker.exists()


@pytest.mark.parametrize(
    "assignment",
    ["", ".", "..", "01_tensors\0", "01_tensors/", "/01_tensors", "01_tensors/../01_tensors", "a" * 65, "01 tensors"],
)
def test_find_takes_only_installed_ids(assignment):
    assert checks.find(assignment, ROOT) is None
    assert not checks.is_id(assignment) or assignment not in checks.known(ROOT)


def test_find_finds_the_installed_assignments():
    known = checks.known(ROOT)
    assert {"01_tensors", "tf01_bricks"} <= set(known)
    assert all(checks.find(a, ROOT) == ROOT / "assignments" / a for a in known)
    assert checks.find("no_such_assignment", ROOT) is None
