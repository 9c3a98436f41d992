"""Turn a submitted `.ipynb` into the list of code cells a worker executes.

Runs in the trusted process, on hostile bytes, so it only does work that is linear in the
file and capped by it: a bounded read, UTF-8 decoding, `json.loads` (C code; its recursion
guard is the depth guard) behind a cheap cap on the number of JSON containers (which bounds
the memory the parsed tree takes), then a hand-written check of just the fields the grader
uses.  It never interprets student text: IPython syntax (`%magic`, `!shell`) is rewritten by
the worker, under the cell's CPU deadline (IPython's transformer is quadratic in a cell of
magic lines), and nbformat/jsonschema validation is not run (the grader needs only the
cells' types and sources; one small check of those replaces a schema library).  Messages
never quote the file's content, only positions, cell numbers and JSON type names.
"""

from __future__ import annotations

import gc
import json
from pathlib import Path
from typing import Any

from autograder.notebook.cells import Cell

MAX_NOTEBOOK_BYTES = 20 * 2**20  # the whole file, outputs included
MAX_CELLS = 2000  # cells of any type
MAX_CELL_SOURCE = 2**20  # characters of one code cell
MAX_JSON_CONTAINERS = 1_000_000  # '{' and '[' characters in the file (an upper bound on objects + arrays)

_CHUNK = 2**20
_NBFORMATS = (3, 4)  # v3 (worksheets, `input`) is read as it is; older files are refused


class InvalidNotebook(Exception):
    """The file cannot be graded as a notebook; the message says why, for the student."""


def read_notebook(path: Path, max_bytes: int = MAX_NOTEBOOK_BYTES) -> dict[str, Any]:
    """The file's JSON, read with the size cap holding while reading (not a stat beforehand)."""
    raw = bytearray()
    with open(path, "rb") as f:  # in chunks: read(max_bytes + 1) would allocate the whole cap up front
        while len(raw) <= max_bytes and (chunk := f.read(min(_CHUNK, max_bytes + 1 - len(raw)))):
            raw += chunk
    if len(raw) > max_bytes:
        raise InvalidNotebook(
            f"the notebook is over the {max_bytes / 2**20:.0f} MiB limit (clear the outputs before submitting)"
        )
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as e:
        raise InvalidNotebook(f"the file is not UTF-8 text (byte {e.start}); save it again from Jupyter") from None
    del raw
    if text.count("{") + text.count("[") > MAX_JSON_CONTAINERS:
        raise InvalidNotebook(
            f"the notebook holds over {MAX_JSON_CONTAINERS:,} JSON objects or brackets "
            "(clear the outputs before submitting)"
        )
    collecting = gc.isenabled()
    gc.disable()  # a parsed JSON tree holds no cycles; collecting while it grows cost 4-14x the parse
    try:
        data = _loads(text)
    except RecursionError:
        raise InvalidNotebook("the file's JSON is nested too deeply") from None
    finally:
        if collecting:
            gc.enable()
    if not isinstance(data, dict) or "cells" not in data and "worksheets" not in data:
        raise InvalidNotebook("the file is JSON but not a Jupyter notebook")
    return data


def _loads(text: str) -> Any:
    """`json.loads`, every refusal an `InvalidNotebook`.  Valid JSON can still fail to load: a number of
    more digits than Python converts (`sys.set_int_max_str_digits`, 4300) raised a plain ValueError, and the
    submission became a grader error.  No Jupyter writes one, so the file is refused, saying why (reading it
    again with such numbers set aside would cost a hostile file 3-4x the parse: a Python call per number)."""
    try:
        return json.loads(text)
    except json.JSONDecodeError as e:
        raise InvalidNotebook(
            f"the file is not valid notebook JSON (line {e.lineno}, column {e.colno}: {e.msg}); "
            "it may be truncated or edited by hand"
        ) from None
    except ValueError as e:
        why = "a number too long to read" if "digits" in str(e) else type(e).__name__
        raise InvalidNotebook(
            f"the file cannot be read as a notebook ({why}); it was edited by hand or by a "
            "program: save it again from Jupyter"
        ) from None


def _bad(what: str) -> InvalidNotebook:
    return InvalidNotebook(f"the notebook does not follow the Jupyter format: {what}")


def _kind(value: Any) -> str:
    """The JSON type of a value, for messages (never the value itself)."""
    names = {
        dict: "an object",
        list: "a list",
        str: "a string",
        bool: "true/false",
        int: "a number",
        float: "a number",
        type(None): "null",
    }
    return names.get(type(value), "something else")


def _int_field(data: dict[str, Any], key: str) -> int:
    value = data.get(key)
    if type(value) is not int:
        raise _bad(f"`{key}` must be an integer, not {_kind(value)}")
    return value


def _cells(data: dict[str, Any]) -> tuple[list[Any], str]:
    """The notebook's cells and the field their code is in, for nbformat 4 or 3."""
    major = _int_field(data, "nbformat")
    _int_field(data, "nbformat_minor")
    if major not in _NBFORMATS:
        raise _bad(f"nbformat {major} is not supported (only {' and '.join(map(str, _NBFORMATS))})")
    if "metadata" in data and type(data["metadata"]) is not dict:
        raise _bad(f"the notebook's `metadata` must be an object, not {_kind(data['metadata'])}")
    if major == 4:
        cells = data.get("cells")
        if type(cells) is not list:
            raise _bad(f"`cells` must be a list, not {_kind(cells)}")
        return cells, "source"
    sheets = data.get("worksheets")
    if type(sheets) is not list or any(type(s) is not dict or type(s.get("cells")) is not list for s in sheets):
        raise _bad("`worksheets` must be a list of objects with a `cells` list")
    return [c for s in sheets for c in s["cells"]], "input"


def _source(cell: dict[str, Any], key: str, number: int) -> str:
    src = cell.get(key)
    if type(src) is list and all(type(line) is str for line in src):
        src = "".join(src)
    if type(src) is not str:
        raise _bad(f"cell {number}: `{key}` must be a string or a list of strings, not {_kind(cell.get(key))}")
    if len(src) > MAX_CELL_SOURCE:
        raise InvalidNotebook(
            f"cell {number} has {len(src):,} characters of code, over the limit of {MAX_CELL_SOURCE:,} per cell"
        )
    return src


def code_cells(data: dict[str, Any]) -> list[Cell]:
    """Code cells, numbered 1.. over all cells (as a student counts them), source as written."""
    cells, key = _cells(data)
    if len(cells) > MAX_CELLS:
        raise InvalidNotebook(f"the notebook has {len(cells)} cells, over the limit of {MAX_CELLS}")
    out = []
    for number, cell in enumerate(cells, start=1):
        if type(cell) is not dict:
            raise _bad(f"cell {number} must be an object, not {_kind(cell)}")
        kind = cell.get("cell_type")
        if type(kind) is not str:
            raise _bad(f"cell {number}: `cell_type` must be a string, not {_kind(kind)}")
        if "metadata" in cell and type(cell["metadata"]) is not dict:
            raise _bad(f"cell {number}: `metadata` must be an object, not {_kind(cell['metadata'])}")
        if kind == "code":
            out.append(Cell(index=number, source=_source(cell, key, number)))
    return out


def load_cells(path: Path) -> list[Cell]:
    return code_cells(read_notebook(path))
