"""The grade command ends its judges' forkserver when it is done (`judge.pool.stop`): nothing of it outlives
the command, not even its teardown, and a later pool in the same process gets a fresh one."""

from __future__ import annotations

import os
from multiprocessing import forkserver

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
