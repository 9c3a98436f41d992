"""Generate the student notebook (and its self-check bundle) from the master notebook.

Deterministic by construction: the output depends only on the master's content (cell ids
are kept, outputs and execution counts dropped, JSON written with sorted keys), so
regenerating gives byte-identical files and CI can fail when `student/` is stale.
Solution cells get nbgrader metadata (schema 3), so the same notebook works in nbgrader.
"""
from __future__ import annotations

import hashlib
import json
import re
import shutil
from pathlib import Path

import nbformat

BEGIN, END = "### BEGIN SOLUTION", "### END SOLUTION"
STUB = "raise NotImplementedError()"
_BLOCK = re.compile(r"^([ \t]*)" + re.escape(BEGIN) + r"[^\n]*\n.*?^[ \t]*" + re.escape(END) + r"[^\n]*(\n|$)", re.M | re.S)


class ReleaseError(ValueError):
    pass


def strip_solutions(source: str) -> str:
    """Replace each solution block by a stub at the block's indentation."""
    if source.count(BEGIN) != source.count(END):
        raise ReleaseError("unbalanced solution markers")

    def stub(m: re.Match) -> str:
        ind = m.group(1)
        return f"{ind}# YOUR CODE HERE\n{ind}{STUB}{m.group(2)}"

    out = _BLOCK.sub(stub, source)
    if BEGIN in out or END in out:
        raise ReleaseError("nested or malformed solution markers")
    return out


def student_notebook(master: nbformat.NotebookNode, assignment: str) -> nbformat.NotebookNode:
    nb = nbformat.from_dict(master)
    for i, cell in enumerate(nb.cells):
        src = cell.source
        is_solution = cell.cell_type == "code" and BEGIN in src
        if cell.cell_type == "code":
            cell.source = strip_solutions(src)
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
        "autograder": {"assignment": assignment},
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


def release(kit: Path, assignment: str, out_dir: Path | None = None) -> list[Path]:
    """Write student/<id>.ipynb and student/<id>/{probes.py, public/}; return the written paths."""
    out_dir = out_dir or kit / "student"
    master = read_master(kit / "solutions" / f"{assignment}.ipynb")
    nb_path = out_dir / f"{assignment}.ipynb"
    write_deterministic(student_notebook(master, assignment), nb_path)
    bundle = out_dir / assignment
    if bundle.exists():
        shutil.rmtree(bundle)
    src = kit / "assignments" / assignment
    (bundle / "public").mkdir(parents=True)
    written = [nb_path]
    for f in [src / "probes.py", *sorted((src / "public").glob("*.py"))]:
        dst = bundle / f.relative_to(src)
        dst.write_bytes(f.read_bytes())
        written.append(dst)
    return written
