"""The worker's CPU seconds as the judge reads them (`WorkerProcess.cpu_seconds`): each process's CPU clock, to the
nanosecond, its exited threads included, plus clock ticks of the children it waited for; clock ticks alone where the
clock cannot be read.  A cost rule decided by a ratio of two readings (02's "f evaluated once") relies on the first:
ticks are 10 ms steps."""

from __future__ import annotations

import os
import subprocess
import sys
import time

import pytest

from autograder.execute import process
from tests.execute.live import handle_on

# a thread that burns about 0.05 s of CPU and ends, then a child burned and waited for, then the process sleeps
_CODE = """
import os, threading, time
def burn():
    end = time.thread_time() + 0.05
    while time.thread_time() < end:
        pass
t = threading.Thread(target=burn); t.start(); t.join()
pid = os.fork()
if pid == 0:
    burn(); os._exit(0)
os.waitpid(pid, 0)
print("done", flush=True)
time.sleep(60)
"""


@pytest.fixture
def worker():
    child = subprocess.Popen([sys.executable, "-c", _CODE], stdout=subprocess.PIPE)
    with handle_on(child) as (worker, _):
        assert child.stdout is not None and child.stdout.readline() == b"done\n"
        yield worker


def _ticks(pid: int, fields: slice) -> float:
    return sum(int(x) for x in process._stat(pid)[fields]) / os.sysconf("SC_CLK_TCK")


def test_a_reading_counts_exited_threads_and_waited_children_to_the_nanosecond(worker):
    cpu = worker.cpu_seconds()
    assert cpu is not None and cpu >= 0.1  # the exited thread's 0.05 s and the waited child's 0.05 s
    clock = time.clock_gettime(process.cpu_clock(worker.pid))  # the process's own, exited thread included
    assert clock >= 0.05 and cpu == pytest.approx(clock + _ticks(worker.pid, slice(13, 15)), abs=0.002)
    assert abs(cpu * 100 - round(cpu * 100)) > 1e-6  # not whole clock ticks


def test_without_the_clock_a_reading_falls_back_to_clock_ticks(worker, monkeypatch):
    def no_clock(clock_id: int) -> float:
        raise OSError(22, "Invalid argument")

    monkeypatch.setattr(process.time, "clock_gettime", no_clock)
    cpu = worker.cpu_seconds()
    assert cpu is not None and cpu == pytest.approx(_ticks(worker.pid, slice(11, 15))) and cpu >= 0.09
