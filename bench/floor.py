"""The floor of grading one submission: the work grading cannot avoid, with no engine around it.

    .venv/bin/python bench/floor.py 01_tensors 03_components     # a JSON list on stdout

For one assignment, in this one warm process (torch imported, probes.py imported, before the clock):

1. `cells_s`: exec the master notebook's code cells in a fresh namespace, each under its cell seed, as
   the worker does (IPython syntax rewritten the same way; `check()` is a no-op, as in a worker);
2. `calls_s`: every probe call the assignment's tests make, each made twice (once for the student,
   once for the reference) by calling the probe function directly on that namespace under the call's
   seed.  The calls are recorded first, by running the tests with in-process backends (`Recorder`;
   once to warm up, once timed), and replayed with copies of their arguments made outside the clock.
   Each part is the best of two (the machine may be shared).

`floor_s = cells_s + calls_s`: a grader that executes the submission, makes every probe call for both
sides and compares nothing could not be faster on this machine.  `inprocess_pytest_s` is the
recording run itself (pytest's per-test protocol, the plugin and the tests' own comparisons with both
sides in process, the tests collected once before, as a judge does, each call's arguments and value
copied through the wire format as a grader copies them): the floor plus pytest, the tests and those
copies, without sandbox, worker or pipe.

`bound_s` is what the kit's design cannot go below, measured in the same run (docs/performance.md, "The
floor, the design's lower bound"): the tests under pytest with no copy and no worker, less the probe calls' own work
(`pytest_checks_s`: the judge's own share, counting the reference's calls at zero, as a judge's cache
does), plus the cells and the student's calls run once in a process forked from this warm one
(`forked_student_s`: a worker per submission, with none of the kit's loop around the calls), plus one
encode and decode of each student call's arguments and value in the wire format (`copies_s`: a format that
never runs code while loading; the only copy the two processes cannot avoid), plus the messages crossing
between the two processes, with nothing in them (`transport_s`: one per cell, one request per test, one
reply per call).  Cell events, deadlines, the reference's cache and the result's record are not in it.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import sys
import tempfile
import time
from pathlib import Path
from typing import Any, Callable

import torch  # noqa: E402

BENCH = Path(__file__).resolve().parent
KIT = BENCH.parent
sys.path.insert(0, str(KIT))

from autograder.config.assignment import load_assignment  # noqa: E402
from autograder.config.secret import find_secret  # noqa: E402
from autograder.execute.backend import ProbeBackend, ProbeError  # noqa: E402
from autograder.execute.namespace import StudentNamespace, cell_filename, describe_exception  # noqa: E402
from autograder.execute.rng import seed_all  # noqa: E402  (as the worker seeds: the floor owes no more)
from autograder.execute.wire import copy_decoded  # noqa: E402
from autograder.execute.worker import _python, start_tensorflow  # noqa: E402
from autograder.judge.plugin import GradingPlugin  # noqa: E402
from autograder.judge.session import load_probes  # noqa: E402
from autograder.judge.suite import TestSuite  # noqa: E402
from autograder.notebook.parse import load_cells  # noqa: E402
from autograder.probe.inprocess import _copy  # noqa: E402
from autograder.probe.seeds import Seeds  # noqa: E402


class Direct(ProbeBackend):
    """Both sides in process: the probe function on the master's namespace under the call's seed, its
    arguments and value passed through `copy`: the wire format's round trip, as between a worker and a
    judge (no stub detection, unlike `InProcess`), or nothing at all (`bare`)."""

    def __init__(self, namespace: dict, probes: Any, copy: Callable[[Any], Any] = _copy) -> None:
        self.namespace, self.probes, self.copy = namespace, probes, copy

    def call(
        self, probe: str, args: tuple = (), kwargs: dict | None = None, *, seed: int = 0, timeout: float | None = None
    ) -> Any:
        seed_all(seed)
        try:
            value = getattr(self.probes, probe)(self.namespace, *self.copy(list(args)), **self.copy(kwargs or {}))
        except Exception as exc:  # noqa: BLE001 - reported like a worker would
            raise ProbeError(describe_exception(exc)) from None
        return self.copy(value)


def bare(namespace: dict, probes: Any) -> Direct:
    """Both sides in process with no copy at all: the probe function's own value (the lower bound's run)."""
    return Direct(namespace, probes, copy=lambda x: x)


class Recorder(ProbeBackend):
    """A backend that forwards to another and remembers every (probe, args, kwargs, seed) it was asked."""

    def __init__(self, inner: Any, calls: list[tuple[str, tuple, dict, int]]) -> None:
        self.inner, self.calls = inner, calls

    def call(
        self, probe: str, args: tuple = (), kwargs: dict | None = None, *, seed: int = 0, timeout: float | None = None
    ) -> Any:
        # a clone, not a wire round trip: the timed run pays the copies a grader makes (`Direct`), not these
        self.calls.append((probe, copy_decoded(list(args)), copy_decoded(kwargs or {}), seed))
        return self.inner.call(probe, args, kwargs, seed=seed, timeout=timeout)


_TENSORFLOW_STARTED: list[bool] = []


def start_framework(a: Any) -> None:
    """The framework as a worker starts it before any cell: torch's threads at the worker's share, and for a
    TensorFlow assignment `worker.start_tensorflow` (thread pools, deterministic ops, no Grappler: without it a
    fit here cost up to twice a worker's, and the floor was no floor), once per process, as TensorFlow fixes its
    pools when its context starts."""
    torch.set_num_threads(max(1, a.limits.threads))
    if a.framework.name == "tensorflow" and not _TENSORFLOW_STARTED:
        os.environ.update(a.framework.env())
        start_tensorflow(max(1, a.limits.threads))
        _TENSORFLOW_STARTED.append(True)


def run_master(assignment_id: str) -> tuple[dict, float]:
    """The master's namespace after all its code cells, and the seconds the cells took."""
    a = load_assignment(assignment_id, KIT)
    seed = Seeds.for_course(find_secret(), a.id).cells()
    start_framework(a)
    ns: dict = StudentNamespace(__name__="__main__")
    sources = [(c.index, _python(c.source)) for c in load_cells(a.solution)]
    before = os.environ.get("AUTOGRADER_WORKER")
    os.environ["AUTOGRADER_WORKER"] = "1"  # the master's check() cells do nothing, as in a worker
    try:
        with open(os.devnull, "w") as devnull, contextlib.redirect_stdout(devnull):
            t0 = time.perf_counter()
            for index, source in sources:
                seed_all(seed + index)
                exec(compile(source, cell_filename(index, source), "exec"), ns)  # registered: Triton reads it
            return ns, time.perf_counter() - t0
    finally:
        if before is None:
            del os.environ["AUTOGRADER_WORKER"]
        else:
            os.environ["AUTOGRADER_WORKER"] = before


def _record(a: Any, probes: Any) -> tuple[list, list, float, int, int, float]:
    """Run the tests twice with both sides in process on fresh master namespaces, collected once as a
    judge collects them (`TestSuite`): the first run warms up, the second is timed and its calls recorded.
    Then twice more with `bare` backends (no copy, no recording): the best of those is the last value."""
    plugin = GradingPlugin(
        student=None,
        reference=None,
        probes=probes,
        seeds=Seeds.for_course(find_secret(), a.id),
        test_timeout=a.limits.test_timeout,
        devices=("cpu",),
        cuda_available=False,
        hidden_dir=a.hidden_dir,
    )
    with TestSuite([a.public_dir, a.hidden_dir], plugin, a.root) as suite:
        for _ in range(2):
            ns, _ = run_master(a.id)
            student: list = []
            reference: list = []
            plugin.bind(
                Recorder(Direct(ns, probes), student),
                Recorder(Direct(ns, probes), reference),
                Seeds.for_course(find_secret(), a.id),
            )
            t0 = time.perf_counter()
            suite.run()
            seconds = time.perf_counter() - t0
        tests, passed = len(plugin.results), sum(r.outcome == "passed" for r in plugin.results)
        uncopied = []
        for _ in range(2):
            ns, _ = run_master(a.id)
            plugin.bind(bare(ns, probes), bare(ns, probes), Seeds.for_course(find_secret(), a.id))
            t0 = time.perf_counter()
            suite.run()
            uncopied.append(time.perf_counter() - t0)
    return student, reference, seconds, tests, passed, min(uncopied)


def in_fork(work: Callable[[], Any]) -> float:
    """Seconds `work()` takes in a child forked from this process, timed inside the child (which leaves
    without running this process's exit handlers).  A fresh process pays its first touch of every page
    (copy on write) and cache, as a worker forked for each submission does."""
    r, w = os.pipe()
    pid = os.fork()
    if pid == 0:
        os.close(r)
        try:
            t0 = time.perf_counter()
            work()
            os.write(w, repr(time.perf_counter() - t0).encode())
        finally:
            os._exit(0)
    os.close(w)
    with os.fdopen(r) as f:
        text = f.read()
    os.waitpid(pid, 0)
    if not text:
        raise RuntimeError("the forked child died before it reported")
    return float(text)


def _forked_student(assignment_id: str, probes: Any, student: list) -> float:
    """The master's cells and the student's side of the calls in a child forked from this warm process,
    with none of a worker's loop around them (best of two children)."""

    def work() -> None:
        ns, _ = run_master(assignment_id)
        for name, args, kw, seed in student:
            seed_all(seed)
            try:
                getattr(probes, name)(ns, *args, **kw)
            except Exception:  # noqa: BLE001 - a probe that raises still did its work
                pass

    return min(in_fork(work) for _ in range(2))


def transport(cells: int, requests: int, replies: int) -> float:
    """Seconds to exchange the kit's messages for one submission with a forked child over a socketpair, each
    a 16-byte frame: one per cell, then `requests` requests each answered by its share of `replies` (the
    child writes each reply as the worker does, at once).  What crossing between two processes costs,
    however little crosses (best of three)."""
    import socket

    per = [replies // requests + (k < replies % requests) for k in range(requests)]
    best = float("inf")
    for _ in range(3):
        ours, theirs = socket.socketpair()
        pid = os.fork()
        if pid == 0:
            ours.close()
            try:
                for _ in range(cells):
                    theirs.sendall(b"c" * 16)
                for n in per:
                    if len(theirs.recv(16)) != 16:
                        break
                    for _ in range(n):
                        theirs.sendall(b"r" * 16)
            finally:
                os._exit(0)
        theirs.close()
        t0 = time.perf_counter()
        for _ in range(cells):
            ours.recv(16, socket.MSG_WAITALL)
        for n in per:
            ours.sendall(b"q" * 16)
            for _ in range(n):
                ours.recv(16, socket.MSG_WAITALL)
        best = min(best, time.perf_counter() - t0)
        ours.close()
        os.waitpid(pid, 0)
    return best


def _copies(ns: dict, probes: Any, student: list) -> float:
    """One wire encode and decode of each student call's arguments and of its value (best of two)."""
    from autograder.execute import wire

    pairs = []
    for name, args, kw, seed in student:
        seed_all(seed)
        try:
            value = getattr(probes, name)(ns, *copy_decoded(args), **copy_decoded(kw))
        except Exception:  # noqa: BLE001
            value = None
        pairs.append(([args, kw], value))
    best = float("inf")
    for _ in range(2):
        t0 = time.perf_counter()
        for request, value in pairs:
            for x in (request, value):
                frame = wire.encode(x)
                wire.decode(frame[wire.HEADER_SIZE :])
        best = min(best, time.perf_counter() - t0)
    return best


def measure(assignment_id: str, repeat: int = 2) -> dict:
    """Best of `repeat` for each part (the machine may be shared; the minimum is the least disturbed)."""
    a = load_assignment(assignment_id, KIT)
    start_framework(a)
    probes = load_probes(a, a.version())
    student, reference, inprocess_pytest_s, tests, passed, bare_s = _record(a, probes)
    cells, replay, failures = [], [], 0
    for _ in range(repeat):
        ns, cells_s = run_master(assignment_id)  # a fresh namespace each time: probes may change it
        cells.append(cells_s)
        calls = [(getattr(probes, name), _copy(args), _copy(kw), seed) for name, args, kw, seed in student + reference]
        failures = 0
        t0 = time.perf_counter()
        for fn, args, kw, seed in calls:
            seed_all(seed)
            try:
                fn(ns, *args, **kw)
            except Exception:  # noqa: BLE001 - a probe that raises still did its work
                failures += 1
        replay.append(time.perf_counter() - t0)
    floor_s = min(cells) + min(replay)
    out = {
        "assignment": assignment_id,
        "cells_s": min(cells),
        "calls_s": min(replay),
        "floor_s": floor_s,
        "probe_calls": len(student) + len(reference),
        "probe_calls_raised": failures,
        "tests": tests,
        "tests_passed_inprocess": passed,
        "inprocess_pytest_s": inprocess_pytest_s,
        "inprocess_pytest_bare_s": bare_s,
    }
    if "tensorflow" in sys.modules:  # a child forked after TensorFlow started its threads hangs on their locks
        return {
            **out,
            "bound_skipped": "no child forked once TensorFlow's runtime runs (the kit's zygote forks before a cell starts it)",
        }
    pytest_checks_s = max(0.0, bare_s - min(replay))
    forked_student_s = _forked_student(assignment_id, probes, student)
    copies_s = _copies(run_master(assignment_id)[0], probes, student)
    # one message per cell, one request per test (a test's calls go as one batch at best), one reply per call
    transport_s = transport(len(load_cells(a.solution)), max(1, tests), len(student))
    return {
        **out,
        "pytest_checks_s": pytest_checks_s,
        "forked_student_s": forked_student_s,
        "copies_s": copies_s,
        "transport_s": transport_s,
        "bound_s": pytest_checks_s + forked_student_s + copies_s + transport_s,
    }


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("assignments", nargs="+")
    args = ap.parse_args(argv)
    cwd = os.getcwd()
    with tempfile.TemporaryDirectory(prefix="ag-floor-") as work:
        os.chdir(work)  # what the cells and probes save (checkpoints) lands there, as in a worker's own folder
        try:
            floors = [measure(x) for x in args.assignments]
        finally:
            os.chdir(cwd)
    print(json.dumps(floors))  # one line: bench/run.py reads the last line
    return 0


if __name__ == "__main__":
    sys.exit(main())
