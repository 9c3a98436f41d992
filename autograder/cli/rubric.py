"""`autograder rubric`: an assignment's rubric items made, edited, deleted, applied and listed, as the workspace does;
each score derived from the items applied (docs/workspace.md, "Rubric items"), each change in the audit trail."""

from __future__ import annotations

import argparse
import getpass
import sys
from datetime import datetime, timezone
from pathlib import Path

from autograder.cli.common import Context, grades_of
from autograder.report.escape import terminal
from autograder.report.table import change, points

BESIDE = Path("rubric.toml")  # --export / --import without FILE: beside the assignment's manifest


def add(subparsers: argparse._SubParsersAction) -> None:
    r = subparsers.add_parser(
        "rubric",
        help="rubric items: add, edit, delete, apply to students, list; scores follow at once",
        epilog="example: autograder rubric 01_tensors --exercise views --add 'copies instead of a view' --points -1 "
        "--comment 'reshape may copy, view never does'; autograder rubric 01_tensors --apply 3 smithjohn_12345",
    )
    r.add_argument("assignment", help="assignment id (a folder of assignments/)")
    act = r.add_mutually_exclusive_group(required=True)
    act.add_argument("--add", metavar="TITLE", help="a new item of --exercise, worth --points; prints its id last")
    act.add_argument(
        "--apply",
        nargs="+",
        metavar=("ITEM", "STUDENT"),
        help="apply ITEM to each STUDENT (a submission id, or a student's login, LMS user id, SIS id or email)",
    )
    act.add_argument("--unapply", nargs="+", metavar=("ITEM", "STUDENT"), help="take ITEM back from each STUDENT")
    act.add_argument(
        "--edit",
        metavar="ITEM",
        help="change ITEM's --points, --title, --comment, --note or --key: new points re-score everyone who has it",
    )
    act.add_argument("--delete", metavar="ITEM", help="delete ITEM: everyone who had it is re-scored")
    act.add_argument("--list", action="store_true", help="the items, each with its key, points and how many have it")
    act.add_argument(
        "--trail",
        action="store_true",
        help="the audit trail: each change, with the students it touched and their score before and after",
    )
    act.add_argument(
        "--progress",
        action="store_true",
        help="per exercise, how many submissions are graded and how "
        "many still need a look; per TA, how many they graded",
    )
    act.add_argument(
        "--export",
        type=Path,
        metavar="FILE",
        nargs="?",
        const=BESIDE,
        help="write the items to FILE (TOML; default: assignments/ASSIGNMENT/rubric.toml, beside the assignment)",
    )
    act.add_argument(
        "--import",
        dest="import_",
        type=Path,
        metavar="FILE",
        nargs="?",
        const=BESIDE,
        help="read items "
        "from FILE (default: assignments/ASSIGNMENT/rubric.toml): an item of the same exercise and title "
        "is edited to match, any other added",
    )
    act.add_argument(
        "--note-line",
        nargs=4,
        metavar=("STUDENT", "CELL", "LINE", "TEXT"),
        help="a comment on LINE "
        "(0: the whole cell) of code cell CELL (as the feedback counts cells), shown there to the student",
    )
    act.add_argument("--unnote", type=int, metavar="ID", help="delete line comment ID (the number --note-line printed)")
    r.add_argument(
        "--like",
        metavar="STUDENT",
        help="with --apply ITEM: also every submission whose failures in "
        "ITEM's exercise are identical to STUDENT's (the same tests not passed, same messages)",
    )
    r.add_argument("--exercise", help="the exercise of a new item (--add)")
    r.add_argument("--points", type=float, help="points of the item: positive, negative or 0 (a comment)")
    r.add_argument("--title", help="a new title (--edit)")
    r.add_argument("--comment", help="what the student reads")
    r.add_argument("--note", help="what only staff read")
    r.add_argument("--key", help="the key (1-9, 0) that applies it in the workspace (default: the next free)")
    r.add_argument("--by", help="who made the change (default: the current user); the trail keeps it")
    r.add_argument("--roster", type=Path, help="roster CSV, to name students by its ids (default: the course file's)")
    r.add_argument("--out", type=Path, help="results folder (default: the course file's, else results/)")
    r.set_defaults(run=run)


def run(args: argparse.Namespace, ctx: Context) -> int:
    from autograder import pipeline
    from autograder.grades import rubric
    from autograder.grades.overrides import OverrideError, resolve_submission

    g = grades_of(args, ctx)
    by = args.by or getpass.getuser()
    people = [(row.submission_id, row.identity.ids()) for row in g.rows if row.submission_id]
    try:
        if args.add is not None:
            if not args.exercise or args.points is None:
                print("error: --add needs --exercise and --points", file=sys.stderr)
                return 2
            item = pipeline.rubric_add(
                g,
                exercise=args.exercise,
                title=args.add,
                points=args.points,
                comment=args.comment or "",
                note=args.note or "",
                key=args.key,
                by=by,
            )
            print(
                terminal(
                    f"added item #{item.id} to {item.exercise}: {item.title} ({item.points:+g}), key "
                    f"{item.key or 'none'}"
                )
            )
            print(item.id)
            return 0
        if args.apply or args.unapply:
            item, *who = args.apply or args.unapply
            sids = [resolve_submission(w, people) for w in who]
            if args.like and args.apply:
                like = resolve_submission(args.like, people)
                exercise = next((i.exercise for i in g.marks.items if str(i.id) == item.lstrip("#")), "")
                group = next(
                    (ids for ids in rubric.failure_groups(g.results, exercise).values() if like in ids), [like]
                )
                sids += group
            if not sids:
                print("error: name ITEM and at least one STUDENT (or --like STUDENT)", file=sys.stderr)
                return 2
            do = pipeline.rubric_apply if args.apply else pipeline.rubric_unapply
            return _touched(do(g, item, sids, by=by))
        if args.edit:
            _, touched = pipeline.rubric_edit(
                g,
                args.edit,
                by=by,
                title=args.title,
                points=args.points,
                comment=args.comment,
                note=args.note,
                key=args.key,
            )
            return _touched(touched)
        if args.delete:
            return _touched(pipeline.rubric_delete(g, args.delete, by=by))
        if args.list:
            return _list(g)
        if args.trail:
            return _trail(g)
        if args.progress:
            graded, per_ta = rubric.progress(g.results, g.marks)
            for ex, (done, of) in graded.items():
                print(terminal(f"{ex}: {done}/{of} graded" + (f", {of - done} need a look" if done < of else "")))
                look = [row.submission_id for row in g.rows if ex in row.pending]
                if look:
                    print(terminal("  needs a look: " + ", ".join(look[:20]) + (" ..." if len(look) > 20 else "")))
            for who, n in per_ta.items():
                print(terminal(f"{who}: {n} graded (a submission's exercise with an item applied)"))
            return 0
        if args.export == BESIDE:
            args.export = g.assignment.root / BESIDE.name
        if args.import_ == BESIDE:
            args.import_ = g.assignment.root / BESIDE.name
        if args.export:
            args.export.write_text(rubric.export_items(g.marks.items), encoding="utf-8")
            print(terminal(f"wrote {sum(not i.deleted for i in g.marks.items)} items to {args.export}"))
            return 0
        if args.import_:
            added, changed = pipeline.rubric_import(g, args.import_.read_text(encoding="utf-8"), by=by)
            print(f"imported: {added} added, {changed} changed")
            return 0
        if args.unnote is not None:
            print(terminal(f"line comment #{args.unnote} of {pipeline.remove_line_note(g, args.unnote)} deleted"))
            return 0
        student, cell, line, text = args.note_line
        note = pipeline.add_line_note(
            g, resolve_submission(student, people), cell=int(cell), line=int(line), text=text, by=by
        )
        print(terminal(f"line comment #{note.id}: {note.submission_id} cell {note.cell} line {note.line}"))
        return 0
    except (rubric.RubricError, OverrideError, OSError) as e:
        print(terminal(f"error: {e}"), file=sys.stderr)
        return 2
    except ValueError as e:  # a CELL or LINE that is no number
        print(terminal(f"error: {e}"), file=sys.stderr)
        return 2


def _touched(touched: list) -> int:
    for sid, was, now in touched:
        print(terminal(change(sid, was, now)))
    return 0


def _list(g) -> int:
    have: dict[int, int] = {}
    for a in g.marks.applied:
        have[a.item_id] = have.get(a.item_id, 0) + 1
    for i in g.marks.items:
        if i.deleted:
            continue
        print(
            terminal(
                f"#{i.id} [{i.key or '-'}] {i.exercise}: {i.title} ({i.points:+g}) applied to {have.get(i.id, 0)}"
                + (f"; student reads: {i.comment}" if i.comment else "")
                + (f"; staff note: {i.note}" if i.note else "")
            )
        )
    return 0


def _trail(g) -> int:
    from autograder.store.marks import Marks

    for e in Marks(g.out).trail(g.assignment.id):
        when = datetime.fromtimestamp(e["at"], timezone.utc).strftime("%Y-%m-%d %H:%M UTC")
        who = "; ".join(f"{sid} {points(a)} -> {points(b)}" for sid, a, b in e["touched"])
        print(
            terminal(
                f"{when} {e['by']}: {e['action']} item #{e['item']}: {e['detail']}"
                + (f" [{who}]" if who else " [nobody re-scored]")
            )
        )
    return 0
