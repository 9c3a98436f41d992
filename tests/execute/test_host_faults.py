"""A fault the host causes is the grader's: student code that failed while the host had no room left for a
worker under its own limits (fork's EAGAIN with the machine's process slots used up, ENOMEM with its
memory gone) is retried on a fresh worker (`runner.HOST_RETRIES`), and past the retries charged but
provisional, never stored as final.  A worker that met its *own* limits (its `pids` or memory cgroup) is
charged at once, whatever the host's state: `process.host_short` reads both.

The host's state cannot be exhausted for real on a shared test machine, so the runner's tests give
`host_short` an answer; what it reads is tested on files laid out as /proc has them, and the worker's own
limits on a real worker's cgroups."""

from __future__ import annotations

from pathlib import Path

import pytest

from autograder.config.limits import Limits
from autograder.execute import process
from autograder.execute import runner as runner_module
from autograder.execute.runner import HOST_RETRIES, NotebookRunner
from autograder.notebook.parse import Cell

pytestmark = pytest.mark.serial  # the host's process slots and memory filled on purpose

TOY_PROBES = Path(__file__).resolve().parents[1] / "fixtures" / "kit" / "assignments" / "toy" / "probes.py"
LIMITS = Limits(cell_timeout=20, submission_timeout=120, max_restarts=2)
FORK_FAILS = "raise BlockingIOError(11, 'Resource temporarily unavailable')"


def _proc(
    tmp_path: Path,
    tasks: int,
    pid_max: int = 32768,
    threads_max: int = 190000,
    avail_kb: int = 8_000_000,
    total_kb: int = 16_000_000,
) -> Path:
    (tmp_path / "sys" / "kernel").mkdir(parents=True)
    (tmp_path / "sys" / "kernel" / "pid_max").write_text(f"{pid_max}\n")
    (tmp_path / "sys" / "kernel" / "threads-max").write_text(f"{threads_max}\n")
    (tmp_path / "loadavg").write_text(f"0.50 0.40 0.30 2/{tasks} 12345\n")
    (tmp_path / "meminfo").write_text(f"MemTotal:       {total_kb} kB\nMemFree:  1 kB\nMemAvailable:   {avail_kb} kB\n")
    return tmp_path


def test_host_short_reads_the_hosts_process_slots_and_memory(tmp_path):
    assert process.host_short(proc=_proc(tmp_path / "a", tasks=900)) == ""
    assert "32760" not in process.host_short(proc=_proc(tmp_path / "b", tasks=32700))
    assert (
        process.host_short(proc=_proc(tmp_path / "c", tasks=32700)) == "the host had 68 of its 32768 process slots free"
    )
    assert "process slots" in process.host_short(proc=_proc(tmp_path / "d", tasks=9990, pid_max=10_000))
    assert (
        process.host_short(proc=_proc(tmp_path / "e", tasks=900, avail_kb=100_000))
        == "the host had 97 MiB of its 15625 MiB of memory free"
    )
    assert process.host_short(proc=tmp_path / "nothing") == ""  # unreadable: nothing to blame the host for


def test_a_worker_at_its_own_limits_is_never_the_hosts_fault(tmp_path):
    proc = _proc(tmp_path / "p", tasks=32700)
    quiet, refused, full, memory = (tmp_path / n for n in ("quiet", "refused", "full", "memory"))
    for g, files in (
        (quiet, {"pids.events": "max 0\n", "pids.current": "3\n", "pids.max": "256\n"}),
        (refused, {"pids.events": "max 4\n", "pids.current": "3\n", "pids.max": "256\n"}),
        (full, {"pids.events": "max 0\n", "pids.current": "255\n", "pids.max": "256\n"}),
        (memory, {"memory.failcnt": "12\n"}),
    ):
        g.mkdir()
        for name, text in files.items():
            (g / name).write_text(text)
    assert process.host_short([quiet], proc=proc).startswith("the host had")
    for g in (refused, full, memory):
        assert process.at_own_limits([g]) and process.host_short([g], proc=proc) == ""


def test_a_real_worker_that_forks_into_its_own_limit_is_at_its_own_limits(sandbox):
    """The evidence comes from the kernel's counters of the worker's own pids cgroup, outside its reach."""
    from autograder.execute.sandbox import _Cgroups

    if not _Cgroups.layout():
        pytest.skip("no cgroups here")
    limits = Limits(cell_timeout=20, submission_timeout=120, max_restarts=1, processes=24)
    iso = sandbox("warm")
    bomb = (
        "import threading\nev = threading.Event()\nn = 0\ntry:\n    while n < 100:\n"
        "        threading.Thread(target=ev.wait, daemon=True).start()\n        n += 1\nexcept RuntimeError:\n    pass\n"
        "print('HELD', n, flush=True)"
    )
    with NotebookRunner([Cell(1, "x = 1")], probes=None, limits=limits, isolation=iso) as quiet:
        quiet.execute()
        assert not process.at_own_limits(quiet.worker.cgroups)
    with NotebookRunner([Cell(1, bomb)], probes=None, limits=limits, isolation=iso) as bomber:
        bomber.execute()
        assert process.at_own_limits(bomber.worker.cgroups)


class _Host:
    """`host_short` as the runner sees it: short for the first `times` asks, then not."""

    def __init__(self, times: int) -> None:
        self.times, self.asked = times, 0

    def __call__(self, groups=()) -> str:
        self.asked += 1
        return "the host had 3 of its 32768 process slots free" if self.asked <= self.times else ""


@pytest.mark.parametrize("short_for", [0, 1, 99])
def test_a_cell_that_fails_while_the_host_is_short_is_replayed(sandbox, monkeypatch, short_for):
    """Short once: the notebook is replayed on a fresh worker, and the cell's error (the host has room now)
    is final.  Short every time: charged after HOST_RETRIES replays, the result provisional.  Never: charged
    at once, final, no replay."""
    host = _Host(short_for)
    monkeypatch.setattr(runner_module, "host_short", host)
    with NotebookRunner(
        [Cell(1, "x = 1"), Cell(2, FORK_FAILS)], probes=None, limits=LIMITS, isolation=sandbox("warm")
    ) as runner:
        runner.execute()
        assert [c.status for c in runner.cell_records] == ["ok", "error"]
        assert runner.restarts == 0
    retries = min(short_for, HOST_RETRIES)
    assert runner.host.used == retries and host.asked == retries + 1
    if short_for > HOST_RETRIES:
        assert runner.host_fault == (
            f"cell 2 failed while the host had 3 of its 32768 process slots free "
            f"({HOST_RETRIES} retries): the host may be overloaded"
        )
    else:
        assert runner.host_fault == ""


@pytest.mark.parametrize("short_for", [0, 1, 99])
def test_a_probe_that_fails_while_the_host_is_short_is_retried(sandbox, monkeypatch, short_for):
    host = _Host(short_for)
    monkeypatch.setattr(runner_module, "host_short", host)
    cells = [Cell(1, "def double(x):\n    " + FORK_FAILS), Cell(2, "def later(x):\n    return x + 1")]
    with NotebookRunner(cells, probes=TOY_PROBES, limits=LIMITS, isolation=sandbox("warm")) as runner:
        answers = runner.call_many([("later", (1,), {}, 0), ("double", (2,), {}, 0), ("later", (2,), {}, 0)])
        assert answers[0] == (True, 2) and answers[1][0] is False and answers[2] == (True, 3)
        assert "Resource temporarily unavailable" in answers[1][1]["message"]
    retries = min(short_for, HOST_RETRIES)
    assert runner.host.used == retries and runner.restarts == 0
    assert (runner.host_fault != "") == (short_for > HOST_RETRIES)
    if short_for > HOST_RETRIES:
        assert runner.host_fault.startswith("probe 'double' failed while the host had 3 of its 32768")
