"""A submitted notebook as the student saw it, for a page: inert by construction and bounded.

Read with the grader's capped parse.  Markdown cells are rendered (CommonMark) and sanitised
(`escape.markdown_html`: nh3's allow-list, no script, handler, SVG or `javascript:` link); code is text;
outputs are shown as Jupyter shows them, each by the safest form it carries: a PNG or JPEG image as a `data:`
URI whose characters are checked to be base64 (the page's CSP allows images from `data:` and nothing else),
HTML (a pandas table) sanitised like Markdown, an SVG only as escaped text, an error as its name, value and
traceback (terminal colours removed), else plain text.  Every piece is cut to a cap and says so, and the whole
notebook's page stays within a budget of characters (`config.limits`: SHOWN_*; the cells past it are named,
not shown), so a page's size does not follow the notebook's.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

from autograder.config.limits import SHOWN_CELLS as MAX_CELLS
from autograder.config.limits import SHOWN_HTML as MAX_HTML
from autograder.config.limits import SHOWN_OUTPUTS as MAX_OUTPUTS
from autograder.config.limits import SHOWN_PAGE_TEXT as PAGE_BUDGET
from autograder.config.limits import SHOWN_PNG as MAX_IMAGE
from autograder.config.limits import SHOWN_TEXT as MAX_TEXT
from autograder.notebook.cells import exercise_of_cells
from autograder.notebook.parse import InvalidNotebook, _cells, read_notebook
from autograder.report.escape import clean_html, controls, markdown_html

_BASE64 = re.compile(r"[A-Za-z0-9+/=\s]+\Z")
_ANSI = re.compile(r"\x1b\[[0-9;?]*[A-Za-z]")


def _joined(value: Any) -> str:
    if isinstance(value, list):
        value = "".join(v for v in value if isinstance(v, str))
    return value if isinstance(value, str) else ""


def _text(value: Any, cap: int = MAX_TEXT) -> str:
    value = _joined(value)
    return value if len(value) <= cap else value[:cap] + f"\n... (cut: {len(value) - cap:,} more characters)"


def _image(data: dict[str, Any]) -> str:
    for kind in ("png", "jpeg"):
        b64 = _joined(data.get(f"image/{kind}"))
        if b64 and len(b64) <= MAX_IMAGE and _BASE64.match(b64):
            return f"data:image/{kind};base64," + re.sub(r"\s", "", b64)
    return ""


def _output(o: Any) -> dict[str, Any] | None:
    """{"kind": text | error | html | image | svg, "text", "html", "src"} of one output, or None."""
    if not isinstance(o, dict):
        return None
    kind = o.get("output_type")
    if kind == "stream":
        return {"kind": "text", "text": _text(o.get("text"))}
    if kind == "error":
        lines = (
            [_ANSI.sub("", t) for t in (o.get("traceback") or [])[:200] if isinstance(t, str)]
            if isinstance(o.get("traceback"), list)
            else []
        )
        head = f"{_joined(o.get('ename'))}: {_joined(o.get('evalue'))}"
        return {"kind": "error", "text": _text(controls("\n".join(lines) if lines else head, "\n\t"))}
    data: dict[str, Any] = o["data"] if isinstance(o.get("data"), dict) else {}
    src = _image(data)
    if src:
        return {"kind": "image", "src": src}
    html = _joined(data.get("text/html"))
    if html and len(html) <= MAX_HTML:
        return {"kind": "html", "html": clean_html(html)}
    md = _joined(data.get("text/markdown"))
    if md and len(md) <= MAX_HTML:
        return {"kind": "html", "html": markdown_html(md)}
    if "text/plain" in data:
        return {"kind": "text", "text": _text(data["text/plain"])}
    if "image/svg+xml" in data:  # an SVG can carry script and handlers: shown as its text, never drawn
        return {"kind": "svg", "text": _text(data["image/svg+xml"], 2000)}
    return None


def _size(cell: dict[str, Any]) -> int:
    return (
        len(cell["source"])
        + len(str(cell.get("html") or ""))
        + sum(len(o.get("text", "")) + len(str(o.get("html", ""))) + len(o.get("src", "")) for o in cell["outputs"])
    )


def _cut(number: int, first: int, last: int, exercise: str) -> dict[str, Any]:
    """A cell past the page's budget: named (in its exercise's section), not shown."""
    return {
        "number": number,
        "type": "cut",
        "html": None,
        "outputs": [],
        "fail": False,
        "exercise": exercise,
        "source": f"[{number}] not shown: cells {first} to {last} are past this page's budget of "
        f"{PAGE_BUDGET:,} characters",
    }


def render(path: Path, failing: set[int]) -> tuple[list[dict[str, Any]], str]:
    """(cells to show, why none can be shown): each {number, type, source, html, outputs, fail, exercise}
    (`html`: a Markdown cell rendered and sanitised); each cell past the page budget as {"type": "cut"}."""
    try:
        cells, key = _cells(read_notebook(path))
    except (InvalidNotebook, OSError) as e:
        return [], str(e)
    cells = [c for c in cells[:MAX_CELLS] if isinstance(c, dict)]
    sources = [_text(c.get(key)) for c in cells]
    exercises = exercise_of_cells([s if c.get("cell_type") == "code" else "" for s, c in zip(sources, cells)])
    shown: list[dict[str, Any]] = []
    used, first_cut = 0, 0
    for number, (cell, source, exercise) in enumerate(zip(cells, sources, exercises), start=1):
        kind = cell.get("cell_type") if cell.get("cell_type") in ("code", "markdown", "raw") else "raw"
        if first_cut:  # past the budget: named in its exercise, not rendered
            shown.append(_cut(number, first_cut, len(cells), exercise))
            continue
        outputs = [
            x
            for x in (
                _output(o) for o in (cell.get("outputs") or [])[:MAX_OUTPUTS] if isinstance(cell.get("outputs"), list)
            )
            if x
        ]
        html = markdown_html(source) if kind == "markdown" and len(source) <= MAX_HTML else None
        c = {
            "number": number,
            "type": kind,
            "source": source,
            "html": html,
            "outputs": outputs,
            "fail": number in failing,
            "exercise": exercise,
        }
        used += _size(c)
        if used > PAGE_BUDGET:
            first_cut = number
            shown.append(_cut(number, first_cut, len(cells), exercise))
            continue
        shown.append(c)
    return shown, ""


def same_code(source: str) -> str:
    """A code cell as compared with the released notebook's: trailing spaces and blank lines do not count."""
    return "\n".join(line.rstrip() for line in source.strip().splitlines())


def code_cells(path: Path) -> frozenset[str]:
    """The code cells of a notebook (the released one), each as `same_code` reads it; empty when unreadable."""
    try:
        cells, key = _cells(read_notebook(path))
    except (InvalidNotebook, OSError):
        return frozenset()
    return frozenset(
        same_code(_text(c.get(key))) for c in cells[:MAX_CELLS] if isinstance(c, dict) and c.get("cell_type") == "code"
    )


def answer_cells(
    path: Path, exercise: str, failing: set[int], released: frozenset[str] = frozenset()
) -> list[dict[str, Any]]:
    """The code cells a student wrote for `exercise` (its section of the notebook, `exercise_of_cells`,
    without the cell that calls `check`), as text: {number, source, fail}.  A cell as the released notebook
    handed it out (`released`: setup, imports, `Checker(...)`, an untouched stub) is left out, unless it failed:
    in a group of 80 the TA reads what each student wrote, not the scaffolding they all share.
    [] when it cannot be read."""
    try:
        cells, key = _cells(read_notebook(path))
    except (InvalidNotebook, OSError):
        return []
    cells = [c for c in cells[:MAX_CELLS] if isinstance(c, dict)]
    sources = [_text(c.get(key)) if c.get("cell_type") == "code" else "" for c in cells]
    return [
        {"number": n, "source": src, "fail": n in failing}
        for n, (src, ex) in enumerate(zip(sources, exercise_of_cells(sources)), start=1)
        if ex == exercise
        and src.strip()
        and f'check("{exercise}")' not in src
        and f"check('{exercise}')" not in src
        and (n in failing or same_code(src) not in released)
    ]
