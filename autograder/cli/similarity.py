"""`autograder similarity`: pairs of submissions sharing code (a signal to read, never a grade)."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from autograder.cli.common import Context
from autograder.report.escape import terminal


def add(subparsers: argparse._SubParsersAction) -> None:
    s = subparsers.add_parser(
        "similarity",
        help="pairs of submissions sharing code (winnowed fingerprints; a signal, never a grade)",
        epilog="example: autograder similarity 01_tensors canvas_submissions/ --archive ~/past_terms/01_tensors",
    )
    s.add_argument("assignment", help="assignment id (a folder of assignments/)")
    s.add_argument(
        "submissions",
        nargs="*",
        type=Path,
        help="notebooks, folders of notebooks, or zips (as for grade); "
        "default: every graded version kept in the results folder",
    )
    s.add_argument("--archive", type=Path, help="folder (or zip) of past terms' notebooks, compared with this term's")
    s.add_argument(
        "--threshold",
        type=float,
        default=0.5,
        help="share of the smaller notebook's own code found in the other (default: 0.5)",
    )
    s.add_argument("--out", type=Path, help="results folder (default: the course file's, else results/)")
    s.set_defaults(run=run)


def run(args: argparse.Namespace, ctx: Context) -> int:
    """Pairs of notebooks sharing code (a signal to read, never a grade change): a table and OUT/ASSIGNMENT/similarity.json."""
    from autograder.similarity.pairs import assignment_similarity

    notebooks, pairs, dest = assignment_similarity(
        ctx.kit, args.assignment, args.submissions, args.out, archive=args.archive, threshold=args.threshold
    )
    for n in notebooks:
        if n.problem:
            print(terminal(f"warning: {n.key}: not compared: {n.problem}"), file=sys.stderr)
    flagged = getattr(pairs, "flagged", len(pairs))
    kept = f" (the best {len(pairs):,} kept)" if flagged > len(pairs) else ""
    print(
        terminal(
            f"{args.assignment}: {len(notebooks)} notebooks, {flagged:,} pairs at or above {args.threshold:g}{kept}"
        )
    )
    for p in pairs:
        where = "; ".join(f"cell {s['a_cell']} ~ cell {s['b_cell']}" for s in p.spans[:3])
        print(terminal(f"{p.score:6.0%}  {p.shared:4d}  {p.a}  {p.b}  ({where})"))
    print(f"wrote {dest}")
    return 0
