"""What more than one command shares: what every command is run with (`Context`), the course file's values for
the flags left unset (`fill_from_course`), the settings of a grading run (`grade_settings`), the flags of the
commands that read an assignment's grades and the grades they read (warnings printed), `UsageError`."""

from __future__ import annotations

import argparse
import os
import sys
from dataclasses import dataclass
from pathlib import Path

from autograder.config.assignment import list_assignments, load_assignment
from autograder.config.course import Course
from autograder.config.secret import find_secret
from autograder.config.settings import GradeSettings
from autograder.report.escape import terminal


class UsageError(Exception):
    """A command line the kit cannot act on: `main` prints it and exits 2."""


@dataclass(frozen=True)
class Context:
    """What every command runs with besides its flags: the kit and the course file, as `main` found them."""

    kit: Path
    course: Course | None = None


# flags a course file may give, when the command line leaves them unset: (command or "*", argparse dest, table,
# key, is a path); then per assignment: (command, dest, key of [assignments.ID])
_FROM_COURSE: list[tuple[str, str, str, str, bool]] = [
    ("*", "out", "course", "results", True),
    ("*", "roster", "course", "roster", True),
    ("gradescope", "secret_file", "course", "secret_file", True),
    ("passback", "canvas_url", "canvas", "url", False),
    ("passback", "course", "canvas", "course", False),
    ("passback", "token_env", "canvas", "token_env", False),
    ("passback", "token_file", "canvas", "token_file", True),
    ("passback", "lti_token_url", "lti", "token_url", False),
    ("passback", "lti_client_id", "lti", "client_id", False),
    ("passback", "lti_key", "lti", "key_file", True),
    ("passback", "lti_kid", "lti", "kid", False),
]
_PER_ASSIGNMENT: list[tuple[str, str, str]] = [
    ("export", "assignment_id", "canvas_assignment"),
    ("passback", "canvas_assignment", "canvas_assignment"),
    ("passback", "lti_lineitem", "lti_lineitem"),
]
DEFAULTS: dict[str, object] = {
    "out": Path("results"),
    "token_env": "CANVAS_API_TOKEN",
}  # when neither flag nor file says


def fill_from_course(args: argparse.Namespace, course: Course | None) -> None:
    """Fill every flag the command line left unset (None) from the course file, then from `DEFAULTS`."""
    if course is not None:
        cmd = getattr(args, "command", "")
        for command, dest, table, key, is_path in _FROM_COURSE:
            if command in ("*", cmd) and hasattr(args, dest) and getattr(args, dest) is None:
                value = course.path_of(table, key) if is_path else course.value_of(table, key)
                if value is not None:
                    setattr(args, dest, value)
        per = course.assignment(getattr(args, "assignment", "") or "")
        for command, dest, key in _PER_ASSIGNMENT:
            if command == cmd and getattr(args, dest, 0) is None and per.get(key) not in (None, ""):
                setattr(args, dest, str(per[key]))
    for dest, default in DEFAULTS.items():
        if hasattr(args, dest) and getattr(args, dest) is None:
            setattr(args, dest, default)


def grade_settings(args: argparse.Namespace, ctx: Context) -> GradeSettings:
    """A grading run's settings from its flags (those a command has) and the course file."""
    course = ctx.course
    budget = getattr(args, "memory_budget", None)
    return GradeSettings(
        out=Path(getattr(args, "out", None) or "results").resolve(),
        jobs=getattr(args, "jobs", 1),
        memory_budget_mb=int(budget * 1024) if budget else None,
        device=getattr(args, "device", "auto"),
        scheduler=getattr(args, "scheduler", None),
        allow_weak_isolation=getattr(args, "allow_weak_isolation", False),
        force=getattr(args, "force", False),
        secret=find_secret(course.path_of("course", "secret_file") if course else None),
        variants=course.variants() if course else None,
        course=course,
        roster=getattr(args, "roster", None),
    )


def assignment_ids(names: list[str], kit: Path) -> list[str]:
    """`names` (default: every assignment of the kit), each loaded once so a bad one fails before any work."""
    names = names or list_assignments(kit)
    for n in names:
        load_assignment(n, kit)
    return names


def parse_jobs(text: str) -> int:
    """`--jobs`: a number, or "auto" for one per CPU this process may use."""
    if text == "auto":
        return len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else (os.cpu_count() or 1)
    try:
        return int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"not a number or 'auto': {text!r}") from None


def add_grading(p: argparse.ArgumentParser) -> None:
    """The flags of every command that grades (`grade`, `nbgrader grade`, `check-solutions`)."""
    p.add_argument(
        "--jobs",
        type=parse_jobs,
        default=1,
        help="submissions (check-solutions: assignments) graded in parallel, or 'auto' (one per CPU); capped by --memory-budget",
    )
    p.add_argument(
        "--memory-budget",
        type=float,
        metavar="GIB",
        help="memory the jobs may use together (default: 80%% of the memory available now)",
    )
    p.add_argument(
        "--device",
        choices=("auto", "cpu", "cuda"),
        default="auto",
        help="cpu: CPU only; cuda: CUDA variants only (refuses without CUDA); auto: CPU, and CUDA when present",
    )
    p.add_argument(
        "--allow-weak-isolation",
        action="store_true",
        help="grade even without bubblewrap (rlimits only: student code is NOT sandboxed)",
    )


def add_common(p: argparse.ArgumentParser) -> None:
    p.add_argument("assignment", help="assignment id (a folder of assignments/)")
    p.add_argument("--out", type=Path, help="results folder (default: the course file's, else results/)")
    p.add_argument(
        "--roster", type=Path, help="roster CSV (names, emails, SIS ids, sections; default: the course file's)"
    )


def add_missing(p: argparse.ArgumentParser) -> None:
    from autograder.grades.rows import MISSING_POLICIES

    p.add_argument(
        "--missing",
        choices=MISSING_POLICIES,
        default="blank",
        help="roster students without a submission: blank (default; the LMS grade is left alone) or "
        "zero.  Ungradable and provisional results are always blank",
    )


def grades_of(args: argparse.Namespace, ctx: Context, assignment: str | None = None):
    """`store.folder.assignment_grades` for this command's flags and course file, its warnings printed."""
    from autograder.store.folder import assignment_grades

    g = assignment_grades(
        ctx.kit, assignment or args.assignment, args.out, roster_csv=getattr(args, "roster", None), course=ctx.course
    )
    for w in g.warnings:
        print(terminal(f"warning: {w}"), file=sys.stderr)
    return g
