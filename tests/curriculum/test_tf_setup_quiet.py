"""A TensorFlow notebook's setup cell keeps TensorFlow's start-up notices out of the student's first output.

TensorFlow 2.21 writes C++ notices to the process's stderr while it loads ("oneDNN custom operations are on",
cpu_feature_guard's list of CPU instructions), and Jupyter shows that stderr under the cell that imported it.
TF_CPP_MIN_LOG_LEVEL=2 silences the second but not the first (printed before TensorFlow reads the variable), so
the setup cell sets the variable and sends stderr to /dev/null while `import tensorflow` runs.  In a grading
worker TensorFlow is already imported (and the variable set) before the notebook runs: there it changes nothing.
"""
from __future__ import annotations

import ast
import os
import re
import subprocess
import sys
from pathlib import Path

import nbformat
import pytest

from autograder.assignment import list_assignments, load_assignment
from tests.tfkit import TF_LOG

ROOT = Path(__file__).resolve().parents[2]
TF_ASSIGNMENTS = [a for a in list_assignments(ROOT) if load_assignment(a, ROOT).framework.name == "tensorflow"]
_STDERR_BACK = re.compile(r"os\.dup2\(\w+, 2\)")


def _imports_tensorflow(stmt: ast.stmt) -> bool:
    for node in ast.walk(stmt):
        names = [a.name for a in node.names] if isinstance(node, ast.Import) else \
                [node.module or ""] if isinstance(node, ast.ImportFrom) else []
        if any(n.split(".")[0] in ("tensorflow", "keras") for n in names):
            return True
    return False


def setup_cell(notebook: Path) -> str:
    """The first code cell that imports TensorFlow (or Keras, which imports it)."""
    nb = nbformat.read(notebook, as_version=4)
    return next(c.source for c in nb.cells if c.cell_type == "code" and any(map(_imports_tensorflow, ast.parse(c.source).body)))


def test_there_are_tensorflow_assignments():
    assert {"tf00_devices", "tf04_house"} <= set(TF_ASSIGNMENTS)


@pytest.mark.parametrize("assignment", TF_ASSIGNMENTS)
def test_setup_cell_quiets_tensorflow_before_importing_it(assignment):
    """Before its first TensorFlow import: TF_CPP_MIN_LOG_LEVEL=2 and stderr to /dev/null; stderr back after it."""
    stmts = ast.parse(setup_cell(ROOT / "student" / f"{assignment}.ipynb")).body
    at = next(i for i, s in enumerate(stmts) if _imports_tensorflow(s))
    before = [ast.unparse(s) for s in stmts[:at]]
    assert "os.environ.setdefault('TF_CPP_MIN_LOG_LEVEL', '2')" in before, \
        f"{assignment}: the setup cell imports TensorFlow without setting TF_CPP_MIN_LOG_LEVEL first"
    assert any(_STDERR_BACK.fullmatch(b) for b in before), \
        f"{assignment}: the setup cell imports TensorFlow with stderr open (its oneDNN notice reaches the notebook)"
    tf_import = stmts[at]
    assert isinstance(tf_import, ast.Try) and any(_STDERR_BACK.fullmatch(ast.unparse(s)) for s in tf_import.finalbody), \
        f"{assignment}: stderr is not given back in a `finally` after the TensorFlow import"


def test_setup_cell_prints_nothing_on_stderr():
    """tf00_devices' released setup cell (which also runs TensorFlow: its logical devices) in a fresh Python:
    nothing from TensorFlow on stderr, and stderr works again after the import."""
    source = setup_cell(ROOT / "student" / "tf00_devices.ipynb") + "\nimport sys\nprint('stderr is back', file=sys.stderr)\n"
    env = {k: v for k, v in os.environ.items() if not k.startswith("TF_")}
    proc = subprocess.run([sys.executable, "-c", source], capture_output=True, text=True, timeout=300, cwd=ROOT, env=env)
    assert proc.returncode == 0, proc.stderr[-3000:]
    assert "logical devices" in proc.stdout
    assert proc.stderr == "stderr is back\n", [m for m in TF_LOG if m in proc.stderr] or proc.stderr[-3000:]
