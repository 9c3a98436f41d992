"""`autograder feedback`: one feedback page per student (HTML and Markdown)."""

from __future__ import annotations

import argparse
from pathlib import Path

from autograder.cli.common import Context, add_common, grades_of
from autograder.report.feedback import write_class_feedback


def add(subparsers: argparse._SubParsersAction) -> None:
    f = subparsers.add_parser(
        "feedback",
        help="per-student feedback pages (HTML + Markdown)",
        epilog="example: autograder feedback 01_tensors --out results",
    )
    add_common(f)
    f.add_argument("--to", type=Path, help="folder (default: OUT/ASSIGNMENT/feedback)")
    f.set_defaults(run=run)


def run(args: argparse.Namespace, ctx: Context) -> int:
    g = grades_of(args, ctx)
    dest = args.to or g.out / g.assignment.id / "feedback"
    n = write_class_feedback(g, dest)
    print(f"wrote {n} feedback pages (HTML + Markdown) to {dest}")
    return 0
