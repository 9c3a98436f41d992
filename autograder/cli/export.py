"""`autograder export`: an assignment's grades as an LMS import file (Canvas, Moodle, CSV, JSON)."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from autograder.cli.common import Context, add_common, add_missing, grades_of
from autograder.report.escape import terminal


def add(subparsers: argparse._SubParsersAction) -> None:
    e = subparsers.add_parser(
        "export",
        help="grades in an LMS import format (Canvas, Moodle, CSV, JSON)",
        epilog="example: autograder export 01_tensors --format canvas --roster roster.csv --assignment-id 1234",
    )
    add_common(e)
    e.add_argument(
        "--format",
        choices=("canvas", "moodle", "csv", "json"),
        required=True,
        help="canvas: gradebook import CSV; moodle: grade import CSV; csv/json: every column",
    )
    e.add_argument("--to", type=Path, help="file to write (default: OUT/ASSIGNMENT/<format file>)")
    e.add_argument("--assignment-name", help="LMS column / grade item name (default: the assignment title)")
    e.add_argument(
        "--assignment-id",
        help="Canvas assignment id, the number in its URL (needed for --format canvas: "
        "without it Canvas matches by exact title and silently creates a new "
        "assignment when the title differs)",
    )
    e.add_argument(
        "--new-assignment",
        action="store_true",
        help="Canvas: no --assignment-id, have the import create a new assignment on purpose",
    )
    e.add_argument("--points", type=float, help="LMS points possible (scores are scaled to it)")
    add_missing(e)
    e.add_argument(
        "--moodle-identity",
        choices=("email", "sis_id", "login_id"),
        default="email",
        help="roster field Moodle matches students on (default: email)",
    )
    e.set_defaults(run=run)


def run(args: argparse.Namespace, ctx: Context) -> int:
    from autograder.report.exports import EXPORT_FILES, write_export
    from autograder.store.database import gradebook_path

    g = grades_of(args, ctx)
    a, out, rows = g.assignment, g.out, g.rows
    if not any(r.result is not None for r in rows):
        print(
            terminal(
                f"error: nothing graded for {a.id} in {gradebook_path(out)}: run `autograder grade "
                f"{a.id} ...` first (no file written)"
            ),
            file=sys.stderr,
        )
        return 2
    if args.format == "canvas" and not (args.assignment_id or args.new_assignment):
        print(
            "error: --format canvas needs --assignment-id (the number in the Canvas assignment's URL), or "
            "--new-assignment to have Canvas create one",
            file=sys.stderr,
        )
        return 2
    dest = args.to or out / a.id / EXPORT_FILES[args.format]
    skipped, blanks = write_export(
        args.format,
        dest,
        g,
        name=args.assignment_name,
        canvas_id=args.assignment_id,
        points=args.points,
        missing=args.missing,
        moodle_identity=args.moodle_identity,
    )
    for b in blanks:
        print(terminal(f"blank: {b}"), file=sys.stderr)
    for s in skipped:
        print(terminal(f"not exported: {s}"), file=sys.stderr)
    print(f"wrote {dest} ({len(rows) - len(skipped)} students)")
    return 0
