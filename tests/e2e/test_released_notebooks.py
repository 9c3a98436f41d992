"""Notebooks released by earlier versions of the kit, run against this one in a real kernel.

A student keeps the notebook given out for the whole term while the package is upgraded under it.  Each
fixture is an earlier release's student notebook as it was handed out (`tests/fixtures/released/`, one from
before `Checker` moved out of `autograder.selfcheck`), with its first exercise answered from today's master,
as a student would have it mid-term.  Run top to bottom by nbclient in this Python's kernel with this kit's
checks: its setup cell imports what it imported then, the answered exercise's check passes, the others say
"not answered yet", the note on the checks' version is printed once (and by the validation), and its last cell, `check.all()`, runs
the saved notebook through `autograder validate`'s path (the grader's worker) to a verdict.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

import nbformat
import pytest

from autograder.student.release import BEGIN, END

ROOT = Path(__file__).resolve().parents[2]
RELEASED = sorted((ROOT / "tests" / "fixtures" / "released").glob("01_tensors-*.ipynb"))
pytestmark = pytest.mark.slow
_CHECK_LINE = re.compile(r'^check\("(\w+)"\)\s*$', re.M)


def _answered(path: Path, dest: Path) -> tuple[nbformat.NotebookNode, str]:
    """The released notebook with its first exercise's cell taken from today's master (same cell id)."""
    nb = nbformat.read(path, as_version=4)
    master = {c.get("id"): c for c in nbformat.read(ROOT / "solutions" / "01_tensors.ipynb", as_version=4).cells}
    cell = next(c for c in nb.cells if c.cell_type == "code" and "YOUR CODE HERE" in c.source)
    cell.source = "\n".join(ln for ln in master[cell.id].source.splitlines() if not ln.strip().startswith((BEGIN, END)))
    nbformat.write(nb, dest)
    return nb, "dtypes"


def _text(cell: nbformat.NotebookNode) -> str:
    return "".join(o.get("text", "") + "".join(o.get("traceback", [])) for o in cell.get("outputs", []))


@pytest.mark.parametrize("path", RELEASED, ids=lambda p: p.stem)
def test_a_released_notebook_runs_against_this_package(path, tmp_path, monkeypatch):
    from nbclient import NotebookClient

    monkeypatch.setenv("AUTOGRADER_KIT", str(ROOT))  # this kit's checks, as the installed package's would be
    for name in ("AUTOGRADER_WORKER", "AUTOGRADER_VALIDATING", "JPY_SESSION_NAME"):
        monkeypatch.delenv(name, raising=False)
    dest = tmp_path / path.name
    nb, answered = _answered(path, dest)
    monkeypatch.chdir(tmp_path)
    NotebookClient(
        nb, timeout=600, kernel_name="python3", allow_errors=False, resources={"metadata": {"path": str(tmp_path)}}
    ).execute()
    code = [c for c in nb.cells if c.cell_type == "code"]
    assert not any(o.get("output_type") == "error" for c in code for o in c.outputs)
    checked = {m: _text(c) for c in code for m in _CHECK_LINE.findall(c.source)}
    assert len(checked) >= 5, checked
    assert f"{answered}: all public checks pass" in checked[answered], checked[answered]
    for exercise, text in checked.items():
        if exercise != answered:
            assert f"{exercise}: not answered yet" in text, (exercise, text)
    printed, last = "".join(_text(c) for c in code[:-1]), _text(code[-1])
    version = json.loads(path.read_text(encoding="utf-8"))["metadata"]["autograder"]["version"]
    assert printed.count(f"this notebook came with version {version}") == 1  # once, at the first check
    assert f"this notebook came with version {version}" in last and "out of date" not in printed + last
    assert code[-1].source.strip() == "check.all()" and f"Running {path.name} top to bottom" in last, last
    assert f"{answered}: all public checks pass" in last or f"✔ {answered}" in last, last
