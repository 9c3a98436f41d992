"""`autograder gradescope`: a Gradescope autograder.zip for an assignment."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from autograder.cli.common import Context


def add(subparsers: argparse._SubParsersAction) -> None:
    g = subparsers.add_parser(
        "gradescope",
        help="build a Gradescope autograder.zip",
        epilog="example: autograder gradescope 01_tensors --secret-file ~/course/secret --to 01_tensors-autograder.zip",
    )
    g.add_argument("assignment", help="assignment id (a folder of assignments/)")
    g.add_argument("--to", type=Path, default=Path("autograder.zip"), help="zip to write (default: autograder.zip)")
    g.add_argument(
        "--secret-file",
        type=Path,
        help="course secret to bake into the zip (hidden-test seeds); default: AUTOGRADER_SECRET / "
        "AUTOGRADER_SECRET_FILE / ~/.config/autograder/secret",
    )
    g.add_argument(
        "--allow-public-seeds",
        action="store_true",
        help="build without a course secret: hidden inputs then come from the public default seed",
    )
    g.add_argument(
        "--torch-spec", help="pip version spec for torch in setup.sh (default: ==the version this kit runs with)"
    )
    g.add_argument(
        "--roster",
        type=Path,
        help="roster CSV: an extension keyed by any of a student's ids reaches "
        "them in Gradescope (default: the course file's)",
    )
    g.add_argument(
        "--allow-weak-isolation",
        action="store_true",
        help="grade even where bubblewrap cannot run in Gradescope's container (student code then runs "
        "unsandboxed, as another user than the one that can read the secret and the master; "
        "docs/interop.md)",
    )
    g.set_defaults(run=run)


def run(args: argparse.Namespace, ctx: Context) -> int:
    from autograder.config.secret import find_secret, read_secret
    from autograder.interop.gradescope import CannotPin, MissingSecret, build_autograder_zip

    found = read_secret(args.secret_file) if args.secret_file else find_secret()
    secret = None if found.is_default else found.value
    from autograder.intake.roster import Roster

    try:
        dest = build_autograder_zip(
            ctx.kit,
            args.assignment,
            args.to,
            secret=secret,
            torch_spec=args.torch_spec,
            allow_public_seeds=args.allow_public_seeds,
            allow_weak_isolation=args.allow_weak_isolation,
            course=ctx.course,
            roster=Roster.read_csv(args.roster) if args.roster else None,
        )
    except (MissingSecret, CannotPin) as e:
        print(f"error: {e}", file=sys.stderr)
        return 2
    print(f"wrote {dest}: upload it as the Gradescope assignment's autograder (Ubuntu base image)")
    return 0
