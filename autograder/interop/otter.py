"""Export an otter-grader (v7, "otter assign" v1 format) master notebook for an assignment.

Each master cell with a solution block becomes one otter question (`# BEGIN QUESTION`,
points split evenly over the assignment's total), its `### BEGIN SOLUTION` block becomes
otter's `# BEGIN SOLUTION` / `# END SOLUTION`, and each question gets one public test that
checks the names the cell defines exist and are not stubs.  The kit's real tests (probes,
torch-aware checks, hidden tests) cannot be translated into otter's doctests faithfully;
otter is for courses that must use it: grade with the kit, export with `autograder export`.
"""
from __future__ import annotations

import ast
import json
from pathlib import Path

import nbformat

from autograder.notebook.release import BEGIN, END


def _defined_names(source: str) -> list[str]:
    try:
        tree = ast.parse(source.replace(BEGIN, "#").replace(END, "#"))
    except SyntaxError:
        return []
    names = []
    for node in tree.body:
        if isinstance(node, (ast.FunctionDef, ast.ClassDef)):
            names.append(node.name)
        elif isinstance(node, ast.Assign):
            names += [t.id for t in node.targets if isinstance(t, ast.Name)]
    return names


def otter_master(kit: Path, assignment: str) -> nbformat.NotebookNode:
    from autograder.assignment import load_assignment

    a = load_assignment(assignment, kit)
    master = nbformat.read(a.solution, as_version=4)
    questions = [c for c in master.cells if c.cell_type == "code" and BEGIN in c.source]
    points = round(a.total_points / max(1, len(questions)), 4)
    cells = [nbformat.v4.new_raw_cell(f"# ASSIGNMENT CONFIG\nname: {a.id}\nexport_cell: false\n"
                                      "generate: true\ncheck_all_cell: false\ninit_cell: true\nrequirements: null")]
    q = 0
    for c in master.cells:
        if c.cell_type != "code" or BEGIN not in c.source:
            cells.append(nbformat.v4.new_markdown_cell(c.source) if c.cell_type == "markdown"
                         else nbformat.v4.new_code_cell(c.source))
            continue
        q += 1
        names = _defined_names(c.source) or ["_"]
        cells.append(nbformat.v4.new_raw_cell(f"# BEGIN QUESTION\nname: q{q}\npoints: {points:g}"))
        cells.append(nbformat.v4.new_markdown_cell(f"**Question {q}.** Complete the cell below."))
        cells.append(nbformat.v4.new_raw_cell("# BEGIN SOLUTION"))      # otter: the solution cells ...
        cells.append(nbformat.v4.new_code_cell(c.source.replace(BEGIN, "# BEGIN SOLUTION")
                                               .replace(END, "# END SOLUTION")))   # ... and the lines stripped
        cells.append(nbformat.v4.new_raw_cell("# END SOLUTION"))
        cells.append(nbformat.v4.new_raw_cell("# BEGIN TESTS"))
        check = " and ".join(f"{n!r} in globals()" for n in names)
        cells.append(nbformat.v4.new_code_cell(f"assert {check}, 'run the cell above'"))
        cells.append(nbformat.v4.new_raw_cell("# END TESTS"))
        cells.append(nbformat.v4.new_raw_cell("# END QUESTION"))
    nb = nbformat.v4.new_notebook(cells=cells)
    nb.metadata = {"kernelspec": {"display_name": "Python 3", "language": "python", "name": "python3"},
                   "language_info": {"name": "python"}}
    return nb


def write_otter_master(kit: Path, assignment: str, dest_dir: Path) -> Path:
    dest = dest_dir / f"{assignment}.ipynb"
    dest.parent.mkdir(parents=True, exist_ok=True)
    nbformat.write(otter_master(kit, assignment), dest)
    return dest


__all__ = ["otter_master", "write_otter_master", "json"]
