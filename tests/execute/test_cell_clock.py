"""A cell's time limit counts the worker's CPU time, with a wall-clock backstop.

So a loaded machine (which stretches every cell's wall time) does not turn a correct cell into a
timeout, while a spinning loop still stops after `cell_timeout` seconds of CPU and a cell that
blocks (sleep, a lock) after `_WALL_FACTOR` times that.
"""

import time

import pytest

from autograder.config.limits import Limits
from autograder.execute.runner import _WALL_FACTOR, NotebookRunner
from autograder.execute.sandbox import Bubblewrap, RlimitsOnly, choose_isolation
from autograder.notebook.parse import Cell

pytestmark = pytest.mark.serial  # CPU clocks against wall backstops: the host to itself

SPIN = "import time\nt = time.process_time()\nwhile time.process_time() - t < {s}:\n    pass\nDONE = True"
SLEEP = "import time\ntime.sleep({s})\nDONE = True"
# the trusted side stamps an event when it reads it, so a cell's wall time is exact only to the
# reader's scheduling delay, which on a loaded 2-core box reaches a few milliseconds
READ_DELAY = 0.02


@pytest.fixture(scope="module", params=["chosen", "cold-bubblewrap", "rlimits"])
def isolation(request):
    """The isolation grading uses here, plus the two others where they can run: the worker's CPU time
    is read from its process tree under each (under a cold sandbox, behind bwrap and a shell)."""
    if request.param == "chosen":
        return choose_isolation(allow_weak=True)
    if request.param == "cold-bubblewrap":
        if not Bubblewrap.available():
            pytest.skip("bubblewrap is not available here")
        return Bubblewrap()
    return RlimitsOnly()


def _run(isolation, source: str, cell_timeout: float) -> tuple[str, str, float]:
    limits = Limits(cell_timeout=cell_timeout, submission_timeout=120, max_restarts=1)
    t0 = time.monotonic()
    with NotebookRunner([Cell(index=1, source=source)], probes=None, limits=limits, isolation=isolation) as runner:
        runner.execute()
        rec = runner.cell_records[0]
        return rec.status, (rec.error or {}).get("message", ""), time.monotonic() - t0


def test_a_cell_that_waits_longer_than_its_cpu_budget_finishes(isolation):
    status, _, _ = _run(isolation, SLEEP.format(s=1.5), cell_timeout=1)  # 1.5 s wall, ~0 s CPU
    assert status == "ok"


def test_a_cell_that_spins_past_its_cpu_budget_times_out(isolation):
    status, message, _ = _run(isolation, SPIN.format(s=30), cell_timeout=1)
    assert status == "timeout"
    assert "1 s of CPU time" in message and f"{_WALL_FACTOR} s of wall time" in message


def test_a_cell_that_blocks_forever_stops_at_the_wall_backstop(isolation):
    status, _, elapsed = _run(isolation, SLEEP.format(s=10_000), cell_timeout=1)
    assert status == "timeout"
    assert elapsed >= _WALL_FACTOR * 1 - 0.1  # not before the backstop (how long after depends on the load)


def test_each_cell_records_its_wall_and_cpu_time(isolation):
    """What `check-solutions` compares with cell_timeout, and what the bench subtracts as the student's own time."""
    cells = [
        Cell(index=1, source=SPIN.format(s=0.3)),
        Cell(index=2, source=SLEEP.format(s=0.3)),
        Cell(index=3, source="x = 1"),
    ]
    limits = Limits(cell_timeout=10, submission_timeout=120, max_restarts=1)
    with NotebookRunner(cells, probes=None, limits=limits, isolation=isolation) as runner:
        runner.execute()
        spin, sleep, quick = runner.cell_records
    assert spin.cpu is not None and 0.25 <= spin.cpu <= spin.wall + 0.05
    assert sleep.wall >= 0.3 - READ_DELAY and sleep.cpu is not None and sleep.cpu < 0.2
    assert quick.wall < 0.3
    assert abs(runner.cell_time - (spin.wall + sleep.wall + quick.wall)) < 1e-6


def test_a_child_process_that_spins_is_charged_to_its_cell(isolation):
    """The clock counts the worker's whole process tree, found again at the deadline: a cell that waits
    on a spinning child stops once the child has used the cell's CPU budget, not at the wall backstop."""
    source = "import subprocess, sys\nsubprocess.run([sys.executable, '-c', 'while True: pass'])\n"
    limits = Limits(cell_timeout=1, submission_timeout=120, max_restarts=1)
    with NotebookRunner([Cell(index=1, source=source)], probes=None, limits=limits, isolation=isolation) as runner:
        runner.execute()
        assert runner.cell_records[0].status == "timeout"
        assert runner.cell_time < _WALL_FACTOR * 1 - 0.2  # the cell's wall time, the workers' starts left out
