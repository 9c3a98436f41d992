"""`autograder check-solutions`: each master scores full marks, its released notebook 0, with room in cell_timeout
(`pipeline.check_solutions`, `--jobs` assignments at once)."""

from __future__ import annotations

import argparse
import tempfile
from pathlib import Path

from autograder.cli.common import Context, add_grading, assignment_ids, grade_settings


def add(subparsers: argparse._SubParsersAction) -> None:
    c = subparsers.add_parser(
        "check-solutions",
        help="master must score 100%%, released notebook 0%%",
        epilog="example: autograder check-solutions 01_tensors 02_autograd",
    )
    c.add_argument("assignments", nargs="*", help="default: all")
    add_grading(c)
    c.set_defaults(run=run)


def run(args: argparse.Namespace, ctx: Context) -> int:
    from autograder.config import limits
    from autograder.pipeline import check_solutions
    from autograder.student.release import release

    ok = True
    with tempfile.TemporaryDirectory() as tmp:
        released = {
            name: release(ctx.kit, name, Path(tmp) / name)[0] for name in assignment_ids(args.assignments, ctx.kit)
        }
        for c in check_solutions(released, ctx.kit, grade_settings(args, ctx)):
            a, master, blank = c.assignment, c.master, c.blank
            ok &= c.ok
            print(
                f"{'ok  ' if c.ok else 'FAIL'} {a.id}: master {master.score:g}/{master.max_score:g} "
                f"({master.status}), student notebook {blank.score:g}/{blank.max_score:g}, expected "
                f"{a.total_points:g} and 0; slowest master cell {master.slowest_cell_cpu:.2f} s of CPU "
                f"(cell_timeout {a.limits.cell_timeout:g} s)",
                flush=True,
            )
            for t in master.tests:
                if t.outcome not in ("passed", "skipped"):
                    print(f"     master {t.outcome}: {t.id}: {t.message[:300]}")
            for t in blank.tests:
                if t.score > 0:
                    print(f"     student notebook earns {t.score:g} on {t.id}")
            for prob in master.problems:
                print(f"     problem: {prob[:500]}")
            if c.gate and not master.problems:
                print(f"     gate: {c.gate.splitlines()[0][:500]}")
            if c.tight:
                print(
                    f"     problem: cell_timeout = {a.limits.cell_timeout:g} s is under {limits.CELL_TIMEOUT_MARGIN}x the "
                    f"master's slowest cell ({master.slowest_cell_cpu:.2f} s of CPU): raise it in the manifest's [limits]"
                )
    return 0 if ok else 1
