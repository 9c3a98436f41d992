"""CLI subcommands for LMS exports, passback, feedback, reports and interop; wired by `autograder.cli`:

    handlers = commands.register(sub)          # sub = parser.add_subparsers(...)
    ...
    return handlers[args.command](args, kit)

The commands are thin: what they show and send is decided by functions another face (a web page) can
call as well: `report.exports.assignment_grades` (results, overrides, identities, roster, late policy,
warnings) and `write_export`, `report.course_gradebook.course_columns`, `score.overrides` (resolving a
student and a test, recording, the trail), `lms.targets` (where a passback writes).
"""
from __future__ import annotations

import argparse
import os
import sys
from pathlib import Path
from typing import Callable

from autograder.report.escape import terminal

Handler = Callable[[argparse.Namespace, Path], int]


def _common(p: argparse.ArgumentParser) -> None:
    p.add_argument("assignment", help="assignment id (a folder of assignments/)")
    p.add_argument("--out", type=Path, help="results folder (default: the course file's, else results/)")
    p.add_argument("--roster", type=Path, help="roster CSV (names, emails, SIS ids, sections; default: the "
                                               "course file's)")


def _missing(p: argparse.ArgumentParser) -> None:
    from autograder.report.exports import MISSING_POLICIES

    p.add_argument("--missing", choices=MISSING_POLICIES, default="blank",
                   help="roster students without a submission: blank (default; the LMS grade is left alone) or "
                        "zero.  Ungradable and provisional results are always blank")


def _grades(args: argparse.Namespace, kit: Path, assignment: str | None = None):
    """`exports.assignment_grades` for this command's flags and course file, its warnings printed."""
    from autograder.report.exports import assignment_grades

    g = assignment_grades(kit, assignment or args.assignment, args.out, roster_csv=getattr(args, "roster", None),
                          course=getattr(args, "course_settings", None))
    for w in g.warnings:
        print(terminal(f"warning: {w}"), file=sys.stderr)
    return g


def cmd_export(args: argparse.Namespace, kit: Path) -> int:
    from autograder.report.exports import EXPORT_FILES, write_export

    g = _grades(args, kit)
    a, out, rows = g.assignment, g.out, g.rows
    if not any(r.result is not None for r in rows):
        print(terminal(f"error: nothing graded for {a.id} in {out / 'gradebook.sqlite'}: run `autograder grade "
                       f"{a.id} ...` first (no file written)"), file=sys.stderr)
        return 2
    if args.format == "canvas" and not (args.assignment_id or args.new_assignment):
        print("error: --format canvas needs --assignment-id (the number in the Canvas assignment's URL), or "
              "--new-assignment to have Canvas create one", file=sys.stderr)
        return 2
    dest = args.to or out / a.id / EXPORT_FILES[args.format]
    skipped, blanks = write_export(args.format, dest, g, name=args.assignment_name, canvas_id=args.assignment_id,
                                   points=args.points, missing=args.missing, moodle_identity=args.moodle_identity)
    for b in blanks:
        print(terminal(f"blank: {b}"), file=sys.stderr)
    for s in skipped:
        print(terminal(f"not exported: {s}"), file=sys.stderr)
    print(f"wrote {dest} ({len(rows) - len(skipped)} students)")
    return 0


def cmd_passback(args: argparse.Namespace, kit: Path) -> int:
    from autograder.lms import targets

    try:
        target = targets.choose(args)
    except targets.TargetError as e:
        print(terminal(f"error: {e}"), file=sys.stderr)
        return 2
    rows = _grades(args, kit).rows
    print(terminal(("would write to: " if args.dry_run else "writing to: ") + target.describe()))
    if target.kind == "lti":
        from autograder.lms.lti import LtiTool, publish_scores

        tool = LtiTool(args.lti_client_id, args.lti_token_url, args.lti_key.read_bytes(), kid=args.lti_kid or "")
        rep = publish_scores(tool, args.lti_lineitem, rows, dry_run=args.dry_run, missing=args.missing)
        for line, error in rep.lines(args.dry_run):
            print(terminal(line), file=sys.stderr if error else sys.stdout)
        return 1 if rep.failed else 0
    from autograder.lms.canvas_api import passback

    token = args.token_file.read_text(encoding="utf-8").strip() if args.token_file else os.environ.get(args.token_env, "")
    if not token and not args.dry_run:
        print(f"error: set the Canvas API token in ${args.token_env} or name a --token-file", file=sys.stderr)
        return 2
    rep = passback(rows, base_url=args.canvas_url, token=token, course_id=args.course,
                   assignment_id=args.canvas_assignment, dry_run=args.dry_run, comments=not args.no_comments,
                   missing=args.missing)
    for line in rep.lines():
        print(terminal(line))
    return 1 if rep.failed else 0


def cmd_feedback(args: argparse.Namespace, kit: Path) -> int:
    from autograder.report.feedback import write_feedback

    g = _grades(args, kit)
    a, out, rows = g.assignment, g.out, g.rows
    dest = args.to or out / a.id / "feedback"
    n = 0
    from autograder.notebook.cells import exercise_order

    order = exercise_order(a.solution)   # exercises as the student meets them
    for row in rows:
        if row.result is not None:
            write_feedback(dest, row.result, row.identity, row.late, title=a.title, order=order)
            n += 1
    print(f"wrote {n} feedback pages (HTML + Markdown) to {dest}")
    return 0


def cmd_report(args: argparse.Namespace, kit: Path) -> int:
    from autograder.report.instructor_report import write_report

    g = _grades(args, kit)   # roster names, missing students, late penalties: as the exports
    a, out, rows = g.assignment, g.out, g.rows
    dest = args.to or out / a.id / "report.html"
    write_report(dest, rows, title=a.title)
    print(f"wrote {dest}")
    return 0


def cmd_gradescope(args: argparse.Namespace, kit: Path) -> int:
    from autograder.interop.gradescope import CannotPin, MissingSecret, build_autograder_zip
    from autograder.probe.seeds import course_secret

    secret = args.secret_file.read_bytes().strip() if args.secret_file else None
    if secret is None:
        value, source = course_secret()
        secret = value if source != "default" else None
    from autograder.intake.roster import Roster

    try:
        dest = build_autograder_zip(kit, args.assignment, args.to, secret=secret, torch_spec=args.torch_spec,
                                    allow_public_seeds=args.allow_public_seeds,
                                    allow_weak_isolation=args.allow_weak_isolation,
                                    course=getattr(args, "course_settings", None),
                                    roster=Roster.read_csv(args.roster) if args.roster else None)
    except (MissingSecret, CannotPin) as e:
        print(f"error: {e}", file=sys.stderr)
        return 2
    print(f"wrote {dest}: upload it as the Gradescope assignment's autograder (Ubuntu base image)")
    return 0


def cmd_nbgrader(args: argparse.Namespace, kit: Path) -> int:
    from autograder.interop import nbgrader as nbg

    from autograder.execute.sandbox import choose_isolation
    from autograder.judge.session import GradeOptions

    options = GradeOptions(device="cpu", isolation=choose_isolation(args.allow_weak_isolation))
    if args.action == "source":   # the exercises' points come from grading the master, sandboxed like any notebook
        dest = nbg.write_source_notebook(kit, args.assignment, args.course, args.nb_assignment, options=options)
        print(f"wrote {dest}")
        return 0
    done = nbg.grade_course(kit, args.assignment, args.course, out=args.out.resolve(), options=options,
                            nb_assignment=args.nb_assignment, settings=getattr(args, "course_settings", None),
                            roster_csv=args.roster, warn=lambda w: print(terminal(f"warning: {w}"), file=sys.stderr))
    for student, score in done.items():
        print(terminal(student) + f"\t{score:g}")
    return 0


def cmd_override(args: argparse.Namespace, kit: Path) -> int:
    """Record one override (trusted side: the gradebook), or print the audit trail with --list."""
    import getpass

    from autograder.report.overrides import set_override
    from autograder.score import overrides as ov

    g = _grades(args, kit)
    db = g.out / "gradebook.sqlite"
    people = [(row.submission_id, row.identity.ids()) for row in g.rows if row.submission_id]
    try:
        submission = ov.resolve_submission(args.submission, people) if args.submission else None
        if args.list:
            for line in ov.trail_lines(db, g.assignment.id, g.results, submission):
                print(terminal(line))
            return 0
        if not submission or args.score is None or args.comment is None:
            print("error: override needs SUBMISSION, --score and --comment (or --list)", file=sys.stderr)
            return 2
        o = set_override(g, submission, test=args.test, score=args.score,
                         comment=args.comment, by=args.by or getpass.getuser())
    except ov.OverrideError as e:
        print(terminal(f"error: {e}"), file=sys.stderr)
        return 2
    print(terminal(f"override #{o.id}: {o.submission_id} {o.target}: {o.old_score:g} -> {o.new_score:g}"))
    return 0


def cmd_gradebook(args: argparse.Namespace, kit: Path) -> int:
    """Every assignment with grades, every roster student: a printed table and one CSV / Canvas / Moodle file."""
    from autograder.assignment import list_assignments
    from autograder.intake.roster import Roster
    from autograder.report import course_gradebook as cg
    from autograder.report.gradebook import Gradebook

    gb = Gradebook(args.out.resolve() / "gradebook.sqlite")
    try:
        graded = [n for n in (args.assignments or list_assignments(kit)) if gb.all(n)]
    finally:
        gb.close()
    if not graded:
        print("error: nothing graded yet in " + str(args.out / "gradebook.sqlite") + " (no file written)", file=sys.stderr)
        return 2
    course = getattr(args, "course_settings", None)
    columns, warnings = cg.course_columns(kit, args.out, graded, roster_csv=args.roster, course=course)
    for w in warnings:
        print(terminal(f"warning: {w}"), file=sys.stderr)
    if args.format == "canvas" and not args.new_assignment and any(not c.canvas_id for c in columns):
        print("error: --format canvas needs each assignment's Canvas id ([assignments.ID] canvas_assignment in "
              "course.toml), or --new-assignment; missing for: " + ", ".join(c.id for c in columns if not c.canvas_id),
              file=sys.stderr)
        return 2
    book = cg.build(columns, Roster.read_csv(args.roster).students if args.roster else None)
    title = course.table("course").get("title", "") if course else ""
    print(terminal(f"{title + ': ' if title else ''}course gradebook: {len(book.students)} students, "
                   f"{len(columns)} assignments"))
    print(cg.render(*cg.display(book, args.missing)))
    dest = args.to or args.out / cg.COURSE_FILES[args.format]
    for n in cg.write_course_file(book, args.format, dest, missing=args.missing, moodle_identity=args.moodle_identity):
        print(terminal(n), file=sys.stderr)
    print(f"wrote {dest}")
    return 0


def cmd_similarity(args: argparse.Namespace, kit: Path) -> int:
    """Pairs of notebooks sharing code (a signal to read, never a grade change): a table and OUT/ASSIGNMENT/similarity.json."""
    from autograder.similarity.pairs import assignment_similarity

    notebooks, pairs, dest = assignment_similarity(kit, args.assignment, args.submissions, args.out,
                                                   archive=args.archive, threshold=args.threshold)
    for n in notebooks:
        if n.problem:
            print(terminal(f"warning: {n.key}: not compared: {n.problem}"), file=sys.stderr)
    print(terminal(f"{args.assignment}: {len(notebooks)} notebooks, {len(pairs)} pairs at or above {args.threshold:g}"))
    for p in pairs:
        where = "; ".join(f"cell {s['a_cell']} ~ cell {s['b_cell']}" for s in p.spans[:3])
        print(terminal(f"{p.score:6.0%}  {p.shared:4d}  {p.a}  {p.b}  ({where})"))
    print(f"wrote {dest}")
    return 0


def cmd_serve(args: argparse.Namespace, kit: Path) -> int:
    """The instructors' workspace over this results folder (autograder.serve); runs until interrupted."""
    import getpass

    from autograder.serve.access import AccessError
    from autograder.serve.app import serve

    course = getattr(args, "course_settings", None)
    table = course.table("serve") if course else {}
    try:
        return serve(kit, args.out, host=args.host or table.get("host", "127.0.0.1"),
                     port=args.port if args.port is not None else int(table.get("port", 8700)),
                     roster=args.roster, course=course, who=getpass.getuser())
    except (AccessError, OSError) as e:
        print(terminal(f"error: {e}"), file=sys.stderr)
        return 2


def register(subparsers: argparse._SubParsersAction) -> dict[str, Handler]:
    e = subparsers.add_parser("export", help="grades in an LMS import format (Canvas, Moodle, CSV, JSON)",
                              epilog="example: autograder export 01_tensors --format canvas --roster roster.csv --assignment-id 1234")
    _common(e)
    e.add_argument("--format", choices=("canvas", "moodle", "csv", "json"), required=True,
                   help="canvas: gradebook import CSV; moodle: grade import CSV; csv/json: every column")
    e.add_argument("--to", type=Path, help="file to write (default: OUT/ASSIGNMENT/<format file>)")
    e.add_argument("--assignment-name", help="LMS column / grade item name (default: the assignment title)")
    e.add_argument("--assignment-id", help="Canvas assignment id, the number in its URL (needed for --format canvas: "
                                           "without it Canvas matches by exact title and silently creates a new "
                                           "assignment when the title differs)")
    e.add_argument("--new-assignment", action="store_true",
                   help="Canvas: no --assignment-id, have the import create a new assignment on purpose")
    e.add_argument("--points", type=float, help="LMS points possible (scores are scaled to it)")
    _missing(e)
    e.add_argument("--moodle-identity", choices=("email", "sis_id", "login_id"), default="email",
                   help="roster field Moodle matches students on (default: email)")

    p = subparsers.add_parser("passback", help="send scores and comments to Canvas (REST API) or an LTI 1.3 platform",
                              epilog="example: CANVAS_API_TOKEN=... autograder passback 01_tensors --canvas-url https://canvas.example.edu --course 42 --canvas-assignment 1234 --roster roster.csv --dry-run")
    _common(p)
    _missing(p)
    p.add_argument("--dry-run", action="store_true", help="show where and what would be sent; send nothing")
    p.add_argument("--to", choices=("canvas", "lti"), help="which LMS to write to; needed when both Canvas and "
                                                           "an LTI line item are configured")
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

    f = subparsers.add_parser("feedback", help="per-student feedback pages (HTML + Markdown)",
                              epilog="example: autograder feedback 01_tensors --out results")
    _common(f)
    f.add_argument("--to", type=Path, help="folder (default: OUT/ASSIGNMENT/feedback)")

    r = subparsers.add_parser("report", help="instructor report (one self-contained HTML file)",
                              epilog="example: autograder report 01_tensors --out results --roster roster.csv")
    _common(r)
    r.add_argument("--to", type=Path, help="file (default: OUT/ASSIGNMENT/report.html)")

    g = subparsers.add_parser("gradescope", help="build a Gradescope autograder.zip",
                              epilog="example: autograder gradescope 01_tensors --secret-file ~/course/secret "
                                     "--to 01_tensors-autograder.zip")
    g.add_argument("assignment", help="assignment id (a folder of assignments/)")
    g.add_argument("--to", type=Path, default=Path("autograder.zip"), help="zip to write (default: autograder.zip)")
    g.add_argument("--secret-file", type=Path,
                   help="course secret to bake into the zip (hidden-test seeds); default: AUTOGRADER_SECRET / "
                        "AUTOGRADER_SECRET_FILE / ~/.config/autograder/secret")
    g.add_argument("--allow-public-seeds", action="store_true",
                   help="build without a course secret: hidden inputs then come from the public default seed")
    g.add_argument("--torch-spec", help="pip version spec for torch in setup.sh (default: ==the version "
                                        "this kit runs with)")
    g.add_argument("--roster", type=Path, help="roster CSV: an extension keyed by any of a student's ids reaches "
                                               "them in Gradescope (default: the course file's)")
    g.add_argument("--allow-weak-isolation", action="store_true",
                   help="grade even where bubblewrap cannot run in Gradescope's container (student code then runs "
                        "unsandboxed, as another user than the one that can read the secret and the master; "
                        "docs/interop.md)")

    n = subparsers.add_parser("nbgrader", help="nbgrader interop: write a source notebook, or grade a course",
                              epilog="example: autograder nbgrader source 01_tensors --course ~/course && autograder nbgrader grade 01_tensors --course ~/course")
    n.add_argument("action", choices=("source", "grade"),
                   help="source: write nbgrader's source notebook; grade: grade submitted/ into gradebook.db")
    n.add_argument("assignment", help="assignment id (a folder of assignments/)")
    n.add_argument("--course", type=Path, required=True, help="the nbgrader course root")
    n.add_argument("--nb-assignment", help="nbgrader's assignment name (default: the same)")
    n.add_argument("--roster", type=Path, help="roster CSV: extensions keyed by any of a student's ids "
                   "(default: the course file's)")
    n.add_argument("--out", type=Path, help="the kit's results folder (default: the course file's, else results/)")
    n.add_argument("--allow-weak-isolation", action="store_true",
                   help="grade without bubblewrap (rlimits only: student code can read your files)")

    o = subparsers.add_parser(
        "override", help="set one test's or a whole submission's score by hand (kept as an audit trail)",
        epilog="example: autograder override 01_tensors smithjohn_12345 --test hidden/test_ops.py::test_sum "
               "--score 2 --comment 'regraded by hand: right idea, dtype off' --by 'TA Kim'; "
               "autograder override 01_tensors --list")
    o.add_argument("assignment", help="assignment id (a folder of assignments/)")
    o.add_argument("submission", nargs="?", help="submission id (as in grades.csv), or the student's login, LMS "
                                                 "user id, SIS id or email")
    o.add_argument("--test", help="the test to override: its id (as in grades.csv's columns), its name (as on the "
                                  "feedback page) or the start of either; default: the whole score")
    o.add_argument("--roster", type=Path, help="roster CSV, to name students by its ids (default: the course file's)")
    o.add_argument("--score", type=float, help="the new score, in the grader's points (before the late policy)")
    o.add_argument("--comment", help="why: shown to the student next to the score, kept in the trail")
    o.add_argument("--by", help="who made the override (default: the current user)")
    o.add_argument("--list", action="store_true", help="print every override (all, or SUBMISSION's) and exit")
    o.add_argument("--out", type=Path, help="results folder (default: the course file's, else results/)")

    b = subparsers.add_parser(
        "gradebook", help="every assignment for every roster student: a table, and a CSV, Canvas or Moodle file",
        epilog="example: autograder gradebook --roster roster.csv --format canvas --to course_canvas.csv "
               "(each assignment's Canvas id from course.toml)")
    b.add_argument("assignments", nargs="*", help="assignment ids (default: every assignment with grades)")
    b.add_argument("--out", type=Path, help="results folder (default: the course file's, else results/)")
    b.add_argument("--roster", type=Path, help="roster CSV: its students are listed even with no work "
                                               "(default: the course file's)")
    b.add_argument("--format", choices=("csv", "canvas", "moodle"), default="csv",
                   help="csv: scores and statuses (default); canvas / moodle: one import file, a column per "
                        "assignment")
    b.add_argument("--to", type=Path, help="file to write (default: OUT/course_gradebook.csv, course_canvas.csv "
                                           "or course_moodle.csv)")
    b.add_argument("--new-assignment", action="store_true",
                   help="canvas: let the import create assignments that have no canvas_assignment in course.toml")
    b.add_argument("--moodle-identity", choices=("email", "sis_id", "login_id"), default="email",
                   help="roster field Moodle matches students on (default: email)")
    _missing(b)

    s = subparsers.add_parser(
        "similarity", help="pairs of submissions sharing code (winnowed fingerprints; a signal, never a grade)",
        epilog="example: autograder similarity 01_tensors canvas_submissions/ --archive ~/past_terms/01_tensors")
    s.add_argument("assignment", help="assignment id (a folder of assignments/)")
    s.add_argument("submissions", nargs="*", type=Path, help="notebooks, folders of notebooks, or zips (as for grade); "
                   "default: every graded version kept in the results folder")
    s.add_argument("--archive", type=Path, help="folder (or zip) of past terms' notebooks, compared with this term's")
    s.add_argument("--threshold", type=float, default=0.5,
                   help="share of the smaller notebook's own code found in the other (default: 0.5)")
    s.add_argument("--out", type=Path, help="results folder (default: the course file's, else results/)")

    w = subparsers.add_parser(
        "serve", help="the instructors' workspace: browse the class, override with a comment, similar pairs",
        epilog="example: autograder serve --out results --roster roster.csv   (open the printed URL)")
    w.add_argument("--out", type=Path, help="results folder (default: the course file's, else results/)")
    w.add_argument("--roster", type=Path, help="roster CSV (default: the course file's)")
    w.add_argument("--host", help="address to listen on (default: course.toml's [serve] host, else 127.0.0.1)")
    w.add_argument("--port", type=int, help="port (default: course.toml's [serve] port, else 8700; 0: any free one)")

    return {"export": cmd_export, "passback": cmd_passback, "feedback": cmd_feedback, "report": cmd_report,
            "gradescope": cmd_gradescope, "nbgrader": cmd_nbgrader, "override": cmd_override,
            "gradebook": cmd_gradebook, "similarity": cmd_similarity, "serve": cmd_serve}
