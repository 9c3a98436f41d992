"""Attack class 1: make the trusted side work hard on the notebook file itself.

The judge reads every submission before any worker limit applies, so what it does with the file must
be linear in the file and capped (docs/security.md, "Limits"); anything that interprets student text
(IPython's transformer, which re-tokenizes a cell once per magic line) runs in the worker, under the
cell's CPU deadline.  Each attack states its honest credit and status; `trusted_parse_cpu` re-runs the
judge's parse of the same file and bounds its CPU time (the red team's magic notebook cost 41-47 s).
"""

from __future__ import annotations

import json
import time
from typing import Callable

import nbformat

from autograder.notebook.parse import MAX_CELL_SOURCE, MAX_CELLS, MAX_JSON_CONTAINERS, InvalidNotebook, load_cells
from tests.attacks.corpus import FULL, Attack, Ctx, cell_statuses, has_text, nb, notebook

# 499 line magics (the most IPython's transformer iterates for) then plain lines: ~14 s of CPU to
# rewrite on an idle core, growing with the cell's size; the red team's notebook was 70 KB of these
MAGIC_HEAVY = "%time x = 1\n" * 499 + "y = 1\n" * 2000


def trusted_parse_cpu(seconds: float = 1.0) -> Callable:
    """The judge's work on this file before any worker (read, decode, JSON, structure) stays small."""

    def check(r, ctx: Ctx) -> None:
        path = ctx.tmp / f"{r.submission_id}.ipynb"
        t0 = time.process_time()
        try:
            load_cells(path)
        except InvalidNotebook:
            pass
        spent = time.process_time() - t0
        assert spent < seconds, f"parsing {path.name} cost the judge {spent:.2f} s of CPU"

    check.__name__ = f"trusted_parse_cpu<{seconds}"
    return check


def _edited(name: str, edit: Callable[[dict], None]) -> Callable[[Ctx], object]:
    """The master's JSON with `edit` applied (fields nbformat itself would refuse to write)."""

    def build(ctx: Ctx):
        data = json.loads(ctx.master.read_text(encoding="utf-8"))
        edit(data)
        path = ctx.tmp / f"{name}.ipynb"
        path.write_text(json.dumps(data), encoding="utf-8")
        return path

    return build


def _first_code(data: dict) -> dict:
    return next(c for c in data["cells"] if c["cell_type"] == "code")


def _deep_metadata(data: dict) -> None:
    data["metadata"]["deep"] = "@DEEP@"


def _deep_json(ctx: Ctx):
    path = _edited("deep_json", _deep_metadata)(ctx)
    path.write_text(path.read_text().replace('"@DEEP@"', "[" * 100_000 + "]" * 100_000))
    return path


def _long_number(ctx: Ctx):
    """Valid JSON that json.loads refuses with a plain ValueError: a number past Python's 4300 digits."""
    path = _edited("number_too_long", _deep_metadata)(ctx)
    path.write_text(path.read_text().replace('"@DEEP@"', "7" * 5000))
    return path


def _many_cells(ctx: Ctx):
    master = nbformat.read(ctx.master, as_version=4)
    filler = MAX_CELLS - len(master.cells)
    return notebook(ctx, "many_cells_at_cap", append=["%time z = 1"] * filler)


def attacks() -> list[Attack]:
    A = Attack
    return [
        A(
            "magic_heavy_cell",
            "a 30 KB cell of 499 %time lines: ~14 s for IPython's transformer, once in the judge, now in the worker",
            nb("magic_heavy_cell", insert={3: MAGIC_HEAVY}),
            FULL,
            "timeout",
            checks=[cell_statuses("timeout"), trusted_parse_cpu()],
        ),
        A(
            "magics_and_shell",
            "%time, %pip and !shell lines in the answer cell: magics run, shell is noted not run",
            nb(
                "magics_and_shell",
                replace={"ANSWER = 42": "%time ANSWER = 42\n!touch AG_PWNED\n%pip install torch==0.0"},
            ),
            FULL,
            "graded",
            checks=[
                has_text("!touch AG_PWNED was not run"),
                has_text("%pip install torch==0.0 was not run"),
                trusted_parse_cpu(),
            ],
        ),
        A(
            "huge_cell",
            "one code cell over the per-cell source cap",
            _edited("huge_cell", lambda d: _first_code(d).__setitem__("source", "#" * (MAX_CELL_SOURCE + 1))),
            0,
            "invalid",
            "characters of code, over the limit",
            checks=[trusted_parse_cpu()],
        ),
        A(
            "deep_json",
            "metadata nested 100,000 deep",
            _deep_json,
            0,
            "invalid",
            "nested too deeply",
            checks=[trusted_parse_cpu()],
        ),
        A(
            "brackets_over_cap",
            "a million empty lists in the metadata (~60 MB once parsed)",
            _edited("brackets_over_cap", lambda d: d["metadata"].__setitem__("x", [[]] * MAX_JSON_CONTAINERS)),
            0,
            "invalid",
            "JSON objects or brackets",
            checks=[trusted_parse_cpu()],
        ),
        A(
            "number_too_long",
            "a 5000-digit number in the metadata: valid JSON, past what Python converts (a grader error before)",
            _long_number,
            0,
            "invalid",
            "a number too long to read",
            checks=[trusted_parse_cpu()],
        ),
        A(
            "minor_is_string",
            "nbformat_minor is the string \"5\"",
            _edited("minor_is_string", lambda d: d.__setitem__("nbformat_minor", "5")),
            0,
            "invalid",
            "`nbformat_minor` must be an integer",
            checks=[trusted_parse_cpu()],
        ),
        A(
            "source_is_dict",
            "a code cell's source is an object",
            _edited("source_is_dict", lambda d: _first_code(d).__setitem__("source", {"x": "import torch"})),
            0,
            "invalid",
            "`source` must be a string or a list of strings",
            checks=[trusted_parse_cpu()],
        ),
        A(
            "many_cells_at_cap",
            f"{MAX_CELLS} cells (the cap), the extra ones each a %time line",
            _many_cells,
            FULL,
            "graded",
            checks=[trusted_parse_cpu()],
        ),
    ]
