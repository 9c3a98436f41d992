"""What each worker of a notebook's grading spends, in CPU seconds read from /proc by the judge, per sample kind.

    .venv/bin/python bench/worker_cpu.py tf02b_kernels                            # a table on stdout
    .venv/bin/python bench/worker_cpu.py 02b_kernels --samples perfect,partial --json

In this process, as a judge does (`pipeline._judge`, `--jobs 1`): the master through the gate (the reference pass),
then each of `--samples` (bench/run.py's notebooks, made from the master) graded under a student's own variant of
the hidden inputs, and that variant proven as the grade command proves it (trust rule 4).  Each worker's process tree
is read as the kit reads it for its cost checks (`WorkerProcess.cpu_seconds`: the worker, its threads and the
processes it waited for, such as a compiler): the student's worker when its cells end and when it closes (the
difference is what its probe calls cost), the kit's fresh workers (`student.fresh`: a kernel compiled and run where
no code of the notebook can reach it), and the master's worker while it answers that student's inputs and while it
proves the variant; the judge's own CPU beside them.  These are the parts a class-level bound sums
(docs/performance.md, "Where a row falls short"): `floor.py` cannot run tf02b_kernels (its op registers its gradient
once per process), and counts neither a kernel assignment's fresh workers nor the proofs.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import tempfile
import time
from pathlib import Path
from typing import Any, Callable

import torch

BENCH = Path(__file__).resolve().parent
sys.path.insert(0, str(BENCH))
sys.path.insert(0, str(BENCH.parent))

from run import make_class  # noqa: E402

from autograder import pipeline  # noqa: E402
from autograder.config.assignment import load_assignment  # noqa: E402
from autograder.execute.runner import NotebookRunner  # noqa: E402
from autograder.judge import session  # noqa: E402
from autograder.judge.options import GradeOptions  # noqa: E402

KINDS = "perfect,partial,exception_midway,invalid_json,blank"  # the 50-notebook class's (docs/performance.md)


class _Readings:
    """Each `NotebookRunner`'s worker CPU, read when its cells end and when it closes: the class's two methods are
    wrapped while the block runs, and given back after it."""

    def __init__(self) -> None:
        self.rows: list[dict[str, Any]] = []
        self._methods = NotebookRunner.execute, NotebookRunner.close

    def __enter__(self) -> _Readings:
        execute, close = self._methods

        def execute_read(runner: NotebookRunner) -> None:
            execute(runner)  # before each call too (a worker that ran the cells, or one brought up again)
            if not hasattr(runner, "_bench_cells_cpu"):  # the first: when the cells have ended
                runner._bench_cells_cpu = _cpu(runner.worker)  # type: ignore[attr-defined]

        def close_read(runner: NotebookRunner) -> None:
            self.rows.append(
                {"cells": getattr(runner, "_bench_cells_cpu", None), "all": _cpu(runner.worker), "runner": runner}
            )
            close(runner)

        NotebookRunner.execute, NotebookRunner.close = execute_read, close_read  # type: ignore[method-assign]
        return self

    def __exit__(self, *exc: object) -> None:
        NotebookRunner.execute, NotebookRunner.close = self._methods  # type: ignore[method-assign]

    def fresh(self) -> list[float]:
        """The CPU of each fresh worker read so far: one that runs no cell (`NotebookRunner.call_fresh`: an empty
        notebook, executed at its call)."""
        return [x["all"] for x in self.rows if not x["runner"].cells]


def _cpu(worker: Any) -> float:
    return (worker.cpu_seconds(rescan=True) or 0.0) if worker is not None else 0.0


def measure(assignment_id: str, kinds: list[str]) -> dict:
    """The gate's parts, then each sample's parts and its variant's proof's; the judge at one torch thread, as a
    judge process is (`pipeline.judge_threads`: with two, its idle threads spun on the CPU it is charged)."""
    a = load_assignment(assignment_id, BENCH.parent)
    options = GradeOptions()  # the course secret from the environment (bench/run.py sets one: per-student inputs)
    threads = torch.get_num_threads()
    pipeline.judge_threads()
    try:
        with _Readings() as readings, tempfile.TemporaryDirectory(prefix="ag-worker-cpu-") as work:
            t0 = time.monotonic()
            session.grade_notebook(a, a.solution, submission_id="__reference__", options=options, as_reference=True)
            reference = session.reference_for(a, a.version(), options)

            def master() -> float:
                return _cpu(reference._runner.worker if reference._runner else None)

            gate = {  # once a class (its worker's start waits for the zygote's)
                "wall_s": round(time.monotonic() - t0, 2),
                "master_cpu_s": round(master(), 2),
                "fresh_cpu_s": round(sum(readings.fresh()), 2),
            }
            out = [
                _sample(a, options, sid, path, readings, master) for sid, path in make_class(Path(work), a.id, 1, kinds)
            ]
    finally:
        session.close_references()
        torch.set_num_threads(threads)
    return {"assignment": a.id, "load": os.getloadavg(), "gate": gate, "rows": out}


def _sample(
    a: Any, options: GradeOptions, sid: str, path: Path, readings: _Readings, master: Callable[[], float]
) -> dict:
    """One notebook graded under its own variant, then its variant proven as `pipeline._judge` proves it (trust
    rule 4: the master on the hidden tests it lost).  A notebook whose worker was brought up again (a hang, a
    crash) is read from its last worker: the samples measured here have none."""
    variant = f"bench-{sid}"
    readings.rows.clear()
    master0, t0, judge0 = master(), time.monotonic(), time.process_time()
    r = session.grade_notebook(a, path, submission_id=sid, options=options, variant=variant)
    wall, judge, master_cpu = time.monotonic() - t0, time.process_time() - judge0, master() - master0
    student = [x for x in readings.rows if x["runner"].cells]
    fresh = readings.fresh()
    readings.rows.clear()
    master0, t0, judge0 = master(), time.monotonic(), time.process_time()
    pipeline._prove_variant(a, variant, options, r, None)
    proof = {
        "wall_s": time.monotonic() - t0,
        "judge_s": time.process_time() - judge0,
        "master_s": master() - master0,
        "fresh_s": sum(readings.fresh()),
    }
    cells = sum(x["cells"] for x in student)
    return {
        "notebook": sid,
        "score": sum(t.score for t in r.tests),
        "wall_s": round(wall, 2),
        "student_cells_cpu_s": round(cells, 2),
        "student_calls_cpu_s": round(sum(x["all"] for x in student) - cells, 2),
        "fresh_workers": len(fresh),
        "fresh_cpu_s": round(sum(fresh), 2),
        "largest_fresh_cpu_s": round(max(fresh, default=0.0), 2),
        "master_cpu_s": round(master_cpu, 2),
        "judge_cpu_s": round(judge, 2),
        "proof": {k: round(v, 2) for k, v in proof.items()},
    }


def bound(m: dict, copies: int) -> float:
    """The CPU seconds no grader of the rules can skip for a class of `copies` of each sample measured
    (docs/performance.md, "Where a row falls short"): per notebook its cells and its tests' calls (its own worker),
    one run of its kernel source by the kit where no code of the notebook runs (the largest of its fresh workers), the
    master's answers to its inputs and the master on the hidden tests it lost (its proof's master and fresh workers);
    once a class, the master through the gate.  Not the judges, the kit's other fresh workers, the workers' starts or
    the frameworks' imports."""
    parts = sum(
        r["student_cells_cpu_s"]
        + r["student_calls_cpu_s"]
        + r["largest_fresh_cpu_s"]
        + r["master_cpu_s"]
        + r["proof"]["master_s"]
        + r["proof"]["fresh_s"]
        for r in m["rows"]
    )
    return copies * parts + m["gate"]["master_cpu_s"] + m["gate"]["fresh_cpu_s"]


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("assignments", nargs="+")
    ap.add_argument("--samples", default=KINDS, help=f"bench/run.py's sample kinds (default {KINDS})")
    ap.add_argument("--copies", type=int, default=10, help="copies of each sample in the class bounded (default 10)")
    ap.add_argument("--json", action="store_true")
    args = ap.parse_args(argv)
    os.environ.setdefault("AUTOGRADER_SECRET", "bench-course-secret")  # as bench/run.py: per-student inputs
    results = [measure(x, args.samples.split(",")) for x in args.assignments]
    for m in results:
        m["bound_cpu_s"] = round(bound(m, args.copies), 1)
    if args.json:
        print(json.dumps(results))
        return 0
    for m in results:
        g = m["gate"]
        print(f"\n{m['assignment']} (load {m['load'][0]:.1f}): CPU seconds per worker, read from /proc")
        print(
            f"the master through the gate: {g['wall_s']:.2f} s (the zygote's start included), its worker "
            f"{g['master_cpu_s']:.2f} s of CPU, its fresh workers {g['fresh_cpu_s']:.2f} s"
        )
        print(
            "| notebook | score | wall | cells | calls | fresh workers | fresh CPU (largest) | master | judge "
            "| its proof: wall, master + fresh, judge |"
        )
        print("|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|")
        for r in m["rows"]:
            print(
                f"| {r['notebook']} | {r['score']:g} | {r['wall_s']:.2f} | {r['student_cells_cpu_s']:.2f} | "
                f"{r['student_calls_cpu_s']:.2f} | {r['fresh_workers']} | {r['fresh_cpu_s']:.2f} "
                f"({r['largest_fresh_cpu_s']:.2f}) | {r['master_cpu_s']:.2f} | {r['judge_cpu_s']:.2f} | "
                f"{r['proof']['wall_s']:.2f}, {r['proof']['master_s'] + r['proof']['fresh_s']:.2f}, "
                f"{r['proof']['judge_s']:.2f} |"
            )
        print(
            f"the bound of a class of {args.copies} of each: {m['bound_cpu_s']:.1f} s of CPU, "
            f"{m['bound_cpu_s'] / 2:.1f} s on two cores"
        )
    return 0


if __name__ == "__main__":
    sys.exit(main())
