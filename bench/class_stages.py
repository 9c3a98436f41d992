"""Where a class's grading time goes outside its notebooks: the grade command in this process, cProfile, by stage.

    .venv/bin/python bench/class_stages.py 02b_kernels --copies 2                  # table on stdout
    .venv/bin/python bench/class_stages.py tf03_walls --samples perfect,partial --json

`bench/run.py`'s class (`--copies` of each of `--samples`, made from the master) graded by `autograder grade --jobs
1` in this process, under a course secret as the bench sets one (per-student hidden inputs, so every notebook that
loses points on a hidden test has the master proven on its variant).  `profile_stages.py` splits one correct
notebook's time; this splits the class's: the reference pass (the master through the gate), the judging of each
notebook (its `execution_time`: cells and tests) and the variant proofs (`pipeline._prove_variant`), which the
notebooks' `execution_time` does not count, and the rest of the command (intake, results, grades.csv).
"""

from __future__ import annotations

import argparse
import cProfile
import json
import os
import pstats
import shutil
import sys
import tempfile
import time
from pathlib import Path

BENCH = Path(__file__).resolve().parent
KIT = BENCH.parent
sys.path.insert(0, str(KIT))
sys.path.insert(0, str(BENCH))

from profile_stages import cumulative  # noqa: E402

# stage -> (file suffix, function): cumulative time of that function
STAGES = {
    "reference pass (the master through the gate)": ("autograder/pipeline.py", "_reference_pass"),
    "judging (cells, tests, proofs)": ("autograder/pipeline.py", "_judge"),
    "variant proofs (the master on a losing student's variant)": ("autograder/pipeline.py", "_prove_variant"),
    "the master's fresh workers (reference pass and proofs)": ("autograder/probe/reference.py", "call_fresh"),
}


def split(stats: pstats.Stats, total: float) -> dict[str, dict[str, float]]:
    """Each stage's seconds and calls, and the command's time outside the judging and the reference pass."""
    out = {}
    for stage, (suffix, name) in STAGES.items():
        seconds, calls = cumulative(stats, suffix, name)
        out[stage] = {"s": seconds, "calls": calls}
    inside = out["reference pass (the master through the gate)"]["s"] + out["judging (cells, tests, proofs)"]["s"]
    out["the rest of the command (intake, results, grades.csv)"] = {"s": total - inside, "calls": 1}
    return out


def profile(assignment: str, copies: int, kinds: list[str]) -> dict:
    from run import make_class

    from autograder.cli import main

    os.environ.setdefault("AUTOGRADER_SECRET", "bench-course-secret")  # as bench/run.py: per-student inputs
    work = Path(tempfile.mkdtemp(prefix="ag-class-stages-"))
    try:
        make_class(work / "class", assignment, copies, kinds)
        prof = cProfile.Profile()
        t0 = time.perf_counter()
        prof.enable()
        rc = main(["grade", assignment, str(work / "class"), "--out", str(work / "out"), "--jobs", "1"])
        prof.disable()
        total = time.perf_counter() - t0
        if rc != 0:
            raise SystemExit(f"autograder grade exited {rc}")
        executed = sum(
            json.loads(p.read_text())["execution_time"] for p in (work / "out" / assignment).glob("*/instructor.json")
        )
        return {
            "assignment": assignment,
            "notebooks": copies * len(kinds),
            "samples": kinds,
            "total_s": total,
            "execution_time_s": executed,
            "stages": split(pstats.Stats(prof), total),
        }
    finally:
        shutil.rmtree(work, ignore_errors=True)


def render(p: dict) -> str:
    lines = [
        f"{p['assignment']}: {p['notebooks']} notebooks ({', '.join(p['samples'])}) graded in {p['total_s']:.1f} s "
        f"by one judge under cProfile; their execution_time {p['execution_time_s']:.1f} s"
    ]
    for stage, v in p["stages"].items():
        lines.append(f"  {stage:<62} {v['s']:7.2f} s  {v['calls']:4d} calls")
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("assignment")
    ap.add_argument("--copies", type=int, default=2)
    ap.add_argument("--samples", default="perfect,partial,exception_midway,blank")
    ap.add_argument("--json", action="store_true")
    args = ap.parse_args(argv)
    p = profile(args.assignment, args.copies, args.samples.split(","))
    print(json.dumps(p) if args.json else render(p))
    return 0


if __name__ == "__main__":
    sys.exit(main())
