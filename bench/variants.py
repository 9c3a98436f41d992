"""What per-student hidden inputs cost: one class graded with one variant for everyone (`variants = 1`)
and with a variant per student (the default), alternately, in this process (`--jobs 1`, the default: one
judge; `--jobs 2`: judge processes as `autograder grade` starts them).

    .venv/bin/python bench/variants.py 01_tensors --copies 2
    .venv/bin/python bench/variants.py 01_tensors --copies 10 --samples perfect,partial,exception_midway,invalid_json,blank --rounds 2

The headline is the class: the median over rounds of `grade_class`'s wall time per mode (the reference pass,
every student, the master's proofs on each student's variant), per student against one variant.  With
`--jobs 1` it also times `pipeline._judge` per submission from outside: with a variant per student that is the
student's grading with the master answering the student's hidden calls, plus the master graded on the
hidden files where the student lost points (`pipeline._prove_variant`), against the grading alone.  Every round grades
into fresh results folders (no reuse, a cold reference cache); the class is bench/run.py's samples of
the master.  JSON on stdout; the median per-submission times and their ratio on stderr.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import sys
import tempfile
import time
from pathlib import Path

BENCH = Path(__file__).resolve().parent
sys.path.insert(0, str(BENCH))
sys.path.insert(0, str(BENCH.parent))

from run import KIT, loadavg, log, machine, make_class  # noqa: E402

MODES = {"one variant (variants = 1)": "1", "per student (default)": "student"}


def grade_once(assignment_id: str, klass: list[tuple[str, Path]], out: Path, variants: str, jobs: int = 1) -> dict:
    """Grade the class into `out` with `variants`; the wall time of each submission's judging."""
    from autograder import pipeline
    from autograder.config.assignment import load_assignment
    from autograder.config.course import parse_variants
    from autograder.intake.submissions import Submission
    from autograder.judge.options import GradeOptions
    from autograder.judge.session import close_references

    per: dict[str, float] = {}
    judge = pipeline._judge

    def timed(kit, aid, sub, options, rerun=None, variant=""):
        t0 = time.perf_counter()
        try:
            return judge(kit, aid, sub, options, rerun, variant)
        finally:
            per[sub.id] = time.perf_counter() - t0

    pipeline._judge = timed
    try:
        t0 = time.perf_counter()
        run = pipeline.grade_class(
            load_assignment(assignment_id, KIT),
            [Submission(s, p, p.name) for s, p in klass],
            out=out,
            jobs=jobs,
            options=GradeOptions(variants=parse_variants(variants)),
        )
        wall = time.perf_counter() - t0
    finally:
        pipeline._judge = judge
        close_references()
    return {
        "wall_s": wall,
        "per_submission_s": per,
        "reference_pass_s": wall - sum(per.values()),
        "scores": {r.submission_id: r.score for r in run.results},
        "variants": len({r.environment.get("variant") for r in run.results}),
        "provisional": [r.submission_id for r in run.results if r.provisional],
    }


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("assignment")
    p.add_argument("--copies", type=int, default=2)
    p.add_argument("--samples", default="perfect,partial,exception_midway,blank")
    p.add_argument("--rounds", type=int, default=2, help="each mode this often, alternating")
    p.add_argument("--jobs", type=int, default=1, help="judge processes (default 1; per-submission times need 1)")
    args = p.parse_args(argv)
    os.environ.setdefault("AUTOGRADER_SECRET", "bench-variants-secret")
    report: dict = {
        "machine": machine(),
        "assignment": args.assignment,
        "copies": args.copies,
        "samples": args.samples.split(","),
        "load_before": loadavg(),
        "runs": [],
    }
    with tempfile.TemporaryDirectory(prefix="bench-variants-") as tmp:
        klass = make_class(Path(tmp) / "class", args.assignment, args.copies, args.samples.split(","))
        log("warm-up: one variant (not counted: the first run in this process pays the imports and the zygote)")
        grade_once(args.assignment, klass, Path(tmp) / "out-warm-up", "1", args.jobs)
        for k in range(args.rounds):
            modes = list(MODES.items()) if k % 2 == 0 else list(MODES.items())[::-1]
            for label, value in modes:
                log(f"round {k + 1}: {label}")
                r = grade_once(args.assignment, klass, Path(tmp) / f"out-{k}-{value}", value, args.jobs)
                report["runs"].append({"mode": label, "round": k + 1, "load": loadavg(), **r})
    report["load_after"] = loadavg()
    summary = {}
    for label in MODES:
        runs = [r for r in report["runs"] if r["mode"] == label]
        times = [t for r in runs for t in r["per_submission_s"].values()] or [float("nan")]  # none timed: --jobs > 1
        summary[label] = {
            "median_s": statistics.median(times),
            "mean_s": statistics.fmean(times),
            "class_wall_s": statistics.median(r["wall_s"] for r in runs),
            "reference_pass_s": statistics.median(r["reference_pass_s"] for r in runs),
        }
    one, each = (summary[label]["median_s"] for label in MODES)
    report["summary"], report["ratio_median"] = summary, each / one
    one, each = (summary[label]["class_wall_s"] for label in MODES)
    report["ratio_class"] = each / one
    for label, s in summary.items():
        log(
            f"{label}: per submission median {s['median_s']:.3f} s, mean {s['mean_s']:.3f} s; "
            f"class {s['class_wall_s']:.1f} s (reference pass {s['reference_pass_s']:.1f} s)"
        )
    log(
        f"per student / one variant: class {report['ratio_class']:.2f}x (median per submission "
        f"{report['ratio_median']:.2f}x); load {report['load_before']} -> {report['load_after']}"
    )
    json.dump(report, sys.stdout, indent=1)
    print()
    return 0


if __name__ == "__main__":
    sys.exit(main())
