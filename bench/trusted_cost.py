"""Trusted-side cost of one submission: CPU time and peak memory the judge spends on the notebook file.

    .venv/bin/python bench/trusted_cost.py                  # every case, 10 KB .. MAX_NOTEBOOK_BYTES
    .venv/bin/python bench/trusted_cost.py --sizes 10K,1M   # fewer sizes

A benchmark, not a test: it prints a table (and writes bench/out/trusted-cost.json).  For each kind of
content and each size it builds a notebook and runs, in this process, what the judge does with the file
outside the worker: before it, hashing the file (`intake.file_sha256`), `notebook.parse.load_cells`
and encoding the worker's `start` message (`wire.encode`, as `runner` sends it); after it, one
`CellIssue` per code cell (the worst case: every cell left a note) and the result record as JSON.
Everything student text costs *inside* the worker (IPython's transformer, compile, exec) runs under the
cell's CPU deadline and is not counted here.  CPU is `time.process_time()` (best of 3); peak memory is
`tracemalloc`'s peak over one separate run (Python allocations, the parsed JSON included).
"""

from __future__ import annotations

import argparse
import json
import platform
import sys
import tempfile
import time
import tracemalloc
from pathlib import Path
from typing import Callable

BENCH = Path(__file__).resolve().parent
sys.path.insert(0, str(BENCH.parent))

from autograder.execute import wire  # noqa: E402
from autograder.intake.submissions import file_sha256  # noqa: E402
from autograder.judge.results import CellIssue, SubmissionResult  # noqa: E402
from autograder.notebook.parse import (  # noqa: E402
    MAX_CELL_SOURCE,
    MAX_CELLS,
    MAX_JSON_CONTAINERS,
    MAX_NOTEBOOK_BYTES,
    InvalidNotebook,
    load_cells,
)

SIZES = {"10K": 10_000, "100K": 100_000, "1M": 2**20, "5M": 5 * 2**20, "limit": MAX_NOTEBOOK_BYTES}
_CELL = {"metadata": {}, "outputs": [], "execution_count": None}


def _notebook(cells: list[dict], metadata: dict | None = None) -> str:
    for i, c in enumerate(cells):
        c.setdefault("id", f"c{i}")
    return json.dumps({"cells": cells, "metadata": metadata or {}, "nbformat": 4, "nbformat_minor": 5})


def _code(source: str, **extra) -> dict:
    return {"cell_type": "code", "source": source, **_CELL, **extra}


def _cells_of(line: str, size: int, head: str = "") -> list[dict]:
    """Code cells of `head` then repeated `line`: about `size` bytes of JSON (3 % under it, for the
    JSON around them), each cell at most half the per-cell cap."""
    size = int(size * 0.97)
    per_cell = min(MAX_CELL_SOURCE // 2, size)
    escaped = lambda text: len(json.dumps(text)) - 2  # noqa: E731
    n_lines = max(1, (per_cell - escaped(head)) // escaped(line))
    return [_code(head + line * n_lines) for _ in range(max(1, size // per_cell))]


def plain(size: int) -> str:
    return _notebook(_cells_of("x = torch.ones(3) * 2  # a line of ordinary code\n", size))


def magic_lines(size: int) -> str:
    # 499 line magics per cell: the most IPython's transformer re-tokenizes a cell for (quadratic)
    return _notebook(_cells_of("y = 1\n", size, head="%time x = 1\n" * 499))


def bang_lines(size: int) -> str:
    return _notebook(_cells_of("!pip install torch==0.0.0 && rm -rf ~\n", size))


def deep_json(size: int) -> str:
    # metadata nested 400 deep (under the parser's recursion guard, called from a judge), repeated
    unit = '{"a": ' * 400 + "1" + "}" * 400
    deep = "[" + ",".join([unit] * max(1, int(size * 0.97) // (len(unit) + 1))) + "]"
    return _notebook([_code("x = 1")], {"deep": "@"}).replace('"@"', deep)


def many_cells(size: int) -> str:
    per = max(7, int(size * 0.97) // MAX_CELLS - 120)  # 120: the JSON of an empty cell
    return _notebook([_code("x = 1\n" * (per // 7)) for _ in range(MAX_CELLS)])


def long_line(size: int) -> str:
    line = "x = '" + "a" * (min(int(size * 0.97), MAX_CELL_SOURCE) - 200) + "'"
    return _notebook([_code(line) for _ in range(max(1, int(size * 0.97) // len(line)))])


def huge_output(size: int) -> str:
    out = {"output_type": "stream", "name": "stdout", "text": "loss 0.123456\n" * (int(size * 0.97) // 15)}
    return _notebook([_code("for i in range(10**6): print('loss', 0.123456)", outputs=[out])])


def unicode_text(size: int) -> str:
    # astral characters make every string in the parsed JSON 4 bytes per character
    return _notebook(_cells_of("s = 'ünïcödé 𝔁𝔂𝔃 ✓ 数据'  # ¡ñ\n", size // 2), {"note": "𝔁" * (size // 30)})


def brackets(size: int) -> str:
    # the most memory per byte of JSON: one-key objects, as many as MAX_JSON_CONTAINERS lets through
    n = min(int(size * 0.97) // 8, MAX_JSON_CONTAINERS - 10_000)
    return _notebook([_code("x = 1")], {"x": "@"}).replace('"@"', "[" + ",".join(['{"a":0}'] * n) + "]")


CASES: dict[str, Callable[[int], str]] = {
    "plain code": plain,
    "magic lines": magic_lines,
    "! lines": bang_lines,
    "deep JSON": deep_json,
    "many cells": many_cells,
    "long single line": long_line,
    "huge outputs": huge_output,
    "unicode": unicode_text,
    "brackets": brackets,
}


def trusted_work(path: Path) -> str:
    """What the judge does with the file outside the worker; returns ok or the invalid message."""
    sha = file_sha256(path)
    try:
        cells = load_cells(path)
    except InvalidNotebook as e:
        return f"invalid: {e}"[:60]
    start = wire.encode(
        {
            "op": "start",
            "cells": [{"index": c.index, "source": c.source} for c in cells],
            "skip": [],
            "probes": None,
            "seed": 0,
            "threads": 1,
            "limits": {},
        }
    )
    issues = [CellIssue(cell=c.index, status="note", code=c.source[:2000], notes=["!pip was not run"]) for c in cells]
    result = SubmissionResult(
        assignment="a",
        submission_id="s",
        source=path.name,
        sha256=sha,
        status="graded",
        message="",
        tests=[],
        cells=issues,
        execution_time=0.0,
        environment={},
    )
    json.dumps(result.to_record())
    del start
    return f"ok, {len(cells)} code cells"


def measure(path: Path, repeat: int = 3) -> dict:
    cpu = []
    for _ in range(repeat):
        t0 = time.process_time()
        status = trusted_work(path)
        cpu.append(time.process_time() - t0)
    tracemalloc.start()
    trusted_work(path)
    peak = tracemalloc.get_traced_memory()[1]
    tracemalloc.stop()
    return {"cpu_s": min(cpu), "peak_mib": peak / 2**20, "status": status}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--sizes", default=",".join(SIZES), help=f"comma-separated, of {', '.join(SIZES)}")
    ap.add_argument("--cases", default=",".join(CASES), help="comma-separated case names")
    args = ap.parse_args()
    sizes = [s for s in args.sizes.split(",") if s]
    rows = []
    print(
        f"{platform.processor() or platform.machine()}, Python {platform.python_version()}; "
        f"MAX_NOTEBOOK_BYTES = {MAX_NOTEBOOK_BYTES / 2**20:.0f} MiB"
    )
    print(f"{'content':<18}{'size':>6}{'file MiB':>10}{'CPU s':>8}{'peak MiB':>10}  status")
    with tempfile.TemporaryDirectory() as tmp:
        for case in args.cases.split(","):
            for size_name in sizes:
                text = CASES[case](SIZES[size_name])
                path = Path(tmp) / "nb.ipynb"
                path.write_text(text, encoding="utf-8")
                nbytes = path.stat().st_size
                assert nbytes <= MAX_NOTEBOOK_BYTES, (case, size_name, nbytes)
                r = measure(path)
                rows.append({"case": case, "size": size_name, "bytes": nbytes, **r})
                print(
                    f"{case:<18}{size_name:>6}{nbytes / 2**20:>10.2f}{r['cpu_s']:>8.3f}{r['peak_mib']:>10.1f}  {r['status']}",
                    flush=True,
                )
    out = BENCH / "out"
    out.mkdir(exist_ok=True)
    (out / "trusted-cost.json").write_text(json.dumps({"python": platform.python_version(), "rows": rows}, indent=1))


if __name__ == "__main__":
    main()
