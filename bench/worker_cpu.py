"""What each worker of a notebook's grading spends, in CPU seconds read from /proc by the judge, per sample kind.

    .venv/bin/python bench/worker_cpu.py tf02b_kernels                            # a table on stdout
    .venv/bin/python bench/worker_cpu.py 02b_kernels --samples perfect,partial --json

In this process, as a judge does (`pipeline._judge`, `--jobs 1`): the reference pass over the master, then each of
`--samples` (bench/run.py's notebooks, made from the master) graded once under a student's own variant of the
hidden inputs.  Each worker's process tree is read as the kit reads it for its cost checks (`WorkerProcess.
cpu_seconds`: the worker, its threads and the processes it waited for, such as a compiler): the student's worker
after its cells and again when it closes (the difference is what its probe calls cost), the kit's fresh workers
(`student.fresh`: a kernel compiled and run where no code of the notebook can reach it), and the master's worker
while it answers that student's inputs; the judge's own CPU (pytest, the checks, the wire) beside them.  These
are the parts a class-level bound sums (docs/performance.md, "Where a row falls short"): `floor.py` cannot run
tf02b_kernels (its op registers its gradient once per process), and counts only a correct notebook.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

BENCH = Path(__file__).resolve().parent
sys.path.insert(0, str(BENCH))
sys.path.insert(0, str(BENCH.parent))

from run import make_class  # noqa: E402

from autograder.config.assignment import load_assignment  # noqa: E402
from autograder.execute.runner import NotebookRunner  # noqa: E402
from autograder.judge import session  # noqa: E402
from autograder.judge.options import GradeOptions  # noqa: E402

KINDS = "perfect,partial,exception_midway,blank"


class _Readings:
    """Each `NotebookRunner`'s worker CPU, read when its cells end and when it closes (by patching the class)."""

    def __init__(self) -> None:
        self.rows: list[dict[str, Any]] = []
        execute, close = NotebookRunner.execute, NotebookRunner.close
        readings = self

        def read(runner: NotebookRunner) -> float:
            worker = runner.worker
            return (worker.cpu_seconds(rescan=True) or 0.0) if worker is not None else 0.0

        def execute_read(runner: NotebookRunner) -> None:
            execute(runner)  # before each call too (a worker that ran the cells, or one brought up again)
            if not hasattr(runner, "_bench_cells_cpu"):  # the first: when the cells have ended
                runner._bench_cells_cpu = read(runner)  # type: ignore[attr-defined]

        def close_read(runner: NotebookRunner) -> None:
            cells = getattr(runner, "_bench_cells_cpu", None)
            readings.rows.append({"cells": cells, "all": read(runner), "runner": runner})
            close(runner)

        NotebookRunner.execute, NotebookRunner.close = execute_read, close_read  # type: ignore[method-assign]


def measure(assignment_id: str, kinds: list[str]) -> dict:
    os.environ.setdefault("AUTOGRADER_SECRET", "bench-course-secret")  # as bench/run.py: per-student inputs
    a = load_assignment(assignment_id, BENCH.parent)
    options = GradeOptions()
    readings = _Readings()
    session.grade_notebook(a, a.solution, submission_id="__reference__", options=options, as_reference=True)
    reference = session.reference_for(a, a.version(), options)
    out = []
    with tempfile.TemporaryDirectory(prefix="ag-worker-cpu-") as work:
        for sid, path in make_class(Path(work), a.id, 1, kinds):
            master = reference._runner.worker if reference._runner and reference._runner.worker else None
            master_before = (master.cpu_seconds(rescan=True) or 0.0) if master else 0.0
            readings.rows.clear()
            t0, judge0 = time.monotonic(), time.process_time()
            r = session.grade_notebook(a, path, submission_id=sid, options=options, variant=f"bench-{sid}")
            wall, judge = time.monotonic() - t0, time.process_time() - judge0
            master = reference._runner.worker if reference._runner and reference._runner.worker else None
            master_cpu = ((master.cpu_seconds(rescan=True) or 0.0) - master_before) if master else 0.0
            # a fresh worker runs no cell (`NotebookRunner.call_fresh`: an empty notebook, executed at its call)
            student = [x for x in readings.rows if x["runner"].cells]
            fresh = [x for x in readings.rows if not x["runner"].cells]
            cells = sum(x["cells"] for x in student)
            out.append(
                {
                    "notebook": sid,
                    "score": sum(t.score for t in r.tests),
                    "wall_s": round(wall, 2),
                    "student_cells_cpu_s": round(cells, 2),
                    "student_calls_cpu_s": round(sum(x["all"] for x in student) - cells, 2),
                    "fresh_workers": len(fresh),
                    "fresh_cpu_s": round(sum(x["all"] for x in fresh), 2),
                    "master_cpu_s": round(master_cpu, 2),
                    "judge_cpu_s": round(judge, 2),
                }
            )
    session.close_references()
    return {"assignment": a.id, "load": os.getloadavg(), "rows": out}


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("assignments", nargs="+")
    ap.add_argument("--samples", default=KINDS, help=f"bench/run.py's sample kinds (default {KINDS})")
    ap.add_argument("--json", action="store_true")
    args = ap.parse_args(argv)
    results = [measure(x, args.samples.split(",")) for x in args.assignments]
    if args.json:
        print(json.dumps(results))
        return 0
    for m in results:
        print(f"\n{m['assignment']} (load {m['load'][0]:.1f}): CPU seconds per worker, read from /proc")
        print("| notebook | score | wall | cells | calls | fresh workers | fresh CPU | master | judge |")
        print("|---|---:|---:|---:|---:|---:|---:|---:|---:|")
        for r in m["rows"]:
            print(
                f"| {r['notebook']} | {r['score']:g} | {r['wall_s']:.2f} | {r['student_cells_cpu_s']:.2f} | "
                f"{r['student_calls_cpu_s']:.2f} | {r['fresh_workers']} | {r['fresh_cpu_s']:.2f} | "
                f"{r['master_cpu_s']:.2f} | {r['judge_cpu_s']:.2f} |"
            )
    return 0


if __name__ == "__main__":
    sys.exit(main())
