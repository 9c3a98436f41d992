"""The score table printed at the end of a run (rich when installed, plain text otherwise).

Every cell is student-influenced (ids come from file names, messages quote the notebook), so
each goes through `escape.terminal` / `escape.rich_text`: a `[/x]` or an ANSI sequence is
shown as text, never parsed or obeyed.
"""
from __future__ import annotations

import sys
from typing import TextIO

from autograder.report.escape import rich_text, terminal
from autograder.judge.results import SubmissionResult


MESSAGE_CHARS = 160   # room for a cell named with its first line (notebook.cells.cell_name) and what happened in it


def rows(results: list[SubmissionResult]) -> list[tuple[str, str, str, str, str]]:
    return [tuple(terminal(c) for c in (r.submission_id, f"{r.score:g}/{r.max_score:g}",
                                         r.status + (" (provisional)" if r.provisional else ""),
                                         f"{r.execution_time:.1f}s",
                                         _cut((f"provisional: {r.provisional}. " if r.provisional else "") + r.message)))  # type: ignore[misc]
            for r in results]


def _cut(message: str) -> str:
    return message[:MESSAGE_CHARS] + ("…" if len(message) > MESSAGE_CHARS else "")


def print_table(results: list[SubmissionResult], title: str, stream: TextIO | None = None) -> None:
    """The score table, to `stream` or the `sys.stdout` of the moment (not of import time: a default bound
    then keeps a stream that may be closed since, e.g. a test's captured output)."""
    stream = sys.stdout if stream is None else stream
    header = ("submission", "score", "status", "time", "message")
    try:
        from rich.console import Console
        from rich.table import Table
    except ImportError:
        data = [header, *rows(results)]
        widths = [max(len(r[i]) for r in data) for i in range(len(header))]
        print(terminal(title), file=stream)
        for line in data:
            print("  ".join(c.ljust(w) for c, w in zip(line, widths)).rstrip(), file=stream)
        return
    table = Table(title=rich_text(title))
    for h in header:
        table.add_column(h, justify="right" if h in ("score", "time") else "left")
    colours = {"graded": "green", "invalid": "red", "timeout": "yellow", "crashed": "red"}
    for r, row in zip(results, rows(results)):
        table.add_row(*(rich_text(c, colours.get(r.status, "white") if i == 2 else "") for i, c in enumerate(row)))
    Console(file=stream, width=max(100, Console(file=stream).width)).print(table)
