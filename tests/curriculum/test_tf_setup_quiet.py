"""A TensorFlow notebook's setup cell keeps TensorFlow's start-up notices out of the student's first output.

TensorFlow 2.21 writes C++ notices to the process's stderr while it loads ("oneDNN custom operations are on",
cpu_feature_guard's list of CPU instructions), the first before it reads TF_CPP_MIN_LOG_LEVEL, and Jupyter shows
that stderr under the cell that imported it.  So the setup cell imports TensorFlow inside the kit's
`quiet_stderr()` (autograder/execute/quiet.py).  In a grading worker TensorFlow is already imported, quietly, before
the notebook runs: there the cell changes nothing.
"""

from __future__ import annotations

import ast
import os
import subprocess
import sys
from pathlib import Path

import nbformat
import pytest

from autograder.config.assignment import list_assignments, load_assignment
from tests.tfkit import TF_LOG

ROOT = Path(__file__).resolve().parents[2]
TF_ASSIGNMENTS = [a for a in list_assignments(ROOT) if load_assignment(a, ROOT).framework.name == "tensorflow"]


def _imports_tensorflow(stmt: ast.stmt) -> bool:
    for node in ast.walk(stmt):
        names = (
            [a.name for a in node.names]
            if isinstance(node, ast.Import)
            else [node.module or ""]
            if isinstance(node, ast.ImportFrom)
            else []
        )
        if any(n.split(".")[0] in ("tensorflow", "keras") for n in names):
            return True
    return False


def setup_cell(notebook: Path) -> str:
    """The first code cell that imports TensorFlow (or Keras, which imports it)."""
    nb = nbformat.read(notebook, as_version=4)
    return next(
        c.source for c in nb.cells if c.cell_type == "code" and any(map(_imports_tensorflow, ast.parse(c.source).body))
    )


def test_there_are_tensorflow_assignments():
    assert {"tf00_devices", "tf04_house"} <= set(TF_ASSIGNMENTS)


def _quieted(stmt: ast.stmt) -> bool:
    return isinstance(stmt, ast.With) and any(
        isinstance(i.context_expr, ast.Call) and ast.unparse(i.context_expr.func) == "quiet_stderr" for i in stmt.items
    )


@pytest.mark.parametrize("assignment", TF_ASSIGNMENTS)
def test_setup_cell_imports_tensorflow_inside_quiet_stderr(assignment):
    """The setup cell's first TensorFlow import is `import tensorflow` itself, inside `with quiet_stderr():`
    taken from the kit (so a Keras import first, or one outside the block, prints the notices)."""
    stmts = ast.parse(setup_cell(ROOT / "student" / f"{assignment}.ipynb")).body
    first = next(s for s in stmts if _imports_tensorflow(s))
    assert _quieted(first), f"{assignment}: the setup cell imports TensorFlow outside `with quiet_stderr():`"
    assert any(isinstance(s, ast.Import) and [a.name for a in s.names] == ["tensorflow"] for s in first.body), (
        f"{assignment}: `with quiet_stderr():` should hold `import tensorflow as tf`"
    )
    assert any(
        isinstance(s, ast.ImportFrom)
        and s.module == "autograder.student.selfcheck"
        and "quiet_stderr" in [a.name for a in s.names]
        for s in stmts[: stmts.index(first)]
    ), f"{assignment}: quiet_stderr should come from autograder.student.selfcheck, before the import"


def test_setup_cell_prints_nothing_on_stderr():
    """tf00_devices' released setup cell (which also runs TensorFlow: its logical devices) in a fresh Python:
    nothing from TensorFlow on stderr, and stderr works again after the import."""
    source = (
        setup_cell(ROOT / "student" / "tf00_devices.ipynb") + "\nimport sys\nprint('stderr is back', file=sys.stderr)\n"
    )
    env = {k: v for k, v in os.environ.items() if not k.startswith("TF_")}
    proc = subprocess.run(
        [sys.executable, "-c", source], capture_output=True, text=True, timeout=300, cwd=ROOT, env=env
    )
    assert proc.returncode == 0, proc.stderr[-3000:]
    assert "logical devices" in proc.stdout
    assert proc.stderr == "stderr is back\n", [m for m in TF_LOG if m in proc.stderr] or proc.stderr[-3000:]
