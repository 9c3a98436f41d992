"""The warm sandbox forks the next worker ahead of need (`sandbox._Standby`): a spawn takes the spare
made while the last worker ran, if it is of the same kind and still alive; any other spare is killed,
never used, and none is left behind when the isolation closes."""

from __future__ import annotations

import os
import signal
import socket
import time
from dataclasses import replace

import pytest

from autograder.config.limits import Limits
from autograder.execute import process
from autograder.execute.runner import NotebookRunner
from autograder.execute.sandbox import _Standby
from autograder.notebook.parse import Cell

LIMITS = Limits(cell_timeout=20, submission_timeout=120)

LEAVE_TRACES = """
import os
open('/tmp/left-by-the-last', 'w').write('secret')
open(os.path.expanduser('~/left-by-the-last'), 'w').write('secret')
seen = sorted(os.listdir('/tmp'))
"""
LOOK = "import os\nseen = sorted(os.listdir('/tmp')) + sorted(os.listdir(os.path.expanduser('~')))\n"
PROBES = "def seen(ns):\n    return ns['seen']\n"


def _spare(iso):  # the spare made after the last spawn (waits for its fork)
    standby = iso._standby
    standby._thread.join()
    [worker] = standby._made
    return worker


def _alive(pid: int) -> bool:
    try:
        return process._stat(pid)[0] not in (b"Z", b"X")
    except OSError:
        return False


@pytest.fixture
def warm(sandbox, tmp_path):
    """A warm isolation and a probes.py whose `seen` probe returns the notebook's `seen`."""
    probes = tmp_path / "probes.py"
    probes.write_text(PROBES)
    return sandbox("warm"), probes


def _run(iso, probes, source: str, limits: Limits = LIMITS) -> tuple[int, list[str]]:
    with NotebookRunner([Cell(1, source)], probes=probes, limits=limits, isolation=iso) as runner:
        runner.execute()
        assert runner.restarts == 0 and runner.host.used == 0  # the worker it got was alive
        return runner.worker.pid, runner.call("seen")


def test_the_next_worker_is_forked_ahead_and_knows_nothing_of_the_last(warm):
    iso, probes = warm
    first, seen = _run(iso, probes, LEAVE_TRACES)
    assert "left-by-the-last" in seen
    spare = _spare(iso)
    assert spare.pid != first and _alive(spare.pid)
    second, seen = _run(iso, probes, LOOK)
    assert second == spare.pid  # taken, not forked again
    assert "left-by-the-last" not in seen  # forked from the zygote, not from the last worker
    assert _alive(_spare(iso).pid)  # and the one after it is on its way


def test_a_spare_of_another_kind_or_a_dead_one_is_killed_not_used(warm):
    iso, probes = warm
    _run(iso, probes, "seen = []")
    other_kind = _spare(iso)
    pid, seen = _run(iso, probes, "seen = [1]", replace(LIMITS, memory_mb=LIMITS.memory_mb + 1))
    assert pid != other_kind.pid and seen == [1]
    time.sleep(0.2)
    assert not _alive(other_kind.pid)

    dead = _spare(iso)
    os.kill(dead.pid, signal.SIGKILL)
    time.sleep(0.2)
    pid, seen = _run(iso, probes, "seen = [2]", replace(LIMITS, memory_mb=LIMITS.memory_mb + 1))
    assert pid != dead.pid and seen == [2]


def test_closing_leaves_no_spare_and_no_cgroup(warm):
    iso, probes = warm
    _run(iso, probes, "seen = []")
    spare = _spare(iso)
    groups = list(getattr(spare, "cgroups", []))
    iso.close()
    time.sleep(0.2)
    assert not _alive(spare.pid)
    assert not any(g.exists() for g in groups)
    assert iso._standby._thread is None


class _Fake:
    def __init__(self) -> None:
        self.channel, self.peer = socket.socketpair()
        self.killed = False

    def kill(self) -> None:
        self.killed = True


def test_a_spare_that_could_not_be_forked_leaves_the_spawn_to_fork_and_report():
    released = []

    def fails():
        raise OSError("zygote could not fork")

    standby = _Standby()
    standby.prepare("k", fails, released.append)
    assert standby.take("k", released.append) is None and released == []

    made = _Fake()
    standby.prepare("k", lambda: made, released.append)
    made.peer.send(b"x")  # a spare that spoke before its start message is not idle: not used
    assert standby.take("k", released.append) is None
    assert made.killed and released == [made]

    idle = _Fake()
    standby.prepare("k", lambda: idle, released.append)
    assert standby.take("k", released.append) is idle and not idle.killed
    assert standby.take("k", released.append) is None  # taken once

    first, second = _Fake(), _Fake()
    standby.prepare("k", lambda: first, released.append)
    standby.prepare("k", lambda: second, released.append)  # (another thread's spawn): the first is given up
    assert first.killed and released[-1] is first
    assert standby.take("k", released.append) is second and not second.killed


def test_probes_compiled_in_the_zygote_serve_only_while_the_file_is_unchanged(sandbox, tmp_path):
    from autograder.execute import worker

    probes = tmp_path / "probes.py"
    probes.write_text("def seen(ns):\n    return ['first']\n")
    worker.precompile_probes(str(probes))  # as the zygote does (here: in this process)
    code = worker._PRECOMPILED[str(probes.resolve())][1]
    assert worker._compile_probes(str(probes)) is code
    iso = sandbox("warm")
    assert _run(iso, probes, "x = 1")[1] == ["first"]
    probes.write_text("def seen(ns):\n    return ['edited']\n")  # after the zygote compiled it
    assert worker._compile_probes(str(probes)) is not code
    assert _run(iso, probes, "x = 1")[1] == ["edited"]
