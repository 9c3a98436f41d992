"""`autograder release`: student notebooks from the masters in solutions/ (or check that student/ is current)."""

from __future__ import annotations

import argparse
import filecmp
import sys
import tempfile
from pathlib import Path

from autograder.cli.common import Context, assignment_ids


def add(subparsers: argparse._SubParsersAction) -> None:
    r = subparsers.add_parser(
        "release",
        help="generate student/ notebooks from solutions/",
        epilog="example: autograder release 01_tensors && autograder release --check",
    )
    r.add_argument("assignments", nargs="*", help="default: all")
    r.add_argument("--check", action="store_true", help="fail if student/ is stale instead of writing it")
    r.set_defaults(run=run)


def run(args: argparse.Namespace, ctx: Context) -> int:
    from autograder.config.course import package_link
    from autograder.student.release import release

    link = package_link(ctx.course)  # course.toml [course] package
    stale = []
    for name in assignment_ids(args.assignments, ctx.kit):
        if not args.check:
            for p in release(ctx.kit, name, link=link):
                print(f"wrote {p.relative_to(ctx.kit)}")
            continue
        if (ctx.kit / "student" / name).is_dir():
            stale.append(f"student/{name}/ (the student package carries the checks now: remove it)")
        with tempfile.TemporaryDirectory() as tmp:
            for p in release(ctx.kit, name, Path(tmp), link):
                rel = p.relative_to(tmp)
                current = ctx.kit / "student" / rel
                if not current.is_file() or not filecmp.cmp(p, current, shallow=False):
                    stale.append(str(Path("student") / rel))
    if stale:
        print("student/ is stale (run `make student`): " + ", ".join(stale), file=sys.stderr)
        return 1
    if args.check:
        print("student/ is up to date")
    return 0
