"""The end of a finished worker (`WorkerProcess.stop`): it is told to leave, closes its output and
exits, so its output is complete without waiting for the kernel to take the process apart; a worker
that does not leave (a child holds its output, or the student replaced what exits) is killed after
`STOP_GRACE`, its output read to the end.  Its cgroups go when the kernel has let go of them."""

from __future__ import annotations

import os
import time
from pathlib import Path

import pytest

from autograder.config.limits import Limits
from autograder.execute import process
from autograder.execute.runner import NotebookRunner
from autograder.execute.sandbox import Isolation, _Cgroups, choose_isolation
from autograder.notebook.parse import Cell

pytestmark = pytest.mark.serial  # how long a worker takes to leave, measured

LIMITS = Limits(cell_timeout=20, submission_timeout=120)


def _stopped(source: str) -> tuple[str, float, NotebookRunner]:
    runner = NotebookRunner([Cell(1, source)], probes=None, limits=LIMITS, isolation=choose_isolation(allow_weak=True))
    runner.execute()
    worker = runner.worker
    start = time.monotonic()
    runner.close()
    return runner.stdout, time.monotonic() - start, worker


def test_a_finished_worker_leaves_with_all_its_output():
    out, took, worker = _stopped("print('first')\nimport sys\nsys.stdout.write('x' * 5000 + 'last')\n")
    assert out.startswith("first\n") and out.endswith("last")
    assert took < process.STOP_GRACE  # it left by itself
    assert worker._dead


@pytest.mark.parametrize(
    "source",
    [
        # a child the notebook started holds the worker's output open
        "import subprocess\nsubprocess.Popen(['sleep', '60'])\nprint('started')\n",
        # the notebook replaced how the worker exits
        "import os\nos._exit = lambda code: __import__('time').sleep(60)\nprint('started')\n",
    ],
)
def test_a_worker_that_does_not_leave_is_killed_after_the_grace(source):
    out, took, worker = _stopped(source)
    assert "started" in out
    assert took < process.STOP_GRACE + 10
    assert worker._dead
    time.sleep(0.5)
    assert not os.path.exists(f"/proc/{worker.pid}") or _state(worker.pid) in ("Z", "X")


def _state(pid: int) -> str:
    try:
        return process._stat(pid)[0].decode()
    except OSError:
        return "X"


def test_busy_cgroups_are_removed_later_not_waited_for(tmp_path: Path):
    busy = tmp_path / "busy"
    (busy / "member").mkdir(parents=True)  # a group the kernel still holds: rmdir fails

    class Worker:
        cgroups = [busy]

    iso = Isolation()
    start = time.monotonic()
    iso.release(Worker())
    assert time.monotonic() - start < 0.5 and iso._busy_cgroups == [busy]  # not slept on
    (busy / "member").rmdir()  # the kernel lets go
    iso.close()
    assert not busy.exists() and iso._busy_cgroups == []
    assert _Cgroups.remove([tmp_path / "gone"], wait=False) == []


def test_an_isolation_sent_to_a_judge_takes_no_cgroups_along(tmp_path: Path):
    import pickle

    from autograder.execute.sandbox import RlimitsOnly

    iso = RlimitsOnly()
    iso._busy_cgroups = [tmp_path / "g"]
    copy = pickle.loads(pickle.dumps(iso))  # as a judge process receives it
    assert copy._busy_cgroups == [] and iso._busy_cgroups == [tmp_path / "g"]
    copy.close()


def test_a_closed_worker_leaves_no_descriptor_open_in_the_grader():
    """The channel, the output pipes, the pidfd and the /proc stat file the CPU clock reads: all closed."""
    iso = choose_isolation(allow_weak=True)
    runner = NotebookRunner(
        [Cell(1, "import time\nt = time.process_time()\nwhile time.process_time() - t < 0.05:\n    pass\n")],
        probes=None,
        limits=LIMITS,
        isolation=iso,
    )
    runner.execute()  # warm: the zygote the isolation keeps is not this worker's
    runner.close()
    _discard_spare(iso)  # (nor is the next worker, forked ahead: tests/execute/test_standby_worker.py)
    before = set(os.listdir("/proc/self/fd"))
    runner = NotebookRunner(
        [Cell(1, "import time\nt = time.process_time()\nwhile time.process_time() - t < 0.05:\n    pass\n")],
        probes=None,
        limits=LIMITS,
        isolation=iso,
    )
    runner.execute()
    assert runner.cell_records[0].cpu >= 0.04  # read from the stat file kept open
    assert len(set(os.listdir("/proc/self/fd")) - before) >= 4
    runner.close()
    _discard_spare(iso)
    time.sleep(0.1)
    assert set(os.listdir("/proc/self/fd")) - before == set()


def _discard_spare(iso) -> None:
    standby = getattr(iso, "_standby", None)
    if standby is not None:
        standby.discard(iso.release)
