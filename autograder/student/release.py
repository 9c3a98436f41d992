"""Generate the student notebook from the master notebook.

Deterministic by construction: the output depends only on the master's content and the
assignment's public checks (cell ids are kept, outputs and execution counts dropped, JSON
written with sorted keys), so regenerating gives byte-identical files and CI can fail when
`student/` is stale.  Solution cells get nbgrader metadata (schema 3), so the same notebook
works in nbgrader.  The checks themselves are not copied next to the notebook: they ship in the
student package (`autograder.student.public_checks`), and the notebook carries their version, so a notebook
alone (Colab) can check itself and an outdated one says so instead of checking the wrong tests.
Its first code cell starts with a guard: every package the notebook imports is looked up before any
import runs, and one missing says, once, the install line that brings them all (README "For students"):
the `course` extra, with the TensorFlow extra for a notebook that imports TensorFlow or Keras.
`self_checking` is that transformation alone: the nbgrader source notebook gets it too.
"""
from __future__ import annotations

import hashlib
import json
import re
from pathlib import Path

import nbformat

from autograder.student import public_checks
from autograder.notebook.imports import imported_modules
from autograder.notebook.stub import stub
from autograder.student.verdicts import INSTALL

BEGIN, END = "### BEGIN SOLUTION", "### END SOLUTION"
_BLOCK = re.compile(r"^([ \t]*)" + re.escape(BEGIN) + r"[^\n]*\n.*?^[ \t]*" + re.escape(END) + r"[^\n]*(\n|$)", re.M | re.S)


_GUARD = """# Install once:  {install}{where}, then restart the kernel.
# Checked before anything is imported, so a missing package says so here, once:
import importlib.util
_missing = [m for m in {modules!r} if importlib.util.find_spec(m) is None]
if _missing:
    raise ImportError("Not installed: " + ", ".join(_missing) + {tail!r})
del _missing

"""
_SUBMIT = """## Before you submit

Save the notebook first (the saved file is what runs), then run the cell below.  It runs the whole
notebook top to bottom in a fresh kernel, as the grader will, then every public check, and lists what
is left to do: exercises not answered yet, failing checks with their hints, errors with their line, slow
cells.  From a terminal, `autograder validate NOTEBOOK.ipynb` does the same."""


class ReleaseError(ValueError):
    pass


# Extras a notebook needs besides `course`, by what it imports: TensorFlow is a large download that the
# PyTorch notebooks do without, so only the notebooks that import it name its extra (pyproject.toml).
_EXTRA_FOR = {"tensorflow": "tensorflow", "keras": "tensorflow"}


_WHERE = "  (LINK: the link your course gives)"  # after an install line whose link the course file did not fill


def install_line(modules: list[str] | tuple[str, ...], link: str | None = None) -> str:
    """The one install line for a notebook importing `modules`: checking.INSTALL, with the extras they need and the
    course's package `link` (course.toml `[course] package`, `config.course.package_link`) for LINK."""
    extras = sorted({_EXTRA_FOR[m] for m in modules if m in _EXTRA_FOR})
    line = INSTALL.replace("[course]", "[" + ",".join(["course", *extras]) + "]")
    return line.replace(" @ LINK", f" @ {link}") if link else line


def strip_solutions(source: str) -> str:
    """Replace each solution block by a stub at the block's indentation."""
    if source.count(BEGIN) != source.count(END):
        raise ReleaseError("unbalanced solution markers")

    out = _BLOCK.sub(lambda m: stub(m.group(1)) + m.group(2), source)
    if BEGIN in out or END in out:
        raise ReleaseError("nested or malformed solution markers")
    return out


def self_checking(nb: nbformat.NotebookNode, assignment: str, version: str, link: str | None = None) -> None:
    """In place: the notebook's `Checker("<assignment>")` tied to the checks' `version`, and the import guard
    (naming what the notebook's code cells import, and the install line with the course's package `link`) at the
    top of its first code cell."""
    code = [c for c in nb.cells if c.cell_type == "code"]
    for cell in code:
        cell.source = cell.source.replace(f'Checker("{assignment}")', f'Checker("{assignment}", version="{version}")')
    modules = tuple(imported_modules([strip_solutions(c.source) for c in code]))
    if modules:
        install, where = install_line(modules, link), "" if link else _WHERE
        tail = f".  Run  {install}{where}, then restart the kernel."
        code[0].source = _GUARD.format(install=install, where=where, modules=modules, tail=tail) + code[0].source


def student_notebook(master: nbformat.NotebookNode, assignment: str, version: str,
                     link: str | None = None) -> nbformat.NotebookNode:
    """Stubs for solutions; a notebook that checks itself gets its setup cell tied to the checks' `version`,
    the import guard and a last cell running `check.all()`."""
    nb = nbformat.from_dict(master)
    if any(f'Checker("{assignment}")' in c.source for c in nb.cells if c.cell_type == "code"):
        nb.cells += [nbformat.v4.new_markdown_cell(_SUBMIT, id="before-you-submit"),
                     nbformat.v4.new_code_cell("check.all()", id="check-all")]
    self_checking(nb, assignment, version, link)
    for i, cell in enumerate(nb.cells):
        is_solution = cell.cell_type == "code" and BEGIN in cell.source
        if cell.cell_type == "code":
            cell.source = strip_solutions(cell.source)
            cell.outputs = []
            cell.execution_count = None
        cell.metadata = {
            "nbgrader": {
                "grade": False, "solution": is_solution, "locked": not is_solution, "task": False,
                "grade_id": f"{assignment}-cell-{cell.get('id', i)}", "schema_version": 3,
            }
        }
    nb.metadata = {
        "kernelspec": {"display_name": "Python 3", "language": "python", "name": "python3"},
        "language_info": {"name": "python"},
        "autograder": {"assignment": assignment, "version": version},
    }
    return nb


def write_deterministic(nb: nbformat.NotebookNode, path: Path) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    text = nbformat.writes(nb, version=4)
    path.write_text(text if text.endswith("\n") else text + "\n", encoding="utf-8")


def read_master(path: Path) -> nbformat.NotebookNode:
    """The master notebook, with cell ids derived from content where it has none.

    nbformat would invent random ids when upgrading an older notebook, and the release must
    be byte-identical each time it is generated.
    """
    data = json.loads(path.read_text(encoding="utf-8"))
    if data.get("nbformat") == 4:
        for i, cell in enumerate(data.get("cells", [])):
            if "id" not in cell:
                src = cell.get("source", "")
                src = "".join(src) if isinstance(src, list) else src
                cell["id"] = hashlib.sha1(f"{i}\0{src}".encode()).hexdigest()[:8]
        data["nbformat_minor"] = max(5, int(data.get("nbformat_minor", 5)))
    return nbformat.reads(json.dumps(data), as_version=4)


def release(kit: Path, assignment: str, out_dir: Path | None = None, link: str | None = None) -> list[Path]:
    """Write student/<id>.ipynb, its install line naming the course's package `link`; return the written paths."""
    out_dir = out_dir or kit / "student"
    master = read_master(kit / "solutions" / f"{assignment}.ipynb")
    nb_path = out_dir / f"{assignment}.ipynb"
    version = public_checks.version(kit / "assignments" / assignment)
    write_deterministic(student_notebook(master, assignment, version, link), nb_path)
    return [nb_path]
