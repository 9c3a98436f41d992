"""A change measured against another checkout of the kit, both grading the same class at the same time, one core each.

    .venv/bin/python bench/paired.py tf03_walls --base /tmp/old/kit --rounds 3
    .venv/bin/python bench/paired.py 03_components --base /tmp/old/kit --copies 10 --json

On a shared 2-core box the same class takes 15-40 % more or less from one hour to the next, and runs one after the
other can disagree by more than a change gains (docs/performance.md, "The machine").  Here both kits see the same
minutes: each round starts `autograder grade <id> <class> --jobs 1` from this checkout and from `--base` (another
clone with its own `.venv`, as `make install` makes it: `git clone . /tmp/old/kit && cd /tmp/old/kit && git checkout
<commit> && make install`) at once, each pinned to one core (`taskset`), and swaps the cores the next round.  Per
round: each wall time, each median `execution_time` of the `perfect` notebooks, and whether every notebook got the
same score from both; then the median of this kit's wall over the base's.  The class is bench/run.py's
(`--samples`, `--copies`), graded under the bench's course secret.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

BENCH = Path(__file__).resolve().parent
sys.path.insert(0, str(BENCH))

from run import make_class, per_submission  # noqa: E402

KIT = BENCH.parent
SAMPLES = "perfect,partial,exception_midway"  # the notebooks that run cells and tests: where a change shows


def read_results(out: Path, assignment: str) -> dict[str, tuple[float | None, float]]:
    """{submission id: (score, execution_time)} of a results folder, as bench/run.py reads it."""
    return {rec["id"]: (rec["score"], rec["execution_time"]) for rec in per_submission(out, assignment)}


def side(wall: float, results: dict[str, tuple[float | None, float]]) -> dict[str, Any]:
    perfect = [t for sid, (_, t) in results.items() if sid.startswith("perfect")]
    return {
        "wall_s": round(wall, 2),
        "perfect_median_s": round(statistics.median(perfect), 2) if perfect else None,
        "graded": len(results),
    }


def summary(rounds: list[dict[str, Any]]) -> dict[str, Any]:
    """The median ratio of this kit's wall to the base's, over rounds where both graded the whole class alike."""
    ratios = [r["this"]["wall_s"] / r["base"]["wall_s"] for r in rounds if r["same_scores"] and r["base"]["wall_s"]]
    return {
        "rounds": len(rounds),
        "same_scores_in_every_round": all(r["same_scores"] for r in rounds),
        "this_over_base_median": round(statistics.median(ratios), 3) if ratios else None,
    }


def _grade(kit: Path, assignment: str, klass: Path, out: Path, core: int) -> subprocess.Popen:
    cmd = ["taskset", "-c", str(core), str(kit / ".venv" / "bin" / "python"), "-m", "autograder", "grade"]
    env = {**os.environ, "AUTOGRADER_SECRET": os.environ.get("AUTOGRADER_SECRET", "bench-course-secret")}
    return subprocess.Popen(
        [*cmd, assignment, str(klass), "--out", str(out), "--jobs", "1"],
        cwd=kit,
        env=env,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )


def one_round(assignment: str, klass: Path, base: Path, k: int, work: Path) -> dict[str, Any]:
    cores = {"this": k % 2, "base": 1 - k % 2}
    kits = {"this": KIT, "base": base}
    outs = {name: work / f"round{k}-{name}" for name in kits}
    start = time.perf_counter()
    running = {name: _grade(kits[name], assignment, klass, outs[name], cores[name]) for name in kits}
    walls: dict[str, float] = {}
    while len(walls) < len(running):
        for name, proc in running.items():
            if name not in walls and proc.poll() is not None:
                walls[name] = time.perf_counter() - start
        time.sleep(0.05)
    results = {name: read_results(outs[name], assignment) for name in kits}
    row: dict[str, Any] = {"round": k}
    for name in kits:
        row[name] = {"core": cores[name], **side(walls[name], results[name])}
    row["same_scores"] = {s: v[0] for s, v in results["this"].items()} == {s: v[0] for s, v in results["base"].items()}
    return row


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("assignment")
    ap.add_argument("--base", type=Path, required=True, help="another checkout of the kit, with its own .venv")
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--copies", type=int, default=4, help="copies of each sample (default 4)")
    ap.add_argument("--samples", default=SAMPLES, help=f"bench/run.py's sample kinds (default {SAMPLES})")
    ap.add_argument("--json", action="store_true")
    args = ap.parse_args()
    if len(os.sched_getaffinity(0)) < 2:
        sys.exit("paired.py needs two cores: one for each kit")
    if not (args.base / ".venv" / "bin" / "python").is_file():
        sys.exit(f"{args.base} has no .venv: run `make install` there first")
    with tempfile.TemporaryDirectory(prefix="ag-paired-") as tmp:
        work = Path(tmp)
        make_class(work / "class", args.assignment, args.copies, args.samples.split(","))
        rounds = []
        for k in range(args.rounds):
            rounds.append(one_round(args.assignment, work / "class", args.base.resolve(), k, work))
            if not args.json:
                print(json.dumps(rounds[-1]), flush=True)
    report = {"assignment": args.assignment, "base": str(args.base), "rounds": rounds, "summary": summary(rounds)}
    print(json.dumps(report if args.json else report["summary"], indent=1))


if __name__ == "__main__":
    main()
