"""Progress while a class is graded: a rich bar on a terminal, one tab-separated line per result otherwise.

The bar shows done/total, throughput (submissions per minute) and time left; the plain lines
(`id, score/max, status[, reused]` on stderr) are for logs and scripts.
"""
from __future__ import annotations

import sys
import time
from contextlib import contextmanager
from typing import Callable, Iterator

from autograder.score.results import SubmissionResult

Callback = Callable[[SubmissionResult, bool], None]


def _plain(result: SubmissionResult, reused: bool) -> None:
    fields = [result.submission_id, f"{result.score:g}/{result.max_score:g}", result.status] + (["reused"] if reused else [])
    print("\t".join(fields), file=sys.stderr, flush=True)


@contextmanager
def progress(total: int, title: str, interactive: bool | None = None) -> Iterator[Callback]:
    interactive = sys.stderr.isatty() if interactive is None else interactive
    if not interactive:
        yield _plain
        return
    try:
        from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeRemainingColumn
    except ImportError:
        yield _plain
        return
    start = time.monotonic()
    with Progress(TextColumn("{task.description}"), BarColumn(), MofNCompleteColumn(),
                  TextColumn("{task.fields[rate]}"), TimeRemainingColumn(), transient=False) as bar:
        task = bar.add_task(title, total=total, rate="")

        def advance(result: SubmissionResult, reused: bool) -> None:
            done = bar.tasks[0].completed + 1
            per_min = 60 * done / max(time.monotonic() - start, 1e-6)
            bar.update(task, advance=1, rate=f"{per_min:.1f}/min · last: {result.submission_id} {result.status}")

        yield advance
