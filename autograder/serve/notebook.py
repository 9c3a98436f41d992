"""A submitted notebook as a page shows it: inert by construction, not by filtering.

Read with the grader's capped parse.  Code and markdown are shown as text (markdown is not rendered: a
student's HTML stays text), outputs as their plain text only (streams, `text/plain`, an error's name and
value); the one rich output kept is a PNG image, as a `data:` URI whose characters are checked to be
base64 (the page's CSP allows images from `data:` and nothing else).  Every piece is cut to a cap.
"""
from __future__ import annotations

import re
from pathlib import Path
from typing import Any

from autograder.notebook.parse import InvalidNotebook, _cells, read_notebook

MAX_TEXT = 20_000          # characters of one cell's source or of one output shown
MAX_PNG = 2 * 2**20        # base64 characters of one image
MAX_OUTPUTS = 20           # outputs of one cell shown
_BASE64 = re.compile(r"[A-Za-z0-9+/=\s]+\Z")


def _text(value: Any) -> str:
    if isinstance(value, list):
        value = "".join(v for v in value if isinstance(v, str))
    if not isinstance(value, str):
        return ""
    return value if len(value) <= MAX_TEXT else value[:MAX_TEXT] + "\n... (cut)"


def _output(o: Any) -> dict[str, str] | None:
    """{"text", "png", "error"} of one output, or None when it has nothing shown as text or PNG."""
    found = _found(o)
    return {"text": "", "png": "", "error": "", **found} if found else None


def _found(o: Any) -> dict[str, str] | None:
    if not isinstance(o, dict):
        return None
    kind = o.get("output_type")
    if kind == "stream":
        return {"text": _text(o.get("text"))}
    if kind == "error":
        return {"text": _text(f"{_text(o.get('ename'))}: {_text(o.get('evalue'))}"), "error": "1"}
    data = o.get("data") if isinstance(o.get("data"), dict) else {}
    png = data.get("image/png")
    if isinstance(png, list):
        png = "".join(p for p in png if isinstance(p, str))
    if isinstance(png, str) and len(png) <= MAX_PNG and _BASE64.match(png):
        return {"png": re.sub(r"\s", "", png)}
    if "text/plain" in data:
        return {"text": _text(data["text/plain"])}
    return None


def render(path: Path, failing: set[int]) -> tuple[list[dict[str, Any]], str]:
    """(cells to show, why none can be shown): each {number, type, source, outputs, fail}."""
    try:
        cells, key = _cells(read_notebook(path))
    except (InvalidNotebook, OSError) as e:
        return [], str(e)
    shown = []
    for number, cell in enumerate(cells[:2000], start=1):
        if not isinstance(cell, dict):
            continue
        kind = cell.get("cell_type") if cell.get("cell_type") in ("code", "markdown", "raw") else "raw"
        outputs = [x for x in (_output(o) for o in (cell.get("outputs") or [])[:MAX_OUTPUTS]
                               if isinstance(cell.get("outputs"), list)) if x]
        shown.append({"number": number, "type": kind, "source": _text(cell.get(key)), "outputs": outputs,
                      "fail": number in failing})
    return shown, ""
