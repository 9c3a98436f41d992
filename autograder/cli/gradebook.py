"""`autograder gradebook`: every assignment for every roster student, printed and as one CSV, Canvas or Moodle file."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from autograder.cli.common import Context, add_missing
from autograder.report.escape import terminal


def add(subparsers: argparse._SubParsersAction) -> None:
    b = subparsers.add_parser(
        "gradebook",
        help="every assignment for every roster student: a table, and a CSV, Canvas or Moodle file",
        epilog="example: autograder gradebook --roster roster.csv --format canvas --to course_canvas.csv "
        "(each assignment's Canvas id from course.toml)",
    )
    b.add_argument("assignments", nargs="*", help="assignment ids (default: every assignment with grades)")
    b.add_argument("--out", type=Path, help="results folder (default: the course file's, else results/)")
    b.add_argument(
        "--roster", type=Path, help="roster CSV: its students are listed even with no work (default: the course file's)"
    )
    b.add_argument(
        "--format",
        choices=("csv", "canvas", "moodle"),
        default="csv",
        help="csv: scores and statuses (default); canvas / moodle: one import file, a column per assignment",
    )
    b.add_argument(
        "--to",
        type=Path,
        help="file to write (default: OUT/course_gradebook.csv, course_canvas.csv or course_moodle.csv)",
    )
    b.add_argument(
        "--new-assignment",
        action="store_true",
        help="canvas: let the import create assignments that have no canvas_assignment in course.toml",
    )
    b.add_argument(
        "--moodle-identity",
        choices=("email", "sis_id", "login_id"),
        default="email",
        help="roster field Moodle matches students on (default: email)",
    )
    add_missing(b)
    b.set_defaults(run=run)


def run(args: argparse.Namespace, ctx: Context) -> int:
    """Every assignment with grades, every roster student: a printed table and one CSV / Canvas / Moodle file."""
    from autograder.config.assignment import list_assignments
    from autograder.intake.roster import Roster
    from autograder.report import semester
    from autograder.store.database import Gradebook, gradebook_path

    gb = Gradebook(gradebook_path(args.out.resolve()))
    try:
        graded = [n for n in (args.assignments or list_assignments(ctx.kit)) if gb.all(n)]
    finally:
        gb.close()
    if not graded:
        print(f"error: nothing graded yet in {gradebook_path(args.out)} (no file written)", file=sys.stderr)
        return 2
    course = ctx.course
    columns, warnings = semester.course_columns(ctx.kit, args.out, graded, roster_csv=args.roster, course=course)
    for w in warnings:
        print(terminal(f"warning: {w}"), file=sys.stderr)
    if args.format == "canvas" and not args.new_assignment and any(not c.canvas_id for c in columns):
        print(
            "error: --format canvas needs each assignment's Canvas id ([assignments.ID] canvas_assignment in "
            "course.toml), or --new-assignment; missing for: " + ", ".join(c.id for c in columns if not c.canvas_id),
            file=sys.stderr,
        )
        return 2
    book = semester.build(columns, Roster.read_csv(args.roster).students if args.roster else None)
    title = course.table("course").get("title", "") if course else ""
    print(
        terminal(
            f"{title + ': ' if title else ''}course gradebook: {len(book.students)} students, "
            f"{len(columns)} assignments"
        )
    )
    print(semester.render(*semester.display(book, args.missing)))
    dest = args.to or args.out / semester.COURSE_FILES[args.format]
    for n in semester.write_course_file(
        book, args.format, dest, missing=args.missing, moodle_identity=args.moodle_identity
    ):
        print(terminal(n), file=sys.stderr)
    print(f"wrote {dest}")
    return 0
