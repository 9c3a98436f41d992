"""`autograder nbgrader`: nbgrader's source notebook of an assignment, or a course's submissions graded into its gradebook."""
from __future__ import annotations

import argparse
import sys
from pathlib import Path

from autograder.report.escape import terminal


def add(subparsers: argparse._SubParsersAction) -> None:
    n = subparsers.add_parser("nbgrader", help="nbgrader interop: write a source notebook, or grade a course",
                              epilog="example: autograder nbgrader source 01_tensors --course ~/course && autograder nbgrader grade 01_tensors --course ~/course")
    n.add_argument("action", choices=("source", "grade"),
                   help="source: write nbgrader's source notebook; grade: grade submitted/ into gradebook.db")
    n.add_argument("assignment", help="assignment id (a folder of assignments/)")
    n.add_argument("--course", type=Path, required=True, help="the nbgrader course root")
    n.add_argument("--nb-assignment", help="nbgrader's assignment name (default: the same)")
    n.add_argument("--roster", type=Path, help="roster CSV: extensions keyed by any of a student's ids "
                   "(default: the course file's)")
    n.add_argument("--out", type=Path, help="the kit's results folder (default: the course file's, else results/)")
    n.add_argument("--allow-weak-isolation", action="store_true",
                   help="grade without bubblewrap (rlimits only: student code can read your files)")
    n.set_defaults(run=run)


def run(args: argparse.Namespace, kit: Path) -> int:
    from autograder.interop import nbgrader as nbg

    from autograder.execute.sandbox import choose_isolation
    from autograder.judge.options import GradeOptions

    options = GradeOptions(device="cpu", isolation=choose_isolation(args.allow_weak_isolation))
    if args.action == "source":   # the exercises' points come from grading the master, sandboxed like any notebook
        from autograder.config.course import package_link

        dest = nbg.write_source_notebook(kit, args.assignment, args.course, args.nb_assignment, options=options,
                                         link=package_link(getattr(args, "course_settings", None)))
        print(f"wrote {dest}")
        return 0
    done = nbg.grade_course(kit, args.assignment, args.course, out=args.out.resolve(), options=options,
                            nb_assignment=args.nb_assignment, settings=getattr(args, "course_settings", None),
                            roster_csv=args.roster, warn=lambda w: print(terminal(f"warning: {w}"), file=sys.stderr))
    for student, score in done.items():
        print(terminal(student) + f"\t{score:g}")
    return 0
