"""Turn a submitted `.ipynb` into the list of code cells a worker executes.

Runs in the trusted process but never executes anything: it checks size and encoding,
validates the JSON against the nbformat schema (v3 and older are upgraded to v4), and
rewrites IPython syntax (`%magic`, `!shell`) into plain Python with IPython's own input
transformer, so the worker needs neither IPython nor a kernel.
"""
from __future__ import annotations

import json
from pathlib import Path

import nbformat
from IPython.core.inputtransformer2 import TransformerManager

from autograder.execute.runner import Cell

MAX_NOTEBOOK_BYTES = 20 * 2**20
MAX_CELLS = 2000


class InvalidNotebook(Exception):
    """The file cannot be graded as a notebook; the message says why, for the student."""


def read_notebook(path: Path, max_bytes: int = MAX_NOTEBOOK_BYTES) -> nbformat.NotebookNode:
    size = path.stat().st_size
    if size > max_bytes:
        raise InvalidNotebook(f"the notebook is {size / 2**20:.1f} MiB, over the {max_bytes / 2**20:.0f} MiB limit "
                              "(clear the outputs before submitting)")
    raw = path.read_bytes()
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as e:
        raise InvalidNotebook(f"the file is not UTF-8 text (byte {e.start}); save it again from Jupyter") from None
    try:
        data = json.loads(text)
    except json.JSONDecodeError as e:
        raise InvalidNotebook(f"the file is not valid notebook JSON (line {e.lineno}, column {e.colno}: {e.msg}); "
                              "it may be truncated or edited by hand") from None
    except RecursionError:
        raise InvalidNotebook("the file's JSON is nested too deeply") from None
    if not isinstance(data, dict) or "cells" not in data and "worksheets" not in data:
        raise InvalidNotebook("the file is JSON but not a Jupyter notebook")
    try:
        nb = nbformat.reads(text, as_version=4)
        nbformat.validate(nb)
    except Exception as e:  # noqa: BLE001 - nbformat raises several unrelated types
        raise InvalidNotebook(f"the notebook does not follow the Jupyter format: {str(e).splitlines()[0][:300]}") from None
    return nb


def code_cells(nb: nbformat.NotebookNode) -> list[Cell]:
    """Code cells (numbered 1.. over all cells, as a student counts them), IPython syntax rewritten."""
    if len(nb.cells) > MAX_CELLS:
        raise InvalidNotebook(f"the notebook has {len(nb.cells)} cells, over the limit of {MAX_CELLS}")
    tm = TransformerManager()
    cells = []
    for i, cell in enumerate(nb.cells, start=1):
        if cell.get("cell_type") != "code":
            continue
        src = cell.get("source", "")
        src = "".join(src) if isinstance(src, list) else str(src)
        try:
            py = tm.transform_cell(src)
        except Exception:  # noqa: BLE001 - leave it to compile() in the worker to report
            py = src
        cells.append(Cell(index=i, source=py, original=src))
    return cells


def load_cells(path: Path) -> list[Cell]:
    return code_cells(read_notebook(path))
