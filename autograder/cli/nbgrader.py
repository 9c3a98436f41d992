"""`autograder nbgrader`: nbgrader's source notebook of an assignment, or a course's submissions graded into its gradebook."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from autograder.cli.common import Context, add_grading, grade_settings
from autograder.report.escape import terminal


def add(subparsers: argparse._SubParsersAction) -> None:
    n = subparsers.add_parser(
        "nbgrader",
        help="nbgrader interop: write a source notebook, or grade a course",
        epilog="example: autograder nbgrader source 01_tensors --course ~/course && autograder nbgrader grade 01_tensors --course ~/course",
    )
    n.add_argument(
        "action",
        choices=("source", "grade"),
        help="source: write nbgrader's source notebook; grade: grade submitted/ into gradebook.db",
    )
    n.add_argument("assignment", help="assignment id (a folder of assignments/)")
    n.add_argument("--course", type=Path, required=True, help="the nbgrader course root")
    n.add_argument("--nb-assignment", help="nbgrader's assignment name (default: the same)")
    n.add_argument(
        "--roster",
        type=Path,
        help="roster CSV: extensions keyed by any of a student's ids (default: the course file's)",
    )
    n.add_argument("--out", type=Path, help="the kit's results folder (default: the course file's, else results/)")
    add_grading(n)
    n.set_defaults(run=run)


def run(args: argparse.Namespace, ctx: Context) -> int:
    from autograder.interop import nbgrader as nbg

    settings = grade_settings(args, ctx)
    if args.action == "source":  # the exercises' points come from grading the master, sandboxed like any notebook
        from autograder.config.course import package_link

        dest = nbg.write_source_notebook(
            ctx.kit, args.assignment, args.course, args.nb_assignment, settings=settings, link=package_link(ctx.course)
        )
        print(f"wrote {dest}")
        return 0
    done = nbg.grade_course(
        ctx.kit,
        args.assignment,
        args.course,
        settings,
        nb_assignment=args.nb_assignment,
        roster_csv=args.roster,
        warn=lambda w: print(terminal(w), file=sys.stderr),
    )
    for student, score in done.items():
        print(terminal(student) + f"\t{score:g}")
    return 0
