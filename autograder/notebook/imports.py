"""What a notebook or an assignment imports, read (never run) with `ast`: one scan for the released
setup cell's import guard (student.release) and the Gradescope zip's pinned installs (interop.gradescope),
so a student is told to install exactly what the grader installs."""

from __future__ import annotations

import ast
import re
import sys
from pathlib import Path
from typing import Any, Iterable

from autograder.notebook.parse import InvalidNotebook, load_cells

_MAGIC = re.compile(r"^([ \t]*)([%!])", re.M)  # IPython lines (%magic, !shell): they import nothing


def without_ipython(src: str) -> str:
    """The cell with its IPython lines (`%magic`, `!shell`) made comments, line numbers kept: Python that
    `ast` reads without running anything (the worker's IPython transformer is not for the trusted side)."""
    return _MAGIC.sub(r"\1#\2", src)


def imported_names(sources: Iterable[str]) -> list[str]:
    """The modules `sources` import that the standard library does not provide, named as they import them
    (`matplotlib.pyplot`; `from torch.utils.data import X`: `torch.utils.data`), sorted.  Relative imports and
    `__future__` are left out; a source that is not Python even without its IPython lines counts for nothing."""
    found: set[str] = set()
    for src in sources:
        try:
            tree = ast.parse(src)
        except SyntaxError:
            try:
                tree = ast.parse(without_ipython(src))
            except SyntaxError:
                continue
        for node in ast.walk(tree):
            if isinstance(node, ast.Import):
                found.update(alias.name for alias in node.names)
            elif isinstance(node, ast.ImportFrom) and not node.level and node.module:
                found.add(node.module)
    return sorted(m for m in found if m.split(".")[0] not in sys.stdlib_module_names and m != "__future__")


def imported_modules(sources: Iterable[str]) -> list[str]:
    """The top-level modules `sources` import that the standard library does not provide, sorted: what a
    student installs."""
    return sorted({m.split(".")[0] for m in imported_names(sources)})


def worker_imports(master: Path, probes: Path) -> list[str]:
    """What a worker of an assignment imports, named as imported: its master notebook (as students' notebooks
    do) and its probes; a file that is missing or unreadable counts for nothing.  The zygote imports these once."""
    sources: list[str] = []
    try:
        sources += [c.source for c in load_cells(master)]
    except (OSError, ValueError, InvalidNotebook):
        pass
    try:
        sources.append(probes.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        pass
    return imported_names(sources)


def assignment_imports(assignment: Any) -> list[str]:
    """What an `assignment.Assignment`'s own code imports: its master notebook, probes, tests and conftest."""
    sources = [c.source for c in load_cells(assignment.solution)]
    sources += [p.read_text(encoding="utf-8") for p in sorted(assignment.root.rglob("*.py"))]
    return imported_modules(sources)
