"""What more than one command shares: the flags of the commands that read an assignment's grades, the grades
they read (`store.folder.assignment_grades`, warnings printed), the grading options, `UsageError`."""
from __future__ import annotations

import argparse
import os
import sys
from pathlib import Path

from autograder.config.assignment import list_assignments, load_assignment
from autograder.report.escape import terminal


class UsageError(Exception):
    """A command line the kit cannot act on: `main` prints it and exits 2."""


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


def options_of(args: argparse.Namespace):
    """How to grade: the device, and the isolation the sandbox can give (a `UsageError` when none)."""
    from autograder.execute import nvidia
    from autograder.execute.sandbox import SandboxUnavailable, choose_isolation
    from autograder.judge.options import GradeOptions

    gpu = args.device == "cuda" or (args.device == "auto" and nvidia.visible() and cuda_available())
    try:
        isolation = choose_isolation(args.allow_weak_isolation, gpu=gpu)
    except SandboxUnavailable as e:
        raise UsageError(str(e)) from None
    return GradeOptions(device=args.device, isolation=isolation)


def cuda_available() -> bool:
    """torch's own word, asked only where NVIDIA's device files are: importing torch costs ~2 s of CPU, which
    the grade command would pay beside its judges' and the zygote's imports of it (they do the grading)."""
    import torch

    return torch.cuda.is_available()


def add_common(p: argparse.ArgumentParser) -> None:
    p.add_argument("assignment", help="assignment id (a folder of assignments/)")
    p.add_argument("--out", type=Path, help="results folder (default: the course file's, else results/)")
    p.add_argument("--roster", type=Path, help="roster CSV (names, emails, SIS ids, sections; default: the "
                                               "course file's)")


def add_missing(p: argparse.ArgumentParser) -> None:
    from autograder.grades.rows import MISSING_POLICIES

    p.add_argument("--missing", choices=MISSING_POLICIES, default="blank",
                   help="roster students without a submission: blank (default; the LMS grade is left alone) or "
                        "zero.  Ungradable and provisional results are always blank")


def grades_of(args: argparse.Namespace, kit: Path, assignment: str | None = None):
    """`store.folder.assignment_grades` for this command's flags and course file, its warnings printed."""
    from autograder.store.folder import assignment_grades

    g = assignment_grades(kit, assignment or args.assignment, args.out, roster_csv=getattr(args, "roster", None),
                          course=getattr(args, "course_settings", None))
    for w in g.warnings:
        print(terminal(f"warning: {w}"), file=sys.stderr)
    return g


def points(x: float | None) -> str:
    """A score as the commands print it: blank is "blank"."""
    return "blank" if x is None else f"{x:g}"


def change(sid: str, was: float | None, now: float | None) -> str:
    """"SUBMISSION: BEFORE -> AFTER (+DELTA)": a score a regrade, a rubric change or a passback changes."""
    delta = f" ({now - was:+g})" if was is not None and now is not None else ""
    return f"{sid}: {points(was)} -> {points(now)}{delta}"
