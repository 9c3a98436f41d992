"""`autograder validate`: a student's notebook run top to bottom as the grader runs it, then its public checks."""

from __future__ import annotations

import argparse
from pathlib import Path

from autograder.cli.common import Context


def add(subparsers: argparse._SubParsersAction) -> None:
    v = subparsers.add_parser(
        "validate",
        help="students: run a notebook top to bottom as the grader does (sandboxed), then its public checks",
        epilog="example: autograder validate 01_tensors.ipynb   (exit 0: ready to submit)",
    )
    v.add_argument("notebook", type=Path, help="the notebook to check, as you would submit it")
    v.set_defaults(run=run)


def run(args: argparse.Namespace, ctx: Context) -> int:
    """0 when every exercise is answered and passes its public checks (needs no hidden test, no ctx.kit)."""
    from autograder.student.validate import validate

    return validate(args.notebook, kit=args.kit)  # a kit named with --kit; never one found around
