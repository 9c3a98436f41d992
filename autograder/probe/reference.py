"""The reference side of a comparison: the master notebook, run once, its answers cached.

Cache keys hash the probe name, its arguments (in wire encoding) and the seed; the cache
directory is per assignment *version*, so editing the master notebook, a probe or a test
invalidates it, and below it per *variant* of the hidden inputs (`probe.seeds`): the course-wide
answers in the version's folder, one of N variants' in `variants/<variant>/`, computed the first time
a submission of that variant needs them; a student's own variant's in memory only.  Entries are
wire-format bytes, decoded like any worker result, once per process: later submissions get copies of
the decoded value (a variant's are dropped when the next submission has another).  A reference that
raises is a broken assignment, reported as a test `error`, never as a student failure.

A point a student loses under a variant stands only once the master has scored full marks on that test
file under it (`prove`): for one of N variants the proof is marked in the variant's folder, under a
lock, so judges grading students of one variant at once run the master on it once, and a later run or
judge reads the mark.
"""

from __future__ import annotations

import fcntl
import hashlib
import os
import tempfile
import time
from pathlib import Path
from typing import Any, Callable

from autograder.execute import wire
from autograder.execute.backend import ProbeBackend, ProbeCrashed, ProbeError, ProbeTimeout, answer
from autograder.execute.runner import NotebookRunner
from autograder.probe.seeds import Seeds


class ReferenceFailed(RuntimeError):
    """The master notebook failed a probe: a bug in the assignment, not the student's fault."""


class CachedReference(ProbeBackend):
    def __init__(self, make_runner: Callable[[], NotebookRunner], cache_dir: Path | None) -> None:
        self._make_runner = make_runner
        self._runner: NotebookRunner | None = None
        self.cache_dir = cache_dir
        self.variant = ""  # the submission's variant: where its answers are read and stored
        self._memory: dict[str, dict[str, Any]] = {"": {}}  # per variant: decoded answers by key
        self._proven: set[tuple[str, str]] = set()  # (variant, test id) proven here or marked on disk
        # the master's `fresh_once` answers (tf02b: its kernel compiled, 4.3 s of CPU), kept across its
        # submissions in this judge: each test file's share of the reference pass and each proof compiled it again
        self.fresh_kept: dict[str, Any] = {}
        self.hits = self.misses = 0
        self.start_time = 0.0  # seconds spent starting the master's worker (its cells): no test's time
        self._failed_start: Exception | None = None

    def new_submission(self, variant: str = "") -> None:
        """Answer for `variant` from now on, and try the master's worker again if it could not be started
        (a host fault may have passed).  Within one submission a failed start is not retried per call:
        each start retries on its own, and a broken master would otherwise run again for every test."""
        self._failed_start = None
        self.variant = variant
        for other in [v for v in self._memory if v not in ("", variant)]:  # one student's answers at a time
            del self._memory[other]
        self._memory.setdefault(variant, {})

    def folder(self, variant: str) -> Path | None:
        """Where `variant`'s answers are cached on disk: the course-wide ones in the version's folder, one of N
        variants' below it.  A student's own variant's stay in this process's memory while the student is
        graded: on disk they would grow with the class (21 MiB a student for 01_tensors) for no reader."""
        if self.cache_dir is None or not Seeds.shared(variant):
            return None
        return self.cache_dir / "variants" / variant if variant else self.cache_dir

    def prove(self, variant: str, tests: list[str], run: Callable[[list[str]], str]) -> str:
        """'' once the master is proven on `variant` for each of `tests` (test ids), else why it is not.
        `run(tests)` grades the master on those not proven yet ('' when it scores full marks on them): each
        runs once per variant and version, whatever the judges: the first one holds the variant's lock while
        it runs, the others wait, then read its marks."""
        todo = [t for t in tests if (variant, t) not in self._proven]
        folder = self.folder(variant)
        if not todo:
            return ""
        if folder is None:
            why = run(todo)
        else:
            folder.mkdir(parents=True, exist_ok=True)
            with open(folder / ".lock", "ab") as lock:
                fcntl.flock(lock, fcntl.LOCK_EX)  # released when the file closes, or the judge dies
                todo = [t for t in todo if not (folder / _proven(t)).is_file()]
                why = run(todo) if todo else ""
                if not why:
                    for t in todo:
                        _write(folder, _proven(t), b"the master scored full marks on this test under this variant\n")
        if not why:
            self._proven.update((variant, t) for t in tests)
        return why

    def call(
        self, probe: str, args: tuple = (), kwargs: dict | None = None, *, seed: int = 0, timeout: float | None = None
    ) -> Any:
        [(ok, value)] = self.call_many([(probe, args, kwargs or {}, seed)], timeout=timeout)
        return answer(ok, value)

    def call_many(
        self, calls: list[tuple[str, tuple, dict, int]], *, timeout: float | None = None
    ) -> list[tuple[bool | None, Any]]:
        """Each `(probe, args, kwargs, seed)` answered from the cache, the misses sent to the master's
        worker in one request: a round trip per call cost a variant's proof (and the reference pass) more
        than the calls did.  Entries as `NotebookRunner.call_many`'s; a probe the master raised in is a
        `ReferenceFailed` entry."""
        memory, folder = self._memory[self.variant], self.folder(self.variant)
        # a key names the call whole (probe, arguments, seed): the course-wide answer to it is this variant's
        # too (a `same_inputs` test's large calls, asked again by each student's variant proof)
        shared, shared_folder = self._memory[""], self.folder("")
        out: list[tuple[bool | None, Any]] = [(None, None)] * len(calls)
        missed: dict[str, list[int]] = {}  # key -> positions (one call asked twice in a batch runs once)
        for i, (probe, args, kwargs, seed) in enumerate(calls):
            key = hashlib.sha256(wire.encode([probe, list(args), kwargs or {}, seed])).hexdigest()
            if key not in memory and key not in missed:
                if key in shared:
                    memory[key] = shared[key]
                elif folder is not None and (folder / key).is_file():
                    memory[key] = wire.decode_message((folder / key).read_bytes())
                elif shared_folder is not None and shared_folder != folder and (shared_folder / key).is_file():
                    memory[key] = wire.decode_message((shared_folder / key).read_bytes())
            if key in memory:
                self.hits += 1
                out[i] = (True, wire.copy_decoded(memory[key]))
            else:
                self.hits += key in missed  # asked again within the batch: answered by the first asking
                missed.setdefault(key, []).append(i)
        if not missed:
            return out
        self.misses += len(missed)
        first = [calls[at[0]] for at in missed.values()]
        answers = self._start().call_many([(p, a, k or {}, s) for p, a, k, s in first], timeout=timeout)
        for (key, at), (ok, value), (probe, *_) in zip(missed.items(), answers, first):
            if ok:
                if folder is not None:
                    _write(folder, key, wire.encode(value))
                memory[key] = value  # decoded from the worker's reply: callers get copies
            elif ok is False:
                value = ReferenceFailed(f"the reference solution raised in probe {probe!r}: {ProbeError(value)}")
            for i in at:
                out[i] = (True, wire.copy_decoded(memory[key])) if ok else (None, value)
        return out

    def _start(self) -> NotebookRunner:
        """The master's worker, started (its cells run) at the first miss."""
        if self._runner is None:
            if self._failed_start is not None:
                raise type(self._failed_start)(*self._failed_start.args)
            t0 = time.monotonic()
            try:
                self._runner = self._make_runner()
            except (ProbeCrashed, ProbeTimeout) as e:  # a HostFault, or a master that fails
                self._failed_start = e
                raise
            finally:
                self.start_time += time.monotonic() - t0
        return self._runner

    FRESH_PROCESS = True  # each `call_fresh` is a worker of its own (`ProbeClient.fresh_once` may keep answers)

    def call_fresh(
        self, probe: str, args: tuple = (), kwargs: dict | None = None, *, seed: int = 0, timeout: float | None = None
    ) -> Any:
        """`probe` in a worker of its own that never ran the master's cells (`NotebookRunner.call_fresh`), as a
        student's fresh call runs: the reference pass grades the master through this cache, and what the kit's own
        code does there (tf02b: a kernel library compiled and loaded) must not meet what the master's cells loaded
        (TensorFlow registers nothing from a second library whose ops have the names of loaded ones: the gate
        failed the master with "no op for kit_silu").  Not cached: only the master's own grading asks."""
        return self._start().call_fresh(probe, args, kwargs, seed=seed, timeout=timeout)

    def call_costed(
        self,
        probe: str,
        args: tuple = (),
        kwargs: dict | None = None,
        *,
        seed: int = 0,
        timeout: float | None = None,
        budget: float | None = None,
    ) -> tuple[Any, None]:
        """`call`, with no cost: the master's answers (cached, or from its worker) ran no student code, so there
        is nothing to judge (`ProbeClient.cost` gives None; a test then takes the reference's own word), and
        no budget to stop it at."""
        return self.call(probe, args, kwargs, seed=seed, timeout=timeout), None

    def close(self) -> None:
        if self._runner is not None:
            self._runner.close()
            self._runner = None


def _proven(test: str) -> str:
    """The name of the mark that the master passed `test` (`hidden/test_x.py::test_y[cpu]`) under a variant: the
    id itself where it fits a file name, else its hash (a parametrized test's ids are the test author's)."""
    name = ".proven-" + test.replace("/", "-")
    return name if len(name.encode()) <= 200 else ".proven-" + hashlib.sha256(test.encode()).hexdigest()


def _write(folder: Path, name: str, blob: bytes) -> None:
    """`folder/name` whole or not at all: a judge reading it while another writes sees the old file or
    the new one (two judges writing one answer write the same bytes)."""
    folder.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(dir=folder, prefix=".tmp-")
    with os.fdopen(fd, "wb") as f:
        f.write(blob)
    os.replace(tmp, folder / name)
