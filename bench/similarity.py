"""Similarity over one assignment's class: 300 notebooks (by default) in under a minute; with hostile ones.

    .venv/bin/python bench/similarity.py 01_tensors [--notebooks 300] [--hostile 50] [--rounds 2]   # JSON on stdout

The class is synthesized from the curriculum's correct solutions (the master and the alternatives of the
assignment): each notebook is one of them with its names renamed, a random share of its code cells put
back to the released stub (as an unfinished notebook), cells reordered, and a comment line added, so the
class holds copies of each other (the case the tool is for) and unrelated work.  Timed: the whole command
path (`assignment_similarity`: intake, capped reads, fingerprints, comparison, the JSON file), best of
`--rounds`; the process's peak resident memory (the synthesis included) and CPU time beside.

`--hostile N` replaces N of the notebooks by hostile ones, in equal shares (`HOSTILE`): copies of the master
behind a padding cell (20,000 and 100,000 zeros, shared by several: issue 49), copies of one notebook of 1,900
junk cells and the master (one fingerprint set shared by many), copies through a trivial helper with the
library calls respelled, a 1 MiB cell of one token repeated, and the hostile cells of tests/similarity.
"""

from __future__ import annotations

import argparse
import json
import random
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "tests" / "similarity"))
sys.path.insert(0, str(ROOT))

from evasions import disguise  # noqa: E402
from test_evasion import HOSTILE as CELLS  # noqa: E402
from test_similarity import rename  # noqa: E402

from autograder.similarity.pairs import assignment_similarity  # noqa: E402


def _junk(rng: random.Random) -> list[str]:
    shapes = ["a({})", "{}.b", "{}[c]", "-{}", "{} + d", "{} * e", "f({}, g)", "{}.h()"]

    def line() -> str:
        expr = "x"
        for _ in range(10):
            expr = rng.choice(shapes).format(expr)
        return f"v = {expr}\n"

    return ["".join(line() for _ in range(6)) for _ in range(1900)]


def hostile_cells(kind: int, master: list[str], junk: list[str]) -> list[str]:
    """The code cells of a hostile notebook of kind `kind` (0 to 5)."""
    if kind == 0:
        return ["PAD = [" + "0, " * 20_000 + "]\n", *master]
    if kind == 1:
        return ["PAD = [" + "0, " * 100_000 + "]\n", *master]
    if kind == 2:
        return [*junk, *master]
    if kind == 3:
        return disguise(master, ["identity wrapper", "respelled calls"])
    if kind == 4:
        return ["x = [" + "a, " * 340_000 + "]\n"]
    return [*CELLS.values(), *master]


HOSTILE = 6


def write_code(path: Path, cells: list[str]) -> None:
    path.write_text(
        json.dumps(
            {
                "nbformat": 4,
                "nbformat_minor": 5,
                "metadata": {},
                "cells": [
                    {"cell_type": "code", "metadata": {}, "source": c, "outputs": [], "execution_count": None}
                    for c in cells
                ],
            }
        ),
        encoding="utf-8",
    )


def synthesize(assignment: str, n: int, folder: Path, seed: int = 0, hostile: int = 0) -> None:
    rng = random.Random(seed)
    master = [
        c["source"] if isinstance(c["source"], str) else "".join(c["source"])
        for c in json.loads((ROOT / "solutions" / f"{assignment}.ipynb").read_text(encoding="utf-8"))["cells"]
        if c["cell_type"] == "code"
    ]
    junk = _junk(rng)
    for i in range(hostile):
        write_code(folder / f"hostile{i:04d}.ipynb", hostile_cells(i % HOSTILE, master, junk))
    n -= hostile
    bases = [
        ROOT / "solutions" / f"{assignment}.ipynb",
        *sorted((ROOT / "tests" / "curriculum" / "alternatives").glob(f"{assignment}*.ipynb")),
    ]
    stub = json.loads((ROOT / "student" / f"{assignment}.ipynb").read_text(encoding="utf-8"))
    stub_code = [c for c in stub["cells"] if c["cell_type"] == "code"]
    for i in range(n):
        nb = json.loads(rng.choice(bases).read_text(encoding="utf-8"))
        code = [c for c in nb["cells"] if c["cell_type"] == "code"]
        for j, c in enumerate(code):
            if rng.random() < 0.3 and j < len(stub_code):
                c["source"] = stub_code[j]["source"]
            else:
                c["source"] = f"# student {i}\n" + rename("".join(c["source"]), f"_{rng.randrange(1000)}")
        rng.shuffle(code)
        nb["cells"] = [c for c in nb["cells"] if c["cell_type"] != "code"] + code
        (folder / f"student{i:04d}.ipynb").write_text(json.dumps(nb), encoding="utf-8")


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("assignment", nargs="?", default="01_tensors")
    p.add_argument("--notebooks", type=int, default=300)
    p.add_argument("--hostile", type=int, default=0, help="how many of the notebooks are hostile")
    p.add_argument("--rounds", type=int, default=2)
    args = p.parse_args()
    import resource

    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp) / "class"
        folder.mkdir()
        synthesize(args.assignment, args.notebooks, folder, hostile=args.hostile)
        times = []
        cpu = time.process_time()
        for _ in range(args.rounds):
            t = time.perf_counter()
            notebooks, pairs, _dest = assignment_similarity(ROOT, args.assignment, [folder], Path(tmp) / "out")
            times.append(time.perf_counter() - t)
        data = json.loads(_dest.read_text(encoding="utf-8"))
        json_mb = round(_dest.stat().st_size / 2**20, 1)
    print(
        json.dumps(
            {
                "assignment": args.assignment,
                "notebooks": len(notebooks),
                "hostile": args.hostile,
                "pairs_flagged": data["flagged"],
                "pairs_kept": len(pairs),
                "seconds": round(min(times), 2),
                "cpu_seconds_per_round": round((time.process_time() - cpu) / args.rounds, 1),
                "peak_rss_mb": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss // 1024,
                "json_mb": json_mb,
                "under_a_minute": min(times) < 60,
            }
        )
    )


if __name__ == "__main__":
    main()
