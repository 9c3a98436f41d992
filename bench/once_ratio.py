"""The spread of 02_autograd's "backward_twice evaluates f once" decision, per amount of work f does.

    .venv/bin/python bench/once_ratio.py                            # WORK 1, 2 and 4, 100 trials each
    .venv/bin/python bench/once_ratio.py --work 1 --trials 300 --busy 4

`hidden/test_detach_retain.py::test_backward_twice_runs_f_once` decides from CPU seconds the judge reads from /proc:
a call of `backward_twice` with an f that does WORK units of fixed work, against one call of that f measured right
before and after it in the same worker.  Its ratio is about 1 for a notebook that keeps the graph and about 2 for
one that runs the forward again; the test's `once_or_more` (its `PASS`, `FAIL` and `SPLIT`) decides between them.  Every unit of work
is CPU each student and the master spend, so WORK is chosen by this spread: here, through the kit's sandboxed
workers, the master notebook (f once) and the curriculum's mutant that runs the forward again (f twice) are
measured `--trials` times per WORK, with `--busy` processes spinning beside them (a busy grading host).  Printed
per case: the ratio's quantiles, and the test's verdicts (`once_or_more`) on the trials in order, each pooling the
tries it took: how many were wrong, and how many tries each took (what a student's worker spends on it).
"""

from __future__ import annotations

import argparse
import importlib.util
import multiprocessing
import os
import sys
from pathlib import Path

BENCH = Path(__file__).resolve().parent
sys.path.insert(0, str(BENCH.parent))

import torch  # noqa: E402

from autograder.config.assignment import load_assignment  # noqa: E402
from autograder.execute.runner import NotebookRunner  # noqa: E402
from autograder.judge.options import GradeOptions  # noqa: E402
from autograder.notebook.parse import load_cells  # noqa: E402

KIT = BENCH.parent
TEST = KIT / "assignments" / "02_autograd" / "hidden" / "test_detach_retain.py"
MUTANT = "backward_twice re-runs the forward instead of retaining the graph"  # tests/curriculum/variants/02_autograd.py


def _module(path: Path):
    spec = importlib.util.spec_from_file_location(path.stem, path)
    assert spec and spec.loader
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def _runner(twice: bool) -> NotebookRunner:
    a = load_assignment("02_autograd", KIT)
    cells = load_cells(a.solution)
    if twice:
        [m] = [
            m
            for m in _module(KIT / "tests" / "curriculum" / "variants" / "02_autograd.py").MUTANTS
            if m["name"] == MUTANT
        ]
        cells = [type(c)(**{**vars(c), "source": c.source.replace(m["old"], m["new"])}) for c in cells]
    runner = NotebookRunner(cells, probes=a.probes, limits=a.limits, isolation=GradeOptions().isolation, seed=1)
    runner.execute()
    return runner


def _try(runner: NotebookRunner, x: torch.Tensor, work: int) -> tuple[float, float]:
    """One try of the test's measurement: backward_twice's CPU seconds, and one f's (the mean of a call before
    and a call after it)."""
    before = runner.call_costed("costly_once", (x, "poly", work))[1]
    got = runner.call_costed("backward_twice_costly", (x, "poly", work))[1]
    after = runner.call_costed("costly_once", (x, "poly", work))[1]
    return got, (before + after) / 2


def _decisions(tries: list[tuple[float, float]], once_or_more) -> list[tuple[bool, int]]:
    """The test's verdicts on the tries in order, each verdict pooling the tries it took (`once_or_more`), and how
    many it took."""
    out, got, once, n = [], 0.0, 0.0, 0
    for g, o in tries:
        got, once, n = got + g, once + o, n + 1
        verdict = once_or_more(got, once, n)
        if verdict is not None:
            out.append((verdict, n))
            got, once, n = 0.0, 0.0, 0
    return out


def _spin() -> None:
    while True:
        pass


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--work", default="1,2,4", help="amounts of work per call of f (the test's WORK)")
    ap.add_argument("--trials", type=int, default=100)
    ap.add_argument("--busy", type=int, default=0, help="processes spinning beside the measurement")
    args = ap.parse_args(argv)
    test = _module(TEST)
    spinners = [multiprocessing.Process(target=_spin, daemon=True) for _ in range(args.busy)]
    for p in spinners:
        p.start()
    x = torch.randn(3, 4, dtype=torch.float64, generator=torch.Generator().manual_seed(0))
    print(
        f"the test: WORK {test.WORK}, PASS {test.PASS}, FAIL {test.FAIL}, SPLIT {test.SPLIT}, tries {test.FIRST}-{test.LAST}; "
        f"{args.busy} processes spinning beside, load {os.getloadavg()[0]:.1f}"
    )
    print("| f | WORK | f's CPU (median) | ratio min | 1 % | median | 99 % | max | verdicts | wrong | tries each |")
    print("|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|")
    try:
        for twice in (False, True):
            runner = _runner(twice)
            try:
                for work in (int(w) for w in args.work.split(",")):
                    tries = [_try(runner, x, work) for _ in range(args.trials)]
                    q = sorted(g / o for g, o in tries)
                    f = sorted(o for _, o in tries)[len(tries) // 2]
                    verdicts = _decisions(tries, test.once_or_more)
                    wrong = sum(v == twice for v, _ in verdicts)
                    print(
                        f"| {'twice' if twice else 'once'} | {work} | {f:.3f} s | {q[0]:.2f} | {q[len(q) // 100]:.2f} | "
                        f"{q[len(q) // 2]:.2f} | {q[-1 - len(q) // 100]:.2f} | {q[-1]:.2f} | {len(verdicts)} | {wrong} | "
                        f"{sum(n for _, n in verdicts) / max(len(verdicts), 1):.2f} |",
                        flush=True,
                    )
            finally:
                runner.close()
    finally:
        for p in spinners:
            p.kill()
    return 0


if __name__ == "__main__":
    sys.exit(main())
