"""Progress while a class is graded: a rich bar on a terminal, one tab-separated line per result otherwise.

The bar shows done/total, throughput (submissions per minute) and time left; the plain lines
(`id, score/max, status[, reused]` on stderr) are for logs and scripts.
"""

from __future__ import annotations

import sys
import time
from contextlib import contextmanager
from typing import Callable, Iterator

from autograder.judge.results import SubmissionResult
from autograder.report.escape import terminal

Callback = Callable[[SubmissionResult, bool], None]


def _plain(result: SubmissionResult, reused: bool) -> None:
    fields = [result.submission_id, f"{result.score:g}/{result.max_score:g}", result.status] + (
        ["reused"] if reused else []
    )
    print("\t".join(terminal(f) for f in fields), file=sys.stderr, flush=True)


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
    # markup=False: the last submission's id is shown, and it must not be parsed as rich markup
    with Progress(
        TextColumn("{task.description}", markup=False),
        BarColumn(),
        MofNCompleteColumn(),
        TextColumn("{task.fields[rate]}", markup=False),
        TimeRemainingColumn(),
        transient=False,
    ) as bar:
        task = bar.add_task(terminal(title), total=total, rate="")

        def advance(result: SubmissionResult, reused: bool) -> None:
            done = bar.tasks[0].completed + 1
            per_min = 60 * done / max(time.monotonic() - start, 1e-6)
            bar.update(
                task, advance=1, rate=terminal(f"{per_min:.1f}/min · last: {result.submission_id} {result.status}")
            )

        yield advance
