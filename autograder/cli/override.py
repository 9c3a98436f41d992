"""`autograder override`: one test's or a whole submission's score set by hand, kept as an audit trail."""

from __future__ import annotations

import argparse
import getpass
import sys
from pathlib import Path

from autograder.cli.common import Context, grades_of
from autograder.grades import overrides as ov
from autograder.report.escape import terminal


def add(subparsers: argparse._SubParsersAction) -> None:
    o = subparsers.add_parser(
        "override",
        help="set one test's or a whole submission's score by hand (kept as an audit trail)",
        epilog="example: autograder override 01_tensors smithjohn_12345 --test hidden/test_ops.py::test_sum "
        "--score 2 --comment 'regraded by hand: right idea, dtype off' --by 'TA Kim'; "
        "autograder override 01_tensors --list; autograder override 01_tensors smithjohn_12345 --reapply",
    )
    o.add_argument("assignment", help="assignment id (a folder of assignments/)")
    o.add_argument(
        "submission",
        nargs="?",
        help="submission id (as in grades.csv), or the student's login, LMS user id, SIS id or email",
    )
    o.add_argument(
        "--test",
        help="the test to override: its id (as in grades.csv's columns), its name (as on the "
        "feedback page) or the start of either; default: the whole score",
    )
    o.add_argument("--roster", type=Path, help="roster CSV, to name students by its ids (default: the course file's)")
    o.add_argument("--score", type=float, help="the new score, in the grader's points (before the late policy)")
    o.add_argument("--comment", help="why: shown to the student next to the score, kept in the trail")
    o.add_argument("--by", help="who made the override (default: the current user)")
    o.add_argument("--list", action="store_true", help="print every override (all, or SUBMISSION's) and exit")
    act = o.add_mutually_exclusive_group()
    act.add_argument(
        "--clear",
        action="store_true",
        help="clear SUBMISSION's override (of --test, else of the whole "
        "score), in force or stale: the grader's score counts again",
    )
    act.add_argument(
        "--reapply",
        action="store_true",
        help="re-apply SUBMISSION's stale override (made on another "
        "version) to the version that counts: the same score and comment",
    )
    act.add_argument(
        "--ack",
        action="store_true",
        help="acknowledge SUBMISSION's stale override: kept unapplied, no longer warned about",
    )
    o.add_argument("--out", type=Path, help="results folder (default: the course file's, else results/)")
    o.set_defaults(run=run)


def run(args: argparse.Namespace, ctx: Context) -> int:
    """Record one override (trusted side: the gradebook), clear, re-apply or acknowledge one, or print the audit
    trail with --list."""
    from autograder.pipeline import change_override, set_override
    from autograder.store.marks import Marks

    g = grades_of(args, ctx)
    people = [(row.submission_id, row.identity.ids()) for row in g.rows if row.submission_id]
    try:
        submission = ov.resolve_submission(args.submission, people) if args.submission else None
        if args.list:
            for line in ov.trail_lines(Marks(g.out).overrides(g.assignment.id, submission), g.results):
                print(terminal(line))
            return 0
        action = next((a for a in ("clear", "reapply", "ack") if getattr(args, a)), None)
        if action and submission and args.score is None and args.comment is None:
            o = change_override(g, submission, test=args.test, action=action, by=args.by or getpass.getuser())
        elif action:
            print(
                "error: --clear, --reapply and --ack take SUBMISSION (and --test for a test's override), not "
                "--score or --comment",
                file=sys.stderr,
            )
            return 2
        elif not submission or args.score is None or args.comment is None:
            print(
                "error: override needs SUBMISSION, --score and --comment (or --list, --clear, --reapply, --ack)",
                file=sys.stderr,
            )
            return 2
        else:
            o = set_override(
                g, submission, test=args.test, score=args.score, comment=args.comment, by=args.by or getpass.getuser()
            )
    except ov.OverrideError as e:
        print(terminal(f"error: {e}"), file=sys.stderr)
        return 2
    what = {"clear": "cleared", "ack": "acknowledged", "reapply": "re-applied"}.get(o.action, "")
    print(
        terminal(
            f"override #{o.id}{' ' + what if what else ''}: {o.submission_id} {o.target}: "
            f"{o.old_score:g} -> {o.new_score:g}"
        )
    )
    return 0
