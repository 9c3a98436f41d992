"""`autograder`: grade a class, release student notebooks, check an assignment's solutions.

One command per module of this package (`add` declares its arguments, `run` does it), each thin over the
layers (docs/architecture.md).  A command imports the layers it uses inside `run`, when it runs: with
them all imported at start, `autograder --help` and `autograder validate` would start as slowly as
grading does (measured with `python -X importtime -m autograder --help`: docs/architecture.md).
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

import autograder
from autograder.cli import (
    check_solutions,
    export,
    feedback,
    grade,
    gradebook,
    gradescope,
    listing,
    nbgrader,
    override,
    passback,
    release,
    report,
    rubric,
    serve,
    similarity,
    validate,
)
from autograder.cli.common import Context, UsageError, fill_from_course
from autograder.config import locate
from autograder.config.assignment import AssignmentError
from autograder.config.course import CourseError, find_course, load_course
from autograder.config.deadline import LatePolicyError
from autograder.config.settings import SettingsError
from autograder.execute.leave import leave
from autograder.intake.submissions import IntakeError
from autograder.report.escape import terminal

COMMANDS = (
    grade,
    release,
    check_solutions,
    listing,
    validate,
    export,
    passback,
    feedback,
    report,
    gradescope,
    nbgrader,
    override,
    rubric,
    gradebook,
    similarity,
    serve,
)  # in the order `--help` lists them


def _parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(prog="autograder", description=__doc__.split("\n", 1)[0])
    p.add_argument(
        "--version",
        action="version",
        version=f"%(prog)s {autograder.__version__}",
        help="print the kit's version and exit",
    )
    p.add_argument(
        "--kit",
        type=Path,
        help="kit root (default: $AUTOGRADER_KIT, else found from the current directory "
        "when only you can change it, else the installed one)",
    )
    p.add_argument(
        "--course-file",
        type=Path,
        help="course settings (default: the nearest course.toml at or above the current directory, when only "
        "you can change it); "
        "flags on the command line win over it",
    )
    sub = p.add_subparsers(dest="command", required=True)
    for command in COMMANDS:
        command.add(sub)
    return p


def main(argv: list[str] | None = None) -> int:
    args = _parser().parse_args(argv)
    try:
        course = load_course(args.course_file) if args.course_file else find_course()
        fill_from_course(args, course)
        kit = locate.kit(args.kit, discover=args.command != "validate")  # validate: checks it was given only
        return args.run(args, Context(kit, course))
    except (UsageError, AssignmentError, IntakeError, LatePolicyError, CourseError, SettingsError) as e:
        print(terminal(f"autograder: error: {e}"), file=sys.stderr)
        return 2


def entry() -> None:
    """The `autograder` command (`python -m autograder` too): `main`, then `leave` (without Python's teardown,
    which cost a grade 1-2 s after its table was printed).  `main` is what tests call."""
    leave(main())
