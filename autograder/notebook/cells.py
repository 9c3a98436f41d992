"""How a notebook cell is named to a student: one way, everywhere (validate, feedback pages, messages).

A cell is named by its position among *all* the notebook's cells, Markdown included, counted from 1 as
Jupyter lists them top to bottom (the engine's `Cell.index`), and by its first line, which is what a
student can search for: `cell 18 (def double(x):)`.  Code-cell counts and execution counts are never
used: the first skips the Markdown a student sees, the second changes every run.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Callable, Iterable, Sequence

FIRST_LINE_CHARS = 60
_CHECK_CALL = re.compile(r"""check\(\s*["'](\w+)["']""")


def first_line(source: str) -> str:
    """The cell's first non-blank line, stripped and cut to FIRST_LINE_CHARS (with an ellipsis)."""
    line = next((ln.strip() for ln in source.splitlines() if ln.strip()), "")
    return line[:FIRST_LINE_CHARS] + ("…" if len(line) > FIRST_LINE_CHARS else "")


def cell_name(number: int | None, source: str = "") -> str:
    """`cell 18 (def double(x):)`: `source` is the cell's source or its first line ("" leaves it out)."""
    line = first_line(source)
    return f"cell {number}" + (f" ({line})" if line else "")


def exercise_order(notebook: Path) -> list[str]:
    """The exercises in the order their `check("...")` lines come in a notebook (the master's, for pages
    that list exercises as the student meets them); [] when it cannot be read."""
    try:
        data: Any = json.loads(notebook.read_text(encoding="utf-8"))
        cells = data.get("cells") or []
    except (OSError, ValueError, AttributeError):
        return []
    order: list[str] = []
    for cell in cells:
        if isinstance(cell, dict) and cell.get("cell_type") == "code":
            src = cell.get("source", "")
            for m in _CHECK_CALL.finditer("".join(src) if isinstance(src, list) else str(src)):
                if m.group(1) not in order:
                    order.append(m.group(1))
    return order


def exercise_key(order: Sequence[str]) -> Callable[[str], tuple[int, str]]:
    """The sort key of exercises on every face (the command's table, the pages' columns, menus and filters, the
    report, the feedback pages, the exports' columns and comments): the notebook's order, `order` being
    `exercise_order` of the master; an exercise it does not `check()` comes after them, alphabetically."""
    rank = {e: i for i, e in enumerate(order)}
    return lambda exercise: (rank.get(exercise, len(rank)), exercise)


def in_exercise_order(exercises: Iterable[str], order: Sequence[str]) -> list[str]:
    """`exercises`, each once, sorted by `exercise_key(order)`."""
    return sorted(dict.fromkeys(exercises), key=exercise_key(order))


def exercise_of_cells(sources: list[str]) -> list[str]:
    """The exercise each cell belongs to: a notebook is read as sections, each ending at the code cell that
    calls `check("name")` (the student's answer cells and the exercise's text come before it); cells after
    the last check belong to none ("")."""
    out, pending = [""] * len(sources), []
    for i, source in enumerate(sources):
        pending.append(i)
        name = next(iter(_CHECK_CALL.findall(source)), "")
        if name:
            for j in pending:
                out[j] = name
            pending = []
    return out


@dataclass
class Cell:
    index: int  # position in the notebook (1-based over all cells, as a student counts them)
    source: str  # as the student wrote it; the worker rewrites IPython syntax under the cell's deadline
