"""`autograder check-solutions`: each master scores full marks, its released notebook 0, with room in cell_timeout."""

from __future__ import annotations

import argparse
import tempfile
from pathlib import Path

from autograder.cli.common import Context, add_grading, assignment_ids, grade_settings
from autograder.config.assignment import load_assignment


def add(subparsers: argparse._SubParsersAction) -> None:
    c = subparsers.add_parser(
        "check-solutions",
        help="master must score 100%%, released notebook 0%%",
        epilog="example: autograder check-solutions 01_tensors 02_autograd",
    )
    c.add_argument("assignments", nargs="*", help="default: all")
    add_grading(c, jobs=False)
    c.set_defaults(run=run)


def run(args: argparse.Namespace, ctx: Context) -> int:
    from autograder.config import limits
    from autograder.judge.gate import MasterFailed, check_master
    from autograder.judge.session import close_references, grade_notebook
    from autograder.pipeline import grade_options
    from autograder.student.release import release

    ok = True
    for name in assignment_ids(args.assignments, ctx.kit):
        a = load_assignment(name, ctx.kit)
        options = grade_options(grade_settings(args, ctx))
        with tempfile.TemporaryDirectory() as tmp:
            student_nb = release(ctx.kit, name, Path(tmp))[0]
            master = grade_notebook(a, a.solution, submission_id="master", options=options)
            blank = grade_notebook(a, student_nb, submission_id="student", options=options)
        # a correct solution a few times slower than the master must not time out (cell_timeout counts CPU)
        tight = master.slowest_cell_cpu * limits.CELL_TIMEOUT_MARGIN > a.limits.cell_timeout
        try:
            check_master(master)  # the gate grading a class would apply
            gate = ""
        except MasterFailed as e:
            gate = str(e)
        good = not gate and master.max_score == a.total_points and blank.score == 0 and not tight
        ok &= good
        print(
            f"{'ok  ' if good else 'FAIL'} {name}: master {master.score:g}/{master.max_score:g} "
            f"({master.status}), student notebook {blank.score:g}/{blank.max_score:g}, expected "
            f"{a.total_points:g} and 0; slowest master cell {master.slowest_cell_cpu:.2f} s of CPU "
            f"(cell_timeout {a.limits.cell_timeout:g} s)"
        )
        for t in master.tests:
            if t.outcome not in ("passed", "skipped"):
                print(f"     master {t.outcome}: {t.id}: {t.message[:300]}")
        for t in blank.tests:
            if t.score > 0:
                print(f"     student notebook earns {t.score:g} on {t.id}")
        for prob in master.problems:
            print(f"     problem: {prob[:500]}")
        if gate and not master.problems:
            print(f"     gate: {gate.splitlines()[0][:500]}")
        if tight:
            print(
                f"     problem: cell_timeout = {a.limits.cell_timeout:g} s is under {limits.CELL_TIMEOUT_MARGIN}x the master's "
                f"slowest cell ({master.slowest_cell_cpu:.2f} s of CPU): raise it in the manifest's [limits]"
            )
        close_references()
    return 0 if ok else 1
