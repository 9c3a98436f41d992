"""The score table printed at the end of a run (rich when installed, plain text otherwise)."""
from __future__ import annotations

import sys
from typing import TextIO

from autograder.score.results import SubmissionResult


def rows(results: list[SubmissionResult]) -> list[tuple[str, str, str, str, str]]:
    return [(r.submission_id, f"{r.score:g}/{r.max_score:g}", r.status, f"{r.execution_time:.1f}s",
             r.message[:70]) for r in results]


def print_table(results: list[SubmissionResult], title: str, stream: TextIO = sys.stdout) -> None:
    header = ("submission", "score", "status", "time", "message")
    try:
        from rich.console import Console
        from rich.table import Table
    except ImportError:
        data = [header, *rows(results)]
        widths = [max(len(r[i]) for r in data) for i in range(len(header))]
        print(title, file=stream)
        for r in data:
            print("  ".join(c.ljust(w) for c, w in zip(r, widths)).rstrip(), file=stream)
        return
    table = Table(title=title)
    for h in header:
        table.add_column(h, justify="right" if h in ("score", "time") else "left")
    colours = {"graded": "green", "invalid": "red", "timeout": "yellow", "crashed": "red"}
    for r, row in zip(results, rows(results)):
        table.add_row(row[0], row[1], f"[{colours.get(r.status, 'white')}]{row[2]}[/]", row[3], row[4])
    Console(file=stream, width=max(100, Console(file=stream).width)).print(table)
