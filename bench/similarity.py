"""Similarity over one assignment's class: 300 notebooks (by default) in under a minute.

    .venv/bin/python bench/similarity.py 01_tensors [--notebooks 300]     # a JSON object on stdout

The class is synthesized from the curriculum's correct solutions (the master and the alternatives of the
assignment): each notebook is one of them with its names renamed, a random share of its code cells put
back to the released stub (as an unfinished notebook), cells reordered, and a comment line added, so the
class holds copies of each other (the case the tool is for) and unrelated work.  Timed: the whole command
path (`assignment_similarity`: intake, capped reads, fingerprints, comparison, the JSON file), best of two.
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

from autograder.similarity.pairs import assignment_similarity  # noqa: E402
from test_similarity import rename  # noqa: E402


def synthesize(assignment: str, n: int, folder: Path, seed: int = 0) -> None:
    rng = random.Random(seed)
    bases = [ROOT / "solutions" / f"{assignment}.ipynb",
             *sorted((ROOT / "tests" / "curriculum" / "alternatives").glob(f"{assignment}*.ipynb"))]
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
    args = p.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp) / "class"
        folder.mkdir()
        synthesize(args.assignment, args.notebooks, folder)
        times = []
        for _ in range(2):
            t = time.perf_counter()
            notebooks, pairs, _dest = assignment_similarity(ROOT, args.assignment, [folder], Path(tmp) / "out")
            times.append(time.perf_counter() - t)
    print(json.dumps({"assignment": args.assignment, "notebooks": len(notebooks), "pairs_flagged": len(pairs),
                      "seconds": round(min(times), 2), "under_a_minute": min(times) < 60}))


if __name__ == "__main__":
    main()
