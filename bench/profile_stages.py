"""Where a submission's grading time goes: one judge, cProfile, stages and modules.

    .venv/bin/python bench/profile_stages.py 03_components --copies 3          # table on stdout
    .venv/bin/python bench/profile_stages.py 03_components --json               # JSON on stdout

In this process, as a judge does (`pipeline._judge`, `--jobs 1`): the reference pass over the master
(`grade_notebook(as_reference=True)`, which starts the warm zygote and fills the reference cache), one
warm-up submission, then `--copies` gradings of the same notebook (default: the master itself, i.e. a
correct submission) under cProfile, each followed by `write_submission` as the grade command does.

Stages come from cumulative times of the functions that own them (per submission, averaged); modules
from own time (tottime), with C functions (`~`: socket reads, `select`, `fork`...) charged to the module
that called them, so waiting on the worker lands in `autograder.execute`.  cProfile slows Python-heavy
code (pytest) more than waiting, so `unprofiled_s` (the same gradings timed without the profiler) is
printed next to the profiled total.
"""

from __future__ import annotations

import argparse
import cProfile
import json
import pstats
import shutil
import sys
import sysconfig
import tempfile
import time
from collections import defaultdict
from pathlib import Path

BENCH = Path(__file__).resolve().parent
KIT = BENCH.parent
sys.path.insert(0, str(KIT))

from autograder.config.assignment import load_assignment  # noqa: E402
from autograder.judge.session import GradeOptions, close_references, grade_notebook  # noqa: E402
from autograder.pipeline import judge_threads  # noqa: E402
from autograder.store.result_files import write_submission  # noqa: E402

# (stage, [(file suffix, function name)]): cumulative time of the first function found that matches.
_FUNCS = {
    "spawn": [("autograder/execute/runner.py", "_spawn")],
    "execute": [("autograder/execute/runner.py", "execute")],
    "runner_close": [("autograder/execute/runner.py", "close")],
    "parse": [("autograder/notebook/parse.py", "load_cells"), ("autograder/intake/submissions.py", "file_sha256")],
    "pytest": [("autograder/judge/suite.py", "run")],
    "collection": [("_pytest/main.py", "perform_collect")],
    "test_functions": [("_pytest/python.py", "pytest_pyfunc_call")],
    "probe_calls": [("autograder/probe/client.py", "_run")],  # student(...) and student.map(...)
    "student_round_trips": [("autograder/execute/runner.py", "call_many")],  # call() goes through it
    "reference": [("autograder/probe/reference.py", "call")],
    "write": [("autograder/config/files.py", "write_submission")],
    "to_record": [("autograder/judge/results.py", "to_record")],
}


def cumulative(stats: pstats.Stats, suffix: str, name: str) -> tuple[float, int]:
    """The cumulative seconds and the calls of the function `name` of a file ending in `suffix`."""
    hits = [v for (f, _, n), v in stats.stats.items() if n == name and f.endswith(suffix)]  # type: ignore[attr-defined]
    return sum(v[3] for v in hits), sum(v[1] for v in hits)


_STDLIB = sysconfig.get_paths()["stdlib"].replace("\\", "/") + "/"


def module_of(filename: str) -> str:
    """A profile entry's file as a module group: autograder.<package>, a site-packages top level, ..."""
    f = filename.replace("\\", "/")
    if "/autograder/" in f and "site-packages" not in f:
        parts = f.split("/autograder/", 1)[1].split("/")
        return "autograder." + parts[0].removesuffix(".py") if len(parts) > 1 else "autograder"
    if "/assignments/" in f:
        return "assignment probes.py" if f.endswith("probes.py") else "assignment tests"
    if "site-packages/" in f:
        top = f.split("site-packages/", 1)[1].split("/")[0].removesuffix(".py")
        return {"pluggy": "_pytest", "pytest": "_pytest", "_pytest": "_pytest"}.get(top, top)
    if f.startswith("<frozen") or f.startswith(_STDLIB):
        return "python stdlib"
    if f.startswith("<"):
        return "generated code"
    return "other"


def by_module(stats: pstats.Stats) -> dict[str, float]:
    """Own time per module.  The own time of C functions and of the standard library (sockets,
    selectors, json, subprocess...) is charged to the first caller outside them, split by how much
    of it each caller caused, so waiting on the worker lands in the module that waits."""
    table = stats.stats  # type: ignore[attr-defined]
    out: dict[str, float] = defaultdict(float)

    def home(f: str) -> str | None:
        m = module_of(f) if f != "~" else "python stdlib"
        return None if m == "python stdlib" else m

    memo: dict[tuple, dict[str, float]] = {}

    def shares(func: tuple, stack: frozenset) -> dict[str, float]:
        """How a unit of `func`'s own time divides among modules outside the stdlib (memoized)."""
        m = home(func[0])
        if m is not None:
            return {m: 1.0}
        if func in memo:
            return memo[func]
        callers = {c: v for c, v in table.get(func, (0, 0, 0, 0, {}))[4].items() if c not in stack}
        total = sum(v[2] for v in callers.values())
        if not callers or total <= 0:
            return {"python stdlib / C (no caller outside)": 1.0}
        got: dict[str, float] = defaultdict(float)
        for caller, v in callers.items():
            for mod, frac in shares(caller, stack | {func}).items():
                got[mod] += frac * v[2] / total
        memo[func] = got
        return got

    for func, (_, _, tt, _, _) in table.items():
        for mod, frac in shares(func, frozenset()).items():
            out[mod] += tt * frac
    return dict(out)


def stages(stats: pstats.Stats, n: int, total: float) -> dict[str, float]:
    c = {k: sum(cumulative(stats, s, fn)[0] for s, fn in v) / n for k, v in _FUNCS.items()}
    row = {
        "parse notebook": c["parse"],
        "fork and sandbox start": c["spawn"],
        "cell execution (wait for the worker)": c["execute"] - c["spawn"],
        "pytest collection": c["collection"],
        "pytest run, fixtures, plugin (outside test functions)": c["pytest"] - c["collection"] - c["test_functions"],
        "student probe round trips": c["student_round_trips"],
        "reference (cached answers)": c["reference"],
        "test functions' own code": c["test_functions"] - c["probe_calls"],
        "probe client (seeds, time limit)": c["probe_calls"] - c["student_round_trips"] - c["reference"],
        "worker teardown": c["runner_close"],
        "result writing (to_record, files)": c["write"] + c["to_record"],
    }
    row["other"] = total / n - sum(row.values())
    return row


def profile(assignment_id: str, notebook: Path | None, copies: int) -> dict:
    a = load_assignment(assignment_id, KIT)
    work = Path(tempfile.mkdtemp(prefix="ag-profile-"))
    try:
        nb = work / "submission.ipynb"
        shutil.copyfile(notebook or a.solution, nb)
        options = GradeOptions(cache_dir=work / "cache")
        judge_threads()  # as in a judge process
        t0 = time.perf_counter()
        grade_notebook(a, a.solution, submission_id="reference", as_reference=True, options=options)
        reference_pass = time.perf_counter() - t0
        t0 = time.perf_counter()
        grade_notebook(a, nb, submission_id="warmup", options=options)
        warmup = time.perf_counter() - t0
        out = work / "results"

        times, exec_times = [], []
        for k in range(copies):  # unprofiled
            t0 = time.perf_counter()
            r = grade_notebook(a, nb, submission_id=f"plain{k}", options=options)
            write_submission(out, r)
            times.append(time.perf_counter() - t0)
            exec_times.append(r.execution_time)
        prof = cProfile.Profile()
        t0 = time.perf_counter()
        prof.enable()
        for k in range(copies):
            write_submission(out, grade_notebook(a, nb, submission_id=f"s{k}", options=options))
        prof.disable()
        total = time.perf_counter() - t0
        stats = pstats.Stats(prof)
        modules = {k: v / copies for k, v in sorted(by_module(stats).items(), key=lambda kv: -kv[1])}
        return {
            "assignment": assignment_id,
            "copies": copies,
            "status": r.status,
            "score": r.score,
            "reference_pass_s": reference_pass,
            "warmup_s": warmup,
            "unprofiled_s": sorted(times)[len(times) // 2],
            "execution_time_s": sorted(exec_times)[len(exec_times) // 2],
            "profiled_s": total / copies,
            "stages": stages(stats, copies, total),
            "modules": modules,
        }
    finally:
        close_references()
        shutil.rmtree(work, ignore_errors=True)


def render(p: dict, top: int = 12) -> str:
    lines = [
        f"{p['assignment']}: {p['copies']} gradings of one notebook ({p['status']}, {p['score']:g} points); "
        f"unprofiled median {p['unprofiled_s']:.3f} s/submission (execution_time {p['execution_time_s']:.3f} s), "
        f"profiled {p['profiled_s']:.3f} s"
    ]
    lines.append(f"  {'stage':<56} {'s/sub':>7} {'share':>6}")
    for k, v in p["stages"].items():
        lines.append(f"  {k:<56} {v:7.3f} {100 * v / p['profiled_s']:5.1f}%")
    lines.append(f"  {'module (own time; C and stdlib charged to callers)':<56} {'s/sub':>7} {'share':>6}")
    for k, v in list(p["modules"].items())[:top]:
        lines.append(f"  {k:<56} {v:7.3f} {100 * v / p['profiled_s']:5.1f}%")
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("assignment")
    ap.add_argument("--notebook", type=Path, help="the submission to grade (default: the master notebook)")
    ap.add_argument("--copies", type=int, default=3)
    ap.add_argument("--json", action="store_true")
    args = ap.parse_args(argv)
    p = profile(args.assignment, args.notebook, args.copies)
    print(json.dumps(p) if args.json else render(p))
    return 0


if __name__ == "__main__":
    sys.exit(main())
