"""A live notebook runner for engine tests that call probes on a real (sandboxed where possible) worker."""

from __future__ import annotations

import os
import socket
import subprocess
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest

from autograder.config.limits import Limits
from autograder.execute.process import WorkerProcess
from autograder.execute.runner import NotebookRunner
from autograder.execute.sandbox import choose_isolation
from autograder.notebook.parse import Cell
from autograder.probe.client import ProbeClient, TestContext
from autograder.probe.seeds import Seeds


@contextmanager
def live_runner(folder: Path, cells: list[Cell], probes_source: str) -> Iterator[NotebookRunner]:
    """`cells` executed in a worker that serves the probes of `probes_source` (written under `folder`)."""
    probes = folder / "probes.py"
    probes.write_text(probes_source)
    with NotebookRunner(
        cells,
        probes=probes,
        limits=Limits(cell_timeout=20, submission_timeout=300),
        isolation=choose_isolation(allow_weak=True),
    ) as r:
        yield r


def runner_fixture(cells: list[Cell], probes_source: str):
    """A module-scoped `runner` fixture (assign it to `runner` in the test module): one `live_runner` of `cells`
    and `probes_source` for all the module's tests."""

    @pytest.fixture(scope="module")
    def runner(tmp_path_factory):
        with live_runner(tmp_path_factory.mktemp("probes"), cells, probes_source) as r:
            yield r

    return runner


def client(backend, probes, test: str, timeout: float) -> ProbeClient:
    """A student-side probe client of test `test`, with `timeout` seconds for its calls."""
    return ProbeClient(backend, probes, TestContext(Seeds(b"secret", "a"), test, timeout), "student")


@contextmanager
def handle_on(child: subprocess.Popen) -> Iterator[tuple[WorkerProcess, socket.socket]]:
    """The trusted side's `WorkerProcess` on `child`, a process the test started in a worker's place, and the far end
    of its channel (the test writes there what a worker would); the child killed and reaped after."""
    ours, theirs = socket.socketpair()
    out_r, out_w = os.pipe()
    err_r, err_w = os.pipe()
    worker = WorkerProcess(channel=ours, stdout_fd=out_r, stderr_fd=err_r, pid=child.pid, popen=child)
    os.close(out_w)
    os.close(err_w)
    try:
        yield worker, theirs
    finally:
        child.kill()
        child.wait()
        ours.close()
        theirs.close()
