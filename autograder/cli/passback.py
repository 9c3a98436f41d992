"""`autograder passback`: scores and comments sent to Canvas (REST API) or an LTI 1.3 platform."""

from __future__ import annotations

import argparse
import os
import sys
from pathlib import Path

from autograder.cli.common import Context, add_common, add_missing, grades_of
from autograder.report.escape import terminal


def add(subparsers: argparse._SubParsersAction) -> None:
    p = subparsers.add_parser(
        "passback",
        help="send scores and comments to Canvas (REST API) or an LTI 1.3 platform",
        epilog="example: CANVAS_API_TOKEN=... autograder passback 01_tensors --canvas-url https://canvas.example.edu --course 42 --canvas-assignment 1234 --roster roster.csv --dry-run",
    )
    add_common(p)
    add_missing(p)
    p.add_argument("--dry-run", action="store_true", help="show where and what would be sent; send nothing")
    p.add_argument(
        "--confirm",
        action="store_true",
        help="send scores that changed since the last passback (a "
        "regrade, an override, a rubric edit); without it they are listed and nothing is sent",
    )
    p.add_argument(
        "--to",
        choices=("canvas", "lti"),
        help="which LMS to write to; needed when both Canvas and an LTI line item are configured",
    )
    p.add_argument("--canvas-url", help="Canvas base URL, e.g. https://canvas.example.edu")
    p.add_argument("--course", help="Canvas course id")
    p.add_argument("--canvas-assignment", help="Canvas assignment id (the number in its URL)")
    p.add_argument("--token-env", help="environment variable with the API token (default: CANVAS_API_TOKEN)")
    p.add_argument("--token-file", type=Path, help="file holding the API token (instead of --token-env)")
    p.add_argument("--no-comments", action="store_true", help="send scores only, no feedback comments")
    p.add_argument("--lti-lineitem", help="LTI 1.3 AGS line item URL (from the platform's launch claim)")
    p.add_argument("--lti-token-url", help="the platform's OAuth2 token endpoint")
    p.add_argument("--lti-client-id", help="this tool's client id at the platform")
    p.add_argument("--lti-key", type=Path, help="the tool's RSA private key (PEM)")
    p.add_argument("--lti-kid", help="key id (kid) of --lti-key in the tool's JWKS")
    p.set_defaults(run=run)


# how a user of this command sets each of `lms.targets.PassbackSettings`'s fields
_FLAGS = {
    "to": "--to canvas or --to lti",
    "canvas_url": "--canvas-url",
    "course": "--course",
    "canvas_assignment": "--canvas-assignment",
    "lti_lineitem": "--lti-lineitem",
    "lti_token_url": "--lti-token-url",
    "lti_client_id": "--lti-client-id",
    "lti_key": "--lti-key",
}


def run(args: argparse.Namespace, ctx: Context) -> int:
    from autograder.lms import targets

    try:
        target = targets.choose(targets.PassbackSettings(**{k: getattr(args, k) for k in _FLAGS}))
    except targets.TargetError as e:
        flags = ", ".join(_FLAGS[k] for k in e.settings)
        also = "" if "to" in e.settings else " (or the course file's [canvas], [lti] and [assignments.ID])"
        print(terminal(f"error: {e}" + (f": {flags}{also}" if flags else "")), file=sys.stderr)
        return 2
    from autograder.pipeline import record_sent, unsent_changes
    from autograder.report.table import change

    grades = grades_of(args, ctx)
    rows = grades.rows
    changed = unsent_changes(grades, target.url, args.missing)
    for sid, was, now in changed:
        print(terminal(f"changed since the last passback: {change(sid, was, now)}"))
    if changed and not args.dry_run and not args.confirm:
        print(
            f"error: {len(changed)} score(s) already in the LMS would change (listed above): check them, then "
            "run again with --confirm",
            file=sys.stderr,
        )
        return 1
    print(terminal(("would write to: " if args.dry_run else "writing to: ") + target.describe()))
    if target.kind == "lti":
        from autograder.lms.lti import LtiTool, publish_scores

        tool = LtiTool(args.lti_client_id, args.lti_token_url, args.lti_key.read_bytes(), kid=args.lti_kid or "")
        ags = publish_scores(tool, args.lti_lineitem, rows, dry_run=args.dry_run, missing=args.missing)
        for line, error in ags.lines(args.dry_run):
            print(terminal(line), file=sys.stderr if error else sys.stdout)
        if not args.dry_run and not ags.failed:
            record_sent(grades, target.url, args.missing)
        return 1 if ags.failed else 0
    from autograder.lms.canvas_api import passback

    token = (
        args.token_file.read_text(encoding="utf-8").strip() if args.token_file else os.environ.get(args.token_env, "")
    )
    if not token and not args.dry_run:
        print(f"error: set the Canvas API token in ${args.token_env} or name a --token-file", file=sys.stderr)
        return 2
    rep = passback(
        rows,
        base_url=args.canvas_url,
        token=token,
        course_id=args.course,
        assignment_id=args.canvas_assignment,
        dry_run=args.dry_run,
        comments=not args.no_comments,
        missing=args.missing,
    )
    for line in rep.lines():
        print(terminal(line))
    if not args.dry_run and not rep.failed:
        record_sent(grades, target.url, args.missing)
    return 1 if rep.failed else 0
