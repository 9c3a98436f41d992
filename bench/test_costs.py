"""What each test of an assignment costs: CPU seconds of its student calls and of its reference calls.

    .venv/bin/python bench/test_costs.py tf04_house                 # a table per assignment on stdout
    .venv/bin/python bench/test_costs.py tf01_bricks tf03_walls --json

In one warm process (as bench/floor.py: the master's cells exec'd, both sides in process, the tests collected
once, as a judge does), the assignment's tests run twice under a course secret: the first run warms up
(imports, TensorFlow's first traces), the second is timed (`--rounds`).  Each probe call's CPU time (`time.process_time`,
the process's own: other work on a shared machine moves it little) is charged to the test that made it, by
side.  `student` is what a correct notebook's worker spends on that test; `reference` what the master's
worker spends answering the same student's inputs (its cache answers a `same_inputs` test's calls once per
class).  A fresh worker pays TensorFlow's first uses again; this table does not, so its sum is below a
notebook's `execution_time`: the load is printed beside it.  docs/performance.md's per-test tables come from it.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import tempfile
import time
from collections import defaultdict
from pathlib import Path
from typing import Any

BENCH = Path(__file__).resolve().parent
sys.path.insert(0, str(BENCH))
sys.path.insert(0, str(BENCH.parent))

from floor import Direct, run_master, start_framework  # noqa: E402

from autograder.config.assignment import load_assignment  # noqa: E402
from autograder.config.secret import find_secret  # noqa: E402
from autograder.execute.backend import ProbeBackend  # noqa: E402
from autograder.judge.plugin import GradingPlugin  # noqa: E402
from autograder.judge.session import load_probes  # noqa: E402
from autograder.judge.suite import TestSuite  # noqa: E402
from autograder.probe.seeds import Seeds  # noqa: E402


class Timed(ProbeBackend):
    """Forwards to a backend; charges each call's CPU seconds to the running test (`plugin._item`).  The
    backend's other methods are `ProbeBackend`'s, which answer through `call`, as `Direct`'s do."""

    def __init__(self, inner: Any, plugin: GradingPlugin, costs: dict, role: str) -> None:
        self.inner, self.plugin, self.costs, self.role = inner, plugin, costs, role

    def call(
        self, probe: str, args: tuple = (), kwargs: dict | None = None, *, seed: int = 0, timeout: float | None = None
    ) -> Any:
        t0 = time.process_time()
        try:
            return self.inner.call(probe, args, kwargs, seed=seed, timeout=timeout)
        finally:
            row = self.costs[self.plugin._item.nodeid]
            row[self.role] += time.process_time() - t0
            row[self.role + "_calls"] += 1


def measure(assignment_id: str, secret: str, rounds: int = 2) -> dict:
    a = load_assignment(assignment_id, BENCH.parent)
    probes = load_probes(a, a.version())
    start_framework(a)  # as a worker starts it
    os.environ["AUTOGRADER_SECRET"] = secret
    secret_ = find_secret()  # the one just set: a student's own inputs under it
    seeds = Seeds.for_course(secret_, a.id, Seeds.for_course(secret_, a.id).variant_of("bench-student"))
    plugin = GradingPlugin(
        student=None,
        reference=None,
        probes=probes,
        seeds=seeds,
        test_timeout=a.limits.test_timeout,
        devices=("cpu",),
        cuda_available=False,
        hidden_dir=a.hidden_dir,
    )
    with TestSuite([a.public_dir, a.hidden_dir], plugin, a.root) as suite:
        for _ in range(rounds):
            costs: dict = defaultdict(lambda: defaultdict(float))
            ns, _ = run_master(a.id)
            plugin.bind(
                Timed(Direct(ns, probes), plugin, costs, "student"),
                Timed(Direct(ns, probes), plugin, costs, "reference"),
                seeds,
            )
            t0 = time.process_time()
            suite.run()
            total = time.process_time() - t0
    results = {r.id: r for r in plugin.results}
    rows = []
    for nodeid, row in costs.items():
        r = next((x for x in plugin.results if nodeid.endswith(x.id) or x.id.endswith(nodeid)), None)
        rows.append(
            {
                "test": nodeid.split("/")[-1],
                "points": r.max_score if r else None,
                "outcome": r.outcome if r else None,
                "student_cpu_s": round(row["student"], 3),
                "reference_cpu_s": round(row["reference"], 3),
                "calls": int(row["student_calls"] + row["reference_calls"]),
            }
        )
    rows.sort(key=lambda x: -(x["student_cpu_s"] + x["reference_cpu_s"]))
    return {
        "assignment": a.id,
        "tests": len(results),
        "passed": sum(r.outcome == "passed" for r in plugin.results),
        "run_cpu_s": round(total, 2),
        "student_cpu_s": round(sum(x["student_cpu_s"] for x in rows), 2),
        "reference_cpu_s": round(sum(x["reference_cpu_s"] for x in rows), 2),
        "rows": rows,
        "load": os.getloadavg(),
    }


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("assignments", nargs="+")
    ap.add_argument("--secret", default="bench-test-costs", help="the course secret (per-student inputs on)")
    ap.add_argument(
        "--rounds",
        type=int,
        default=2,
        help="runs of the tests, the last timed (tf02b_kernels: 1, as "
        "its probes register the op's gradient once per process)",
    )
    ap.add_argument("--json", action="store_true")
    args = ap.parse_args(argv)
    cwd = os.getcwd()
    out = []
    with tempfile.TemporaryDirectory(prefix="ag-costs-") as work:
        os.chdir(work)  # checkpoints the probes write land here, as in a worker's own folder
        try:
            for x in args.assignments:
                out.append(measure(x, args.secret, args.rounds))
        finally:
            os.chdir(cwd)
    if args.json:
        print(json.dumps(out))
        return 0
    for m in out:
        print(
            f"\n{m['assignment']}: {m['passed']}/{m['tests']} passed; CPU s student {m['student_cpu_s']}, "
            f"reference {m['reference_cpu_s']}, whole run {m['run_cpu_s']}; load {m['load'][0]:.1f}"
        )
        print("| test | points | student CPU s | reference CPU s | calls |\n|---|---:|---:|---:|---:|")
        for r in m["rows"]:
            print(
                f"| `{r['test']}` | {r['points']} | {r['student_cpu_s']:.2f} | {r['reference_cpu_s']:.2f} | {r['calls']} |"
            )
    return 0


if __name__ == "__main__":
    sys.exit(main())
