"""Run one notebook in a worker and call probes on it, surviving whatever the notebook does.

A cell that hangs or kills its worker is recorded (`timeout` / `crashed`) and the notebook
is replayed in a fresh worker *without* that cell, so the answers in later cells still
earn credit.  A probe call that hangs or kills its worker costs only that call: the next
call gets a fresh worker (again by replaying the notebook).  Every wait is bounded by the
per-cell or per-test deadline and by the submission's overall deadline.
"""

from __future__ import annotations

import re
import shutil
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable, Iterator

from autograder.config.limits import Limits
from autograder.execute import messages, wire
from autograder.execute.backend import ProbeBackend, ProbeCrashed, ProbeTimeout, answer
from autograder.execute.process import WorkerDied, WorkerProcess, WorkerTimeout, host_short
from autograder.execute.sandbox import Isolation
from autograder.notebook.cells import Cell

_WALL_FACTOR = 3  # a cell may take this many times its CPU budget in wall time
_NO_WORKER = "a worker could not be started"
HOST_RETRIES = 2  # calls (and worker starts) retried per submission after a fault of the host, not the student
STARVED = 0.5  # a probe or cell that used less CPU than this share of its wall time may have been starved


def host_starved(cpu: float | None, wall: float, kept_from_cpu: bool | None = None) -> bool:
    """Whether a worker that missed a wall-clock deadline got so little CPU meanwhile that the host,
    not the student's code, is to blame: a loop uses its CPU, a starved worker does not.  A worker that
    other work did not keep from the CPU (`WorkerProcess.starved` False: it slept, waited, stopped
    itself, or spins only now) missed it by its own doing, and is charged like a loop."""
    return cpu is not None and cpu < STARVED * wall and kept_from_cpu is not False


START_STDERR = 4000  # characters (the last ones) kept of what a worker that could not start printed
_MISSING = re.compile(r"ModuleNotFoundError: No module named '([\w.]{1,100})'")


def cannot_start(why: str, stderr: str) -> str:
    """Why no worker could start, from what the last try printed, and what to do: the cause in fixed words
    (a module's name at most, never the printed lines: this message may reach a student's results, the
    lines only the person who runs the kit, `NotebookRunner.start_stderr`)."""
    lines = [ln for ln in stderr.splitlines() if ln.strip()]
    missing = next((m.group(1) for ln in lines if (m := _MISSING.search(ln))), None)
    if missing:
        cause = (
            f"its Python could not import `{missing}`; the worker sees only this environment's own folders "
            f"(not PYTHONPATH, not the current folder): install `{missing}` into the environment that runs "
            "this, then try again"
        )
    elif any(ln.startswith("bwrap:") for ln in lines):
        cause = (
            "the sandbox (bubblewrap) could not set it up; check that `bwrap --unshare-all --ro-bind / / true` "
            "works here, or report it to your course staff with the worker's output"
        )
    elif any("autograder/execute/disk.py" in ln or "autograder/execute/zygote.py" in ln for ln in lines):
        cause = (
            "the sandbox could not prepare the worker's own disk; report it to your course staff with the "
            "worker's output"
        )
    elif lines:
        cause = "it stopped before running any cell; report it to your course staff with the worker's output"
    else:
        cause = "it printed nothing; report it to your course staff"
    why = why if why.startswith(_NO_WORKER) else f"{_NO_WORKER}: {why}"
    return f"{why}: {cause}"


class OverBudget(ProbeTimeout):
    """A costed call stopped once the worker's CPU time, read from /proc by this side, passed the call's CPU
    budget (`NotebookRunner.call_costed`): proof that the code costs more than the budget, gathered
    outside the student's process; the worker is killed there, never waited for to the end."""

    def __init__(self, cpu: float, budget: float) -> None:
        super().__init__(f"stopped after {cpu:.2f} s of CPU time, past its budget of {budget:.2f} s")
        self.cpu, self.budget = cpu, budget


class HostFault(ProbeCrashed):
    """No worker could be started (no student code ran), even after `HOST_RETRIES` tries: the host or
    the sandbox failed, so no test may charge the submission for it; its result stays provisional."""


class _Refused(Exception):
    """A reply that does not fit the protocol (see `messages.reply`)."""


@dataclass
class HostRetries:
    """The one policy for a fault of the host, not the student's (a cell or probe the host kept from the CPU, a
    worker that never started, a fork the host had no room for): tried again on a fresh worker, `HOST_RETRIES`
    times per submission, before the student is charged; one that persists is charged, and `fault` says why
    the result is provisional (never final: graded again on the next run)."""

    used: int = 0
    fault: str = ""

    def again(self) -> bool:
        """Whether this fault is tried again (one retry used), or charged."""
        if self.used < HOST_RETRIES:
            self.used += 1
            return True
        return False

    def charge(self, what: str) -> None:
        """`what` happened again past the retries: charged, the result provisional."""
        self.fault = f"{what} ({HOST_RETRIES} retries): the host may be overloaded"

    def out_of_time(self, what: str) -> None:
        """`what` happened when the submission had no time left to retry it: charged, the result provisional."""
        self.fault = f"the submission's time ran out while {what}: the host may be overloaded"


@dataclass
class CellRecord:
    index: int
    status: str = "ok"  # ok | error | timeout | crashed
    error: dict[str, Any] | None = None
    notes: list[str] = field(default_factory=list)
    source: str = ""
    wall: float = 0.0  # seconds from the cell's start to its end, on the trusted side's clock (as read: exact to its scheduling delay)
    cpu: float | None = None  # CPU seconds of the worker's process tree meanwhile (None: not readable)


WATCH_EVERY = 0.05  # seconds between two looks at a watched call's worker (`NotebookRunner.call_many`)


def cpu_spent(worker: WorkerProcess) -> Callable[[], float]:
    """A reader of the CPU seconds `worker`'s process tree has used since now, read from /proc by this side
    (`WorkerProcess.cpu_seconds`: to the nanosecond, exited threads and waited-for children included); wall time
    where /proc cannot tell."""
    before = worker.cpu_seconds(rescan=True), time.monotonic()

    def spent() -> float:
        cpu, now = worker.cpu_seconds(rescan=True), time.monotonic()
        return cpu - before[0] if cpu is not None and before[0] is not None else now - before[1]

    return spent


class _Watch:
    """The deadlines of a watched `call_many`: a look every `WATCH_EVERY` seconds until the call's own
    deadline, where `at_deadline` runs (and the call times out as an unwatched one would)."""

    def __init__(self, watch: Callable[[], Exception | None], deadline: float, at_deadline: Callable[[], None]) -> None:
        self.watch, self.deadline, self.at_deadline = watch, deadline, at_deadline
        self.stopped: Exception | None = None

    def next_check(self) -> float:
        return min(self.deadline, time.monotonic() + WATCH_EVERY)

    def extend(self) -> float | None:
        if time.monotonic() >= self.deadline:
            self.at_deadline()
            return None
        self.stopped = self.watch()
        return None if self.stopped is not None else self.next_check()


@dataclass
class _CellRun:
    """Where a worker is in the notebook, as its messages say: the worker protocol's state machine for
    cells.  Events must follow the cells the worker was sent, in order, once each: one out of turn
    raises `wire.PayloadError` (only student code can forge one), and is charged to the cell that
    started last (`blamed`)."""

    expected: Iterator[int]  # the cells still to start, in order
    current: int | None = None  # the cell running now
    last: int | None = None  # the cell that started last
    started: float = 0.0  # when the current cell started (monotonic)
    cpu0: float | None = None  # the worker's CPU time then (None: not readable)
    starved: list[str] = field(default_factory=list)  # how the host kept the current cell from the CPU

    def start(self, idx: int, cpu: float | None) -> None:
        if self.current is not None or idx != next(self.expected, None):
            raise wire.PayloadError(f"cell {idx} announced out of turn")
        self.current = self.last = idx
        self.starved.clear()
        self.started, self.cpu0 = time.monotonic(), cpu

    def end(self, idx: int) -> None:
        if idx != self.current:
            raise wire.PayloadError(f"cell {idx} reported as finished while cell {self.current} runs")

    def executed(self) -> None:
        if self.current is not None or next(self.expected, None) is not None:
            raise wire.PayloadError("the notebook reported as executed before all its cells ran")

    def blamed(self) -> int | None:
        """The cell a failed worker is charged to: the one running, else the one that started last."""
        return self.current if self.current is not None else self.last


class NotebookRunner(ProbeBackend):
    """A notebook executed in a (re-startable) worker; `call` runs a probe on it."""

    def __init__(
        self,
        cells: list[Cell],
        *,
        probes: Path | None,
        limits: Limits,
        isolation: Isolation,
        seed: int = 0,
        deadline: float | None = None,
        extra_files: dict[str, Path] | None = None,
    ) -> None:
        self.cells = cells
        self._sources = {c.index: c.source for c in cells}  # one lookup per cell record, not a scan
        self.probes = probes
        self.limits = limits
        self.isolation = isolation
        self.seed = seed
        self.deadline = deadline if deadline is not None else time.monotonic() + limits.submission_timeout
        self.extra_files = extra_files or {}
        self.records: dict[int, CellRecord] = {}
        self.skip: set[int] = set()
        self.restarts = 0
        self.worker: WorkerProcess | None = None
        self.workdir: Path | None = None
        self._request_id = 0
        self.stdout = ""
        self.stderr = ""
        self.out_of_time = False
        self.host = HostRetries()  # faults of the host, retried before the student is charged
        self.start_stderr = ""  # the end of what the last worker that never ran a cell printed
        self.wire_limits = wire.Limits(max_bytes=limits.payload_mb * 2**20)
        self.cell_time = 0.0  # wall seconds the notebook's cells took, replays after a hang or crash included

    @property
    def host_fault(self) -> str:
        """Why this submission's result is provisional (a host fault retries could not clear), or ""."""
        return self.host.fault

    # -- notebook execution -------------------------------------------------------
    def execute(self) -> None:
        """Bring up a worker that has run every cell not known to hang or crash."""
        while self.worker is None:
            if self.host.fault.startswith(_NO_WORKER):  # every later test would meet the same host
                raise HostFault(self.host.fault)
            if self._budget_left() <= 0:
                self.out_of_time = True
                raise ProbeTimeout("the submission used up its time limit")
            if self.restarts > self.limits.max_restarts:
                raise ProbeCrashed(f"the notebook crashed its worker {self.restarts} times; giving up")
            self._run_cells()

    def _run_cells(self) -> None:
        """Execute the notebook's cells (but `skip`) in a fresh worker, each recorded as it ends.  A worker
        that stops, hangs or sends what the protocol does not allow ends the run: `_charge` says whose
        fault it was, and the caller replays the notebook on a fresh worker (without the cell to blame)."""
        run = _CellRun(iter([c.index for c in self.cells if c.index not in self.skip]))
        worker: WorkerProcess | None = None
        try:
            worker = self._spawn()
            worker.send(
                {
                    "op": "start",
                    "cells": [{"index": c.index, "source": c.source} for c in self.cells],
                    "skip": sorted(self.skip),
                    "probes": str(self.probes) if self.probes else None,
                    "seed": self.seed,
                    "threads": self.limits.threads,
                    "limits": self.isolation.rlimits(self.limits),
                },
                self._bounded(self.limits.startup_timeout),
            )
            deadline = self._bounded(self.limits.startup_timeout)
            extend = None
            while True:
                msg = worker.recv(deadline, extend)
                event = messages.event(msg)
                if event == "cell_start":
                    run.start(messages.cell_index(msg), worker.cpu_seconds())
                    deadline, extend = self._cell_clock(worker, run.cpu0, run.starved)
                elif event == "cell_end":
                    if not self._cell_ended(worker, run, *messages.cell_end(msg)):
                        return  # a host fault: replayed on a fresh worker
                else:
                    run.executed()
                    self.worker = worker
                    return
        except (WorkerTimeout, WorkerDied, wire.PayloadError, EOFError) as exc:
            why = self._why(exc, worker) if worker is not None else str(exc)
            if worker is not None:
                self._retire(worker)
            self.restarts += 1
            if run.current is not None:
                self.cell_time += time.monotonic() - run.started
            self._charge(exc, why, run.blamed(), run.starved, worker)

    def _cell_ended(self, worker: WorkerProcess, run: _CellRun, idx: int, err: dict | None, notes: list[str]) -> bool:
        """Record the cell that ended; False when its error was the host's (the notebook is then replayed)."""
        run.end(idx)
        wall, cpu = time.monotonic() - run.started, worker.cpu_seconds()
        self.cell_time += wall
        if err and self._host_fault_in(worker, f"cell {idx}"):
            return False
        self.records[idx] = CellRecord(
            idx,
            "error" if err else "ok",
            err,
            notes,
            self._original(idx),
            wall,
            None if cpu is None or run.cpu0 is None else cpu - run.cpu0,
        )
        run.current = None
        return True

    def _charge(
        self, exc: Exception, why: str, cell: int | None, starved: list[str], worker: WorkerProcess | None
    ) -> None:
        """Whose fault a failed worker was, the host's or the student's (`cell`: the one to blame, None when
        no cell started).  Returns to replay the notebook: after recording the cell's `timeout` or
        `crashed` (skipped in the replay), or without a record when the host is to blame and may be tried
        again (`HOST_RETRIES`).  Raises `ProbeTimeout` when the submission's time is up and `HostFault`
        when no worker could run any cell."""
        if cell is None:
            if isinstance(exc, WorkerTimeout) and self._budget_left() <= 0:
                self.out_of_time = True
                raise ProbeTimeout("the submission used up its time limit") from None
            # no cell started: no student code ran in this worker, the host or the sandbox failed
            self.start_stderr = worker.stderr.text()[-START_STDERR:] if worker is not None else ""
            if self.host.again():
                return
            self.host.fault = cannot_start(why, self.start_stderr)
            raise HostFault(self.host.fault) from None
        timed_out = isinstance(exc, WorkerTimeout)
        if timed_out and self._budget_left() <= 0:
            self.out_of_time = True
            if starved:  # no time left to replay: charged, and the result provisional (graded again)
                self.host.out_of_time(f"cell {cell} {starved[-1]}")
        elif timed_out and starved:
            # the wall backstop stopped a cell the host kept from the CPU: replay it on a fresh worker
            # before charging the student, and if it still happens charge it but keep the result
            # provisional (graded again), as for a probe
            if self.host.again():
                self.restarts -= 1  # the host's restart, not one of the notebook's
                return
            self.host.charge(f"cell {cell} {starved[-1]}")
        t = self.limits.cell_timeout
        msg = (
            f"cell did not finish within its time limit ({t:g} s of CPU time, {_WALL_FACTOR * t:g} s "
            f"of wall time at most)"
            if timed_out or worker is None
            else self._why(exc, worker)
        )
        self.records[cell] = CellRecord(
            cell,
            "timeout" if timed_out else "crashed",
            {"type": "Timeout" if timed_out else "Crashed", "message": msg, "frames": []},
            [],
            self._original(cell),
        )
        self.skip.add(cell)
        if self.out_of_time:
            raise ProbeTimeout("the submission used up its time limit") from None

    def _cell_clock(
        self, worker: WorkerProcess, cpu0: float | None, starved: list[str]
    ) -> tuple[float, Callable[[], float | None]]:
        """A cell's deadline: `cell_timeout` seconds of the worker's CPU time, and at most
        `_WALL_FACTOR` times that in wall time (for a cell that sleeps or waits).

        Counting CPU rather than wall time means a busy machine, which slows every cell, does
        not turn slow-but-correct cells into timeouts, so the limit can be tight; a spinning
        loop on an idle machine still stops after `cell_timeout` seconds.  Where the worker's
        CPU time cannot be read the limit is plain wall time.  A cell stopped by the wall backstop
        while other work kept it from the CPU (`WorkerProcess.starved`) is the host's doing: `starved`
        gets a line saying so, for the caller to retry the cell rather than charge it."""
        limit = self.limits.cell_timeout
        t0, hard, wait0 = time.monotonic(), self._bounded(_WALL_FACTOR * limit), worker.run_queue_wait()

        def extend() -> float | None:
            cpu = worker.cpu_seconds(rescan=True)
            if cpu0 is None or cpu is None:
                return None
            left = limit - (cpu - cpu0)
            now = time.monotonic()
            if left > 0.01 and now >= hard and host_starved(cpu - cpu0, now - t0, worker.starved(wait0, now - t0)):
                starved.append(f"got {cpu - cpu0:.1f} s of CPU in {now - t0:.1f} s of wall time")
            if left <= 0.01 or now >= hard:
                return None
            return min(now + left, hard)

        return self._bounded(limit), extend

    # -- probes -------------------------------------------------------------------
    def call(
        self, probe: str, args: tuple = (), kwargs: dict | None = None, *, seed: int = 0, timeout: float | None = None
    ) -> Any:
        """Run `probe(ns, *args, **kwargs)` in the worker and return its (validated) result."""
        [(ok, value)] = self.call_many([(probe, args, kwargs or {}, seed)], timeout=timeout)
        return answer(ok, value)

    def call_costed(
        self,
        probe: str,
        args: tuple = (),
        kwargs: dict | None = None,
        *,
        seed: int = 0,
        timeout: float | None = None,
        budget: float | None = None,
    ) -> tuple[Any, float]:
        """`call`, and the CPU seconds the worker's process tree used meanwhile, read by this side from /proc:
        how much work the call did, which nothing in the worker can lower (`cpu_spent`; wall time where /proc
        cannot tell).  It includes decoding the arguments and encoding the result (milliseconds for megabytes).
        `budget`: the call is watched while it runs and stopped (`OverBudget`, the worker killed; the next call
        gets a fresh one) as soon as it has spent that many CPU seconds: a loop that would run a minute costs its
        budget, not its minute."""
        self.execute()
        assert self.worker is not None
        spent = cpu_spent(self.worker)

        def over_budget() -> Exception | None:
            cpu = spent()
            return OverBudget(cpu, budget) if budget is not None and cpu >= budget else None

        [(ok, value)] = self.call_many(
            [(probe, args, kwargs or {}, seed)], timeout=timeout, watch=None if budget is None else over_budget
        )
        return answer(ok, value), spent()

    def call_many(
        self,
        calls: list[tuple[str, tuple, dict, int]],
        *,
        timeout: float | None = None,
        watch: Callable[[], Exception | None] | None = None,
    ) -> list[tuple[bool | None, Any]]:
        """Run each `(probe, args, kwargs, seed)` in the worker, in order, sent in one request; the worker
        answers each call as it returns.  One entry per call: (True, value), (False, the student's
        error), or (None, ProbeTimeout / ProbeCrashed) for the call the worker hung or died in and every
        call after it, whose answers never came.  The deadline covers the whole batch, as it covers
        one test's calls made one by one (`answer` turns an entry into its value or exception).  `watch`
        (`call_costed`'s CPU budget) is asked every `WATCH_EVERY` seconds while the worker runs: an
        exception it returns stops the batch there (the worker killed), the calls not answered failing with it."""
        self.execute()
        assert self.worker is not None
        worker = self.worker
        seconds = timeout if timeout is not None else self.limits.test_timeout
        deadline = self._bounded(seconds)
        self._request_id += 1
        t0, cpu0, wait0 = time.monotonic(), worker.cpu_seconds(), worker.run_queue_wait()
        at_deadline: list[Any] = [None, None]  # CPU seconds, and whether other work kept it from the CPU
        answers: list[tuple[bool | None, Any]] = []

        def read_cpu() -> None:  # at the deadline, before the worker is killed: did it run, was it kept from it?
            at_deadline[0] = cpu = worker.cpu_seconds(rescan=True)
            wall = time.monotonic() - t0
            if cpu is not None and cpu0 is not None and host_starved(cpu - cpu0, wall):
                at_deadline[1] = worker.starved(wait0, wall)

        watched = _Watch(watch, deadline, read_cpu) if watch is not None else None
        try:
            worker.send(
                {"op": "probe", "id": self._request_id, "calls": [[p, list(a), k, s] for p, a, k, s in calls]}, deadline
            )
            for _ in calls:
                reply = (
                    worker.recv(watched.next_check(), watched.extend)
                    if watched is not None
                    else worker.recv(deadline, read_cpu)
                )
                try:
                    answers.append(messages.reply(reply, self._request_id))
                except wire.PayloadError as exc:
                    # a forged, stray or malformed frame: this channel can no longer be trusted to stay in step
                    raise _Refused(str(exc)) from None
            failed = next((i for i, (ok, _) in enumerate(answers) if ok is False), None)
            if failed is not None and self._host_fault_in(worker, f"probe {calls[failed][0]!r}"):
                self.worker = None
                return answers[:failed] + self.call_many(calls[failed:], timeout=timeout)
            return answers
        except WorkerTimeout:
            if (
                watched is not None and watched.stopped is not None
            ):  # stopped by its watcher: the student's cost, proven
                self._lose(worker)
                return answers + [(None, watched.stopped)] * (len(calls) - len(answers))
            cpu, kept_from_cpu = at_deadline
            self._lose(worker)
            wall = time.monotonic() - t0
            starved = ""
            if host_starved(None if cpu0 is None or cpu is None else cpu - cpu0, wall, kept_from_cpu):
                # the deadline passed while the worker hardly ran, kept from the CPU: an overloaded host
                starved = f"probe {calls[len(answers)][0]!r} got {cpu - cpu0:.1f} s of CPU in {wall:.1f} s of wall time"
            if self._budget_left() <= 0:
                self.out_of_time = True
                if starved:  # no time left to retry: charged, and the result provisional (graded again)
                    self.host.out_of_time(starved)
                failure: Exception = ProbeTimeout("the submission used up its time limit")
            else:
                if starved:
                    # retry the calls not answered on a fresh worker before charging the student, and if it
                    # still happens charge it but keep the result provisional (graded again)
                    if self.host.again():
                        self.restarts -= 1  # the host's restart, not one of the notebook's
                        return answers + self.call_many(calls[len(answers) :], timeout=timeout)
                    self.host.charge(starved)
                failure = ProbeTimeout(f"no answer within {seconds:g} s")
        except (WorkerDied, EOFError) as exc:
            self._lose(worker)
            failure = ProbeCrashed(self._why(exc, worker))
        except wire.PayloadError as exc:
            self._lose(worker)
            failure = ProbeCrashed(f"the result could not be accepted: {exc}")
        except _Refused as exc:
            self._lose(worker)
            failure = ProbeCrashed(str(exc))
        return answers + [(None, failure)] * (len(calls) - len(answers))

    FRESH_PROCESS = True  # each `call_fresh` is a process of its own (`ProbeClient.fresh_once` may keep answers)
    WATCHES_COST = True  # `call_costed` reads the worker's CPU from /proc and stops the call at its budget

    def call_fresh(
        self, probe: str, args: tuple = (), kwargs: dict | None = None, *, seed: int = 0, timeout: float | None = None
    ) -> Any:
        """Run `probe(ns, *args, **kwargs)` in a worker of its own that never ran a cell of the notebook
        (`ns` is empty): evidence no code of the notebook can reach or switch off, e.g. the kit compiling
        a kernel whose source an earlier probe returned as text, and calling it through its own harness.
        The worker (and its work folder) is stopped after the call; its time is the submission's."""
        with NotebookRunner(
            [],
            probes=self.probes,
            limits=self.limits,
            isolation=self.isolation,
            seed=self.seed,
            deadline=self.deadline,
            extra_files=self.extra_files,
        ) as fresh:
            try:
                return fresh.call(probe, args, kwargs, seed=seed, timeout=timeout)
            finally:
                self.out_of_time = self.out_of_time or fresh.out_of_time
                self.host.fault = self.host.fault or fresh.host.fault

    # -- helpers ------------------------------------------------------------------
    def _host_fault_in(self, worker: WorkerProcess, what: str) -> bool:
        """Student code failed while the host lacked room for a worker under its own limits (`host_short`:
        fork's EAGAIN, ENOMEM): the host's fault.  True: retried on a fresh worker (`worker` retired); past
        HOST_RETRIES False, charged, and the result provisional."""
        short = host_short(getattr(worker, "cgroups", []))
        if not short:
            return False
        if self.host.again():
            self._retire(worker)
            return True
        self.host.charge(f"{what} failed while {short}")
        return False

    def _spawn(self) -> WorkerProcess:
        if self.workdir is None:
            self.workdir = self.isolation.new_workdir()
            for name, src in self.extra_files.items():
                shutil.copy(src, self.workdir / name)
        env = {
            "PATH": "/usr/local/bin:/usr/bin:/bin",
            "HOME": str(self.workdir),
            "TMPDIR": str(self.workdir),
            "LANG": "C.UTF-8",
            "MPLBACKEND": "Agg",
            "AUTOGRADER_WORKER": "1",
            "PYTHONHASHSEED": "0",
            "PYTHONDONTWRITEBYTECODE": "1",
            "OMP_NUM_THREADS": str(self.limits.threads),
            "MKL_NUM_THREADS": str(self.limits.threads),
        }
        try:
            return self.isolation.spawn(self.workdir, self.probes, self.limits, env, self.wire_limits)
        except OSError as e:
            raise WorkerDied(f"{_NO_WORKER}: {e}") from None

    def _lose(self, worker: WorkerProcess) -> None:
        self._retire(worker)
        self.worker = None
        self.restarts += 1

    def _retire(self, worker: WorkerProcess) -> None:
        """Kill the worker (idempotent), release its sandbox resources, keep what it printed."""
        worker.kill()
        self.isolation.release(worker)
        self.stdout += worker.stdout.text()
        self.stderr += worker.stderr.text()

    def _why(self, exc: BaseException, worker: WorkerProcess) -> str:
        if isinstance(exc, WorkerDied):
            return str(exc)
        if isinstance(exc, wire.PayloadError):
            return f"invalid message from the worker: {exc}"
        return worker.exit_description()

    def _original(self, idx: int) -> str:
        return self._sources.get(idx, "")

    def _budget_left(self) -> float:
        return self.deadline - time.monotonic()

    def _bounded(self, seconds: float) -> float:
        return min(time.monotonic() + seconds, self.deadline)

    def close(self) -> None:
        if self.worker is not None:
            w, self.worker = self.worker, None
            w.stop()  # done with it: it leaves by itself, then is killed (`WorkerProcess.stop`)
            self._retire(w)
        if self.workdir is not None:
            self.isolation.remove_workdir(self.workdir)
            self.workdir = None

    def __enter__(self) -> "NotebookRunner":
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    @property
    def cell_records(self) -> list[CellRecord]:
        return [self.records[i] for i in sorted(self.records)]
