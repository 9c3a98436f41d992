"""`autograder list`: the kit's assignments and their titles."""

from __future__ import annotations

import argparse

from autograder.cli.common import Context
from autograder.config.assignment import list_assignments, load_assignment


def add(subparsers: argparse._SubParsersAction) -> None:
    p = subparsers.add_parser("list", help="list the kit's assignments", epilog="example: autograder list")
    p.set_defaults(run=run)


def run(args: argparse.Namespace, ctx: Context) -> int:
    for name in list_assignments(ctx.kit):
        print(f"{name}\t{load_assignment(name, ctx.kit).title}")
    return 0
