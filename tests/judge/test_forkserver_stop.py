"""The grade command ends its judges' forkserver when it is done (`judge.pool.stop`): nothing of it outlives
the command, not even its teardown, and a later pool in the same process gets a fresh one.  Its socket lives in
a scratch folder of the kit's, which the next run prunes when the grader was killed with SIGKILL."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
from multiprocessing import forkserver
from pathlib import Path

from autograder.execute import scratch
from autograder.judge import pool


def _ping() -> int:
    return os.getpid()


def test_stop_ends_the_forkserver_and_the_next_pool_starts_another():
    from concurrent.futures import ProcessPoolExecutor

    pool.prestart()
    first = forkserver._forkserver._forkserver_pid
    os.kill(first, 0)  # running
    with ProcessPoolExecutor(1, mp_context=pool.judge_context()) as ex:
        assert ex.submit(_ping).result(timeout=120) != os.getpid()
    pool.stop()
    try:
        os.kill(first, 0)
        alive = True
    except ProcessLookupError:
        alive = False
    assert not alive, "the forkserver outlived stop()"
    with ProcessPoolExecutor(1, mp_context=pool.judge_context()) as ex:
        assert ex.submit(_ping).result(timeout=120) != os.getpid()
    assert forkserver._forkserver._forkserver_pid not in (None, first)
    pool.stop()
    pool.stop()  # twice: nothing left to stop


KILLED = r"""
import os, signal
from multiprocessing import forkserver
from autograder.judge import pool
pool.prestart()
print(forkserver._forkserver._forkserver_address, flush=True)
os.kill(os.getpid(), signal.SIGKILL)
"""


def test_a_killed_graders_forkserver_socket_is_pruned_by_the_next_run():
    """A grader killed with SIGKILL runs no clean-up: its forkserver's socket folder must be one the next run's
    pruning knows (multiprocessing's own `pymp-*` folder stayed in /tmp for good)."""
    done = subprocess.run([sys.executable, "-c", KILLED], capture_output=True, text=True, timeout=120)
    assert done.returncode == -signal.SIGKILL, done.stderr[-2000:]
    folder = Path(done.stdout.strip()).parent
    assert folder.parent == Path(scratch.SOCKET_PARENT) and folder.name.startswith("ag-mp-"), folder
    scratch.prune()  # this one's, or a neighbour's that made its first scratch folder since the kill
    assert not folder.exists()
