"""`autograder report`: the instructor report, one self-contained HTML file."""

from __future__ import annotations

import argparse
from pathlib import Path

from autograder.cli.common import Context, add_common, grades_of
from autograder.report.instructor_report import write_report


def add(subparsers: argparse._SubParsersAction) -> None:
    r = subparsers.add_parser(
        "report",
        help="instructor report (one self-contained HTML file)",
        epilog="example: autograder report 01_tensors --out results --roster roster.csv",
    )
    add_common(r)
    r.add_argument("--to", type=Path, help="file (default: OUT/ASSIGNMENT/report.html)")
    r.set_defaults(run=run)


def run(args: argparse.Namespace, ctx: Context) -> int:
    g = grades_of(args, ctx)  # roster names, missing students, late penalties: as the exports
    a, out, rows = g.assignment, g.out, g.rows
    dest = args.to or out / a.id / "report.html"
    write_report(dest, rows, title=a.title)
    print(f"wrote {dest}")
    return 0
