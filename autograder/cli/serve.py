"""`autograder serve`: the instructors' workspace over a results folder, until interrupted."""

from __future__ import annotations

import argparse
import getpass
import sys
from pathlib import Path

from autograder.cli.common import Context
from autograder.report.escape import terminal


def add(subparsers: argparse._SubParsersAction) -> None:
    w = subparsers.add_parser(
        "serve",
        help="the instructors' workspace: browse the class, override with a comment, similar pairs",
        epilog="example: autograder serve --out results --roster roster.csv   (open the printed URL)",
    )
    w.add_argument("--out", type=Path, help="results folder (default: the course file's, else results/)")
    w.add_argument("--roster", type=Path, help="roster CSV (default: the course file's)")
    w.add_argument("--host", help="address to listen on (default: course.toml's [serve] host, else 127.0.0.1)")
    w.add_argument("--port", type=int, help="port (default: course.toml's [serve] port, else 8700; 0: any free one)")
    w.set_defaults(run=run)


def run(args: argparse.Namespace, ctx: Context) -> int:
    """The instructors' workspace over this results folder (autograder.serve); runs until interrupted."""
    from autograder.serve.access import AccessError
    from autograder.serve.app import serve

    course = ctx.course
    table = course.table("serve") if course else {}
    try:
        return serve(
            ctx.kit,
            args.out,
            host=args.host or table.get("host", "127.0.0.1"),
            port=args.port if args.port is not None else int(table.get("port", 8700)),
            roster=args.roster,
            course=course,
            who=getpass.getuser(),
        )
    except (AccessError, OSError) as e:
        print(terminal(f"error: {e}"), file=sys.stderr)
        return 2
