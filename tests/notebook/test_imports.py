"""One scan of what an assignment imports: the released notebook's import guard and the Gradescope zip's
pinned installs read the same modules, so a student is told to install what the grader installs."""

import ast
from pathlib import Path

import nbformat
import pytest

from autograder.config.assignment import load_assignment
from autograder.interop import gradescope
from autograder.notebook import imports
from autograder.student import release

ROOT = Path(__file__).resolve().parents[2]


def _guarded(setup: str) -> list[str]:
    """The module list of the released setup cell's guard (`_missing = [m for m in (...) ...]`)."""
    line = next(ln for ln in setup.splitlines() if ln.startswith("_missing ="))
    return list(ast.literal_eval(line.split(" in ", 1)[1].split(" if ", 1)[0]))


@pytest.mark.parametrize("assignment", ["02b_kernels", "04_fit_api"])
def test_the_guard_names_what_the_gradescope_zip_installs(tmp_path, assignment):
    nb = nbformat.read(release.release(ROOT, assignment, tmp_path)[0], as_version=4)
    guard = _guarded(next(c.source for c in nb.cells if c.cell_type == "code"))
    everything = imports.assignment_imports(load_assignment(assignment, ROOT))
    assert guard and set(guard) <= set(everything)  # the notebook's imports, all pinned for grading
    pinned = {p.split("==")[0].lower() for p in gradescope.requirements(load_assignment(assignment, ROOT))}
    assert {m for m in guard if m in ("triton", "pandas", "matplotlib")} <= pinned  # as setup.sh installs them
    # both faces call the one scan, not a copy of it
    assert release.imported_modules is imports.imported_modules
    assert not hasattr(gradescope, "imported_modules")


def test_a_workers_imports_are_named_as_imported_and_a_students_installs_by_package():
    """The zygote imports what the master imports as the master names it (`matplotlib.pyplot`: importing
    `matplotlib` alone left pyplot's font list to every worker); a student installs top-level packages."""
    sources = [
        "import matplotlib.pyplot as plt\nfrom torch.utils.data import DataLoader\nimport os.path, json",
        "from . import x\nfrom __future__ import annotations\n%matplotlib inline\nimport pandas",
    ]
    assert imports.imported_names(sources) == ["matplotlib.pyplot", "pandas", "torch.utils.data"]
    assert imports.imported_modules(sources) == ["matplotlib", "pandas", "torch"]
