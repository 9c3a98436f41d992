"""`autograder grade`: grade a class (notebooks, folders, zips, LMS downloads) into the results folder."""

from __future__ import annotations

import argparse
import importlib.util
import sys
from pathlib import Path

from autograder.cli.common import Context, UsageError, add_grading, grade_settings
from autograder.config.assignment import load_assignment
from autograder.report.escape import terminal


def add(subparsers: argparse._SubParsersAction) -> None:
    example = "example: autograder grade 01_tensors canvas_submissions.zip --roster roster.csv --jobs auto"
    g = subparsers.add_parser("grade", help="grade notebooks, folders of notebooks, or zips of them", epilog=example)
    g.add_argument("assignment", help="assignment id (a folder of assignments/)")
    g.add_argument("submissions", nargs="+", type=Path, help="notebooks, folders or zips (LMS downloads included)")
    g.add_argument("--out", type=Path, help="results folder (default: the course file's, else results/)")
    g.add_argument("--force", action="store_true", help="regrade even if a valid grade is stored")
    executors = ("local", "dask")
    g.add_argument("--executor", choices=executors, default="local", help="local judges (--jobs) or Dask (--scheduler)")
    g.add_argument("--scheduler", help="Dask scheduler address, e.g. tcp://10.0.0.5:8786 (with --executor dask)")
    formats = ("auto", "canvas", "moodle", "nbgrader", "gradescope", "folder")
    g.add_argument("--format", choices=formats, default="auto", help="what an LMS handed out (default: detected)")
    g.add_argument("--roster", type=Path, help="roster CSV naming the students (default: the course file's)")
    g.add_argument("--submission-times", type=Path, help=TIMES)
    g.add_argument("--nb-assignment", help="nbgrader: the assignment's name in the course (default: ASSIGNMENT)")
    add_grading(g)
    g.set_defaults(run=run)


TIMES = (
    "a folder of notebooks: CSV of when each was submitted (columns student: any of the student's ids or the "
    "file name; submitted_at: ISO 8601 with a time zone), instead of the files' times"
)


def run(args: argparse.Namespace, ctx: Context) -> int:
    if (args.executor == "dask") != bool(args.scheduler):
        raise UsageError("--executor dask and --scheduler ADDRESS go together")
    if args.executor == "dask" and importlib.util.find_spec("distributed") is None:
        raise UsageError(
            "--executor dask needs Dask here: pip install \"torch-course-autograder[cluster]\" (make install has it)"
        )
    settings = grade_settings(args, ctx)
    assignment = load_assignment(args.assignment, ctx.kit)
    from autograder import pipeline
    from autograder.report.progress import progress
    from autograder.report.table import change, print_table

    def say(line: str) -> None:
        print(terminal(line), file=sys.stderr)

    for line in settings.notes():
        say(line)
    with pipeline.intake(
        args.submissions,
        fmt=None if args.format == "auto" else args.format,
        roster=args.roster,
        times=args.submission_times,
        assignment=args.nb_assignment or assignment.id,
    ) as intake:
        for line in intake.notes:
            say(line)  # zip member names, roster fields
        try:
            with progress(len(intake.submissions), f"grading {assignment.id}") as on_result:
                run = pipeline.grade(assignment, intake, settings, on_result=on_result, note=say)
        except pipeline.MasterFailed as e:
            for line in f"autograder: error: grading stopped before any submission was graded: {e}".splitlines():
                say(line)
            return 1
    # the exports' rows (late policy, overrides, roster names), not the raw results: one score everywhere
    by_id = {row.submission_id: row for row in run.grades.rows} if run.grades else {}
    print_table(
        [by_id[r.submission_id] for r in run.results if r.submission_id in by_id],
        f"{assignment.title}: {len(run.results)} submissions ({run.reused} unchanged, reused"
        f"{f'; {run.partial} re-graded on changed tests only' if run.partial else ''})",
    )
    for sid, was, now in run.changes:  # what this run changed, before any passback sends it
        print(terminal(f"score changed: {change(sid, was, now)}"))
    for w in run.stale:
        say(f"warning: {w}")
    print(f"results: {settings.out / assignment.id}  gradebook: {run.gradebook}")
    return 0
