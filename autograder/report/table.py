"""The score table printed at the end of a run (rich when installed, plain text otherwise).

Its rows are the exports' (`grades.rows.GradeRow`, as `store.folder.assignment_grades` reads them): each
student by the name the exports give (the roster's, else the submission id), with the score every export
and page shows, after the late policy and the overrides in force (blank where the exports leave it blank),
and the raw score beside it only where the two differ.

Every cell is student-influenced (ids come from file names, messages quote the notebook), so
each goes through `escape.terminal` / `escape.rich_text`: a `[/x]` or an ANSI sequence is
shown as text, never parsed or obeyed.
"""

from __future__ import annotations

import sys
from typing import TextIO

from autograder.grades.rows import GradeRow
from autograder.report.escape import rich_text, terminal

MESSAGE_CHARS = 160  # room for a cell named with its first line (notebook.cells.cell_name) and what happened in it
HEADER = ("student", "score", "status", "time", "message")


def who(row: GradeRow) -> str:
    """The student as the exports and the pages name them: the roster's name, else their id (the submission's)."""
    return row.identity.name or row.identity.student_id or row.submission_id


def score(row: GradeRow) -> str:
    """The score the exports send (`GradeRow.score`: late policy and overrides applied; "blank" where they leave
    the grade blank), out of the maximum, and the raw score where it differs."""
    r = row.result
    if r is None:
        return "blank"
    out = "blank" if row.score is None else f"{row.score:g}/{r.max_score:g}"
    if row.score is not None and row.raw_score is not None and row.raw_score != row.score:
        out += f" (raw {row.raw_score:g})"
    return out


def rows(grades: list[GradeRow]) -> list[tuple[str, str, str, str, str]]:
    out = []
    for row in grades:
        r = row.result
        if r is None:
            continue  # a roster student with no submission: the exports' blank, nothing graded here
        name = who(row)
        note = "; ".join(
            x
            for x in (
                f"provisional: {r.provisional}" if r.provisional else "",
                f"late: {row.late.explanation}" if row.late and row.late.late else "",
                r.message,
            )
            if x
        )
        out.append(
            tuple(
                terminal(c)
                for c in (
                    name if name == r.submission_id else f"{name} ({r.submission_id})",
                    score(row),
                    r.status + (" (provisional)" if r.provisional else ""),
                    f"{r.execution_time:.1f}s",
                    _cut(note),
                )
            )
        )
    return out  # type: ignore[return-value]


def _cut(message: str) -> str:
    return message[:MESSAGE_CHARS] + ("…" if len(message) > MESSAGE_CHARS else "")


def print_table(grades: list[GradeRow], title: str, stream: TextIO | None = None) -> None:
    """The score table of `grades`, to `stream` or the `sys.stdout` of the moment (not of import time: a default
    bound then keeps a stream that may be closed since, e.g. a test's captured output)."""
    stream = sys.stdout if stream is None else stream
    shown = rows(grades)
    try:
        from rich.console import Console
        from rich.table import Table
    except ImportError:
        data = [HEADER, *shown]
        widths = [max(len(r[i]) for r in data) for i in range(len(HEADER))]
        print(terminal(title), file=stream)
        for line in data:
            print("  ".join(c.ljust(w) for c, w in zip(line, widths)).rstrip(), file=stream)
        return
    table = Table(title=rich_text(title))
    for h in HEADER:
        table.add_column(h, justify="right" if h in ("score", "time") else "left")
    colours = {"graded": "green", "invalid": "red", "timeout": "yellow", "crashed": "red"}
    for row, line in zip((g for g in grades if g.result is not None), shown):
        status = row.result.status if row.result else ""
        table.add_row(*(rich_text(c, colours.get(status, "white") if i == 2 else "") for i, c in enumerate(line)))
    Console(file=stream, width=max(100, Console(file=stream).width)).print(table)


def points(x: float | None) -> str:
    """A score as the commands print it: blank is "blank"."""
    return "blank" if x is None else f"{x:g}"


def change(sid: str, was: float | None, now: float | None) -> str:
    """ "SUBMISSION: BEFORE -> AFTER (+DELTA)": a score a regrade, a rubric change or a passback changes."""
    delta = f" ({now - was:+g})" if was is not None and now is not None else ""
    return f"{sid}: {points(was)} -> {points(now)}{delta}"
