"""Captured worker output: carriage-return rewrites (progress bars) collapse to their last state.

Book-style notebooks train with tqdm bars; a bar redraws its line hundreds of times with "\\r", and
kept raw those redraws would fill the output cap and push out what the notebook prints after them.
"""

from __future__ import annotations

import time

import nbformat

from autograder.config.limits import Limits
from autograder.execute.process import CappedStream
from autograder.execute.runner import NotebookRunner
from autograder.execute.sandbox import choose_isolation
from autograder.notebook.parse import load_cells


def _feed(stream: CappedStream, data: bytes, size: int) -> CappedStream:
    for i in range(0, len(data), size):
        stream.feed(data[i : i + size])
    return stream


def test_redraws_keep_the_last_state_whatever_the_chunking():
    bar = b"".join(b"\r%3d%%|" % p + b"#" * (p // 10) for p in range(101))
    data = b"epoch 1\n" + bar + b"\ndone\r\nnext\n"
    for size in (1, 2, 7, 64, len(data)):
        s = _feed(CappedStream(cap=4096), data, size)
        assert s.text() == "epoch 1\n100%|##########\ndone\r\nnext\n", size


def test_the_cap_still_holds_and_output_after_a_long_bar_survives():
    data = b"".join(b"\rstep %6d" % i for i in range(100_000)) + b"\nafter the bar\n" + b"x" * 10_000
    s = _feed(CappedStream(cap=1024), data, 65536)
    assert s.text().startswith("step  99999\nafter the bar\nxxx") and len(s.data) == 1024
    assert s.dropped == 10_000 - (1024 - len("step  99999\nafter the bar\n"))


def test_hostile_carriage_returns_cost_linear_time():
    start = time.process_time()
    _feed(CappedStream(cap=65536), (b"y" * 65535 + b"\r\n") * 64 + b"\r" * 2**22 + b"\r\n" * 2**21, 65536)
    assert time.process_time() - start < 2


def test_a_tqdm_loop_in_a_worker_leaves_one_bar_line(tmp_path):
    """tqdm is part of the grading environment (the `grader` extra), and its bar does not flood the output."""
    path = tmp_path / "nb.ipynb"
    nbformat.write(
        nbformat.v4.new_notebook(
            cells=[
                nbformat.v4.new_code_cell(
                    "from tqdm import tqdm\nfor _ in tqdm(range(3000), mininterval=0, miniters=1):\n    pass\nprint('trained')"
                )
            ]
        ),
        path,
    )
    with NotebookRunner(
        load_cells(path),
        probes=None,
        limits=Limits(cell_timeout=20, submission_timeout=60),
        isolation=choose_isolation(allow_weak=True),
    ) as runner:
        runner.execute()
        assert [r.status for r in runner.cell_records] == ["ok"], runner.cell_records
    assert "trained" in runner.stdout
    bars = [ln for ln in runner.stderr.splitlines() if "it/s" in ln or "3000/3000" in ln]
    assert len(bars) == 1 and "3000/3000" in bars[0], runner.stderr[-500:]
