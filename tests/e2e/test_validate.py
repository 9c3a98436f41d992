"""`autograder validate`: a notebook run top to bottom in a fresh kernel, then every public check.

Each case is a released-or-master 01_tensors notebook (its cells run in about a second); what a
student's live kernel would hide is built into the notebook: a cell that only works after a later
one ran, an error in the middle.
"""

from __future__ import annotations

import linecache
from pathlib import Path

import nbformat
import pytest

from autograder.cli import main
from autograder.execute.backend import ProbeError
from autograder.judge.checks import CheckFailed, assert_equal
from autograder.judge.plugin import _classify
from autograder.notebook.stub import not_answered
from autograder.student import public_checks as checks
from autograder.student.release import release
from autograder.student.selfcheck import Checker
from autograder.student.validate import validate

ROOT = Path(__file__).resolve().parents[2]
A = "01_tensors"
pytestmark = pytest.mark.slow


def _master() -> nbformat.NotebookNode:
    """The master as a student would hand it in: the release's metadata, every answer in place."""
    nb = nbformat.read(ROOT / "solutions" / f"{A}.ipynb", as_version=4)
    nb.metadata["autograder"] = {"assignment": A, "version": checks.version(ROOT / "assignments" / A)}
    return nb


def _run(nb: nbformat.NotebookNode, tmp_path: Path) -> tuple[int, str]:
    path = tmp_path / f"{A}.ipynb"
    nbformat.write(nb, path)
    lines: list[str] = []
    return validate(path, out=lines.append), "\n".join(lines)


def test_master_is_ready(tmp_path):
    code, report = _run(_master(), tmp_path)
    assert code == 0, report
    assert "Ready: all 10 exercises answered" in report and "✘" not in report and "raised an error" not in report


def test_blank_notebook_names_every_unanswered_exercise(tmp_path, capsys):
    path = release(ROOT, A, tmp_path)[0]  # what `student/` holds once released
    assert main(["validate", str(path)]) == 1
    report = capsys.readouterr().out
    exercises = sorted(p.stem[5:] for p in (ROOT / "assignments" / A / "public").glob("test_*.py"))
    for e in exercises:
        assert f"✘ {e}: not answered yet." in report
    assert "Not ready: not answered yet: dtypes, shapes" in report
    assert "should be a" not in report  # a stub is not reported as a wrong type
    assert "raised an error" not in report  # the stubs' NotImplementedErrors are the unanswered exercises, not errors


def test_out_of_order_notebook_and_an_error_midway_are_caught(tmp_path):
    nb = _master()
    dtypes = next(i for i, c in enumerate(nb.cells) if "def to_float32" in c.source)
    # works in a live kernel where the student ran the last cell first; top to bottom it is a NameError
    nb.cells[dtypes].source = "SCALE = scale_factor()\n" + nb.cells[dtypes].source
    nb.cells.append(nbformat.v4.new_code_cell("def scale_factor():\n    return 1.0"))
    midway = next(i for i, c in enumerate(nb.cells) if 'check("views")' in c.source)
    nb.cells.insert(midway, nbformat.v4.new_code_cell("ratio = 3\nratio = ratio / 0"))
    nb.cells.insert(midway, nbformat.v4.new_code_cell("raise ValueError('\\x1b[2J\\u202e wiped')"))
    code, report = _run(nb, tmp_path)
    assert code == 1, report
    assert "✘ dtypes: 0/" in report and "the notebook does not define `to_float32`" in report
    assert "NameError: name 'scale_factor' is not defined (line 1: SCALE = scale_factor())" in report
    assert "ZeroDivisionError: division by zero (line 2: ratio = ratio / 0)" in report
    assert "ValueError: \\x1b[2J\\u202e wiped" in report and "\x1b" not in report  # shown, never obeyed
    assert "✔ views: all public checks pass" in report and "✔ vectorised: all public checks pass" in report
    assert "Not ready: failing public checks: dtypes." in report


def test_checks_of_another_version_are_run_with_a_note(tmp_path, capsys, monkeypatch):
    """A notebook of an earlier release is checked by the installed checks, those grading runs, and told so once."""
    monkeypatch.delenv("AUTOGRADER_WORKER", raising=False)
    nb = _master()
    nb.metadata["autograder"]["version"] = "0123456789ab"
    code, report = _run(nb, tmp_path)
    assert code == 0 and "came with version 0123456789ab" in report and "out of date" not in report, report
    check = Checker(A, version="0123456789ab")
    assert check("dtypes", {}) is None and check("views", {}) is None
    out = capsys.readouterr().out
    assert out.count("came with version 0123456789ab") == 1 and "dtypes: 0/" in out and "views: 0/" in out
    packaged = tmp_path / "site-packages" / "autograder" / "checks"
    checks.package(ROOT, packaged)
    assert Checker(A, folder=packaged / A)("dtypes", {}) is None  # a notebook released before versions existed
    assert "this notebook came with an older release's checks" in capsys.readouterr().out
    assert Checker(A, checks.version(ROOT / "assignments" / A))("dtypes", {}) is None  # the current release: no note
    assert "came with" not in capsys.readouterr().out


def test_a_stub_is_not_answered_yet_not_a_wrong_type():
    """The blank notebook's `ensure_batch` stub: its probe turns the NotImplementedError into data."""
    source = (
        "def describe(t):\n    # YOUR CODE HERE\n    raise NotImplementedError()\n\n\n"
        "def ensure_batch(x):\n    # YOUR CODE HERE\n    raise NotImplementedError()\n"
    )
    name = "<cell 4>"
    linecache.cache[name] = (len(source), None, source.splitlines(True), name)
    ns: dict = {}
    exec(compile(source, name, "exec"), ns)
    results = Checker(A, version=checks.version(ROOT / "assignments" / A)).results("shapes", ns)
    # check() names the stub the student left, in the words validate and the feedback pages use
    assert results and all(
        r["outcome"] == "failed" and r["message"] in (not_answered(["`describe`"]), not_answered(["`ensure_batch`"]))
        for r in results
    ), results
    assert not any("should be a" in r["message"] for r in results)
    # grading (no probe names the stub there) and a probe's returned {"error": ...} say it the same way
    err = {"type": "NotImplementedError", "message": "", "frames": [{"cell": 4, "line": 3, "code": "raise"}]}
    assert _classify(ProbeError(err))[1].startswith(not_answered([]))
    with pytest.raises(CheckFailed, match="^not answered yet: `describe` still raises NotImplementedError \\(replace"):
        assert_equal({"error": "NotImplementedError"}, {"out": 1}, name="`describe`")


def test_a_cell_that_kills_the_kernel_is_named(tmp_path):
    nb = _master()
    at = next(i for i, c in enumerate(nb.cells) if 'check("views")' in c.source)
    nb.cells.insert(at, nbformat.v4.new_code_cell("import os\nos._exit(3)"))
    code, report = _run(nb, tmp_path)
    assert code == 1, report
    # as in grading: the cell is skipped (the notebook replayed without it) and the rest is checked
    assert "(import os): its worker died in it" in report and "the grader would stop cell" in report
    assert "✔ views: all public checks pass" in report


def test_check_all_finds_the_notebook_it_runs_in(tmp_path, monkeypatch):
    from autograder.student.selfcheck import _this_notebook

    monkeypatch.chdir(tmp_path)
    monkeypatch.delenv("JPY_SESSION_NAME", raising=False)
    assert _this_notebook(A) is None  # nothing to run: check.all() asks for the file name
    nbformat.write(_master(), tmp_path / "mine.ipynb")
    nbformat.write(nbformat.v4.new_notebook(), tmp_path / "scratch.ipynb")  # not one of this course's
    assert _this_notebook(A) == tmp_path / "mine.ipynb"
    nbformat.write(_master(), tmp_path / "copy of mine.ipynb")
    assert _this_notebook(A) is None  # two candidates: no guessing
    monkeypatch.setenv("JPY_SESSION_NAME", str(tmp_path / "copy of mine.ipynb"))  # Jupyter names it
    assert _this_notebook(A) == tmp_path / "copy of mine.ipynb"
