"""The reference side of a comparison: the master notebook, run once, its answers cached.

Cache keys hash the probe name, its arguments (in wire encoding) and the seed; the cache
directory is per assignment *version*, so editing the master notebook, a probe or a test
invalidates it, and below it per *variant* of the hidden inputs (`probe.seeds`): the course-wide
answers in the version's folder, a student's variant's in `variants/<variant>/`, computed the first
time a submission of that variant needs them.  Entries are wire-format bytes, decoded like any worker
result, once per process: later submissions get copies of the decoded value (a variant's are dropped
when the next submission has another).  A reference that raises is a broken assignment, reported as
a test `error`, never as a student failure.

A variant is used only once the master has scored full marks on it (`prove`): the proof is marked
in the variant's folder, under a lock, so judges grading students of one variant at once run the
master for it once, and a later run or judge reads the mark.
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
from autograder.execute.runner import NotebookRunner, ProbeCrashed, ProbeError, ProbeTimeout


class ReferenceFailed(RuntimeError):
    """The master notebook failed a probe: a bug in the assignment, not the student's fault."""


class CachedReference:
    def __init__(self, make_runner: Callable[[], NotebookRunner], cache_dir: Path | None) -> None:
        self._make_runner = make_runner
        self._runner: NotebookRunner | None = None
        self.cache_dir = cache_dir
        self.variant = ""  # the submission's variant: where its answers are read and stored
        self._memory: dict[str, dict[str, Any]] = {"": {}}  # per variant: decoded answers by key
        self._proven: set[str] = set()  # variants proven by this process or marked proven on disk
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
        """Where `variant`'s answers are cached: the course-wide ones in the version's folder."""
        if self.cache_dir is None:
            return None
        return self.cache_dir / "variants" / variant if variant else self.cache_dir

    def prove(self, variant: str, run: Callable[[], str]) -> str:
        """'' once the master is proven on `variant`, else why it is not.  `run` grades the master on it
        ('' when it scores full marks); it runs once per variant and version, whatever the judges: the
        first one holds the variant's lock while it runs, the others wait, then read its mark."""
        folder = self.folder(variant)
        if variant in self._proven:
            return ""
        if folder is None:
            why = run()
        else:
            folder.mkdir(parents=True, exist_ok=True)
            with open(folder / ".lock", "ab") as lock:
                fcntl.flock(lock, fcntl.LOCK_EX)  # released when the file closes, or the judge dies
                if (folder / _PROVEN).is_file():
                    why = ""
                else:
                    why = run()
                    if not why:
                        _write(folder, _PROVEN, b"the master scored full marks on this variant\n")
        if not why:
            self._proven.add(variant)
        return why

    def call(self, probe: str, args: tuple = (), kwargs: dict | None = None, *, seed: int = 0,
             timeout: float | None = None) -> Any:
        key = hashlib.sha256(wire.encode([probe, list(args), kwargs or {}, seed])).hexdigest()
        memory, folder = self._memory[self.variant], self.folder(self.variant)
        if key in memory:
            self.hits += 1
            return wire.copy_decoded(memory[key])
        blob = None
        if folder is not None and (folder / key).is_file():
            blob = (folder / key).read_bytes()
        if blob is None:
            self.misses += 1
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
            try:
                value = self._runner.call(probe, args, kwargs, seed=seed, timeout=timeout)
            except ProbeError as e:
                raise ReferenceFailed(f"the reference solution raised in probe {probe!r}: {e}") from None
            blob = wire.encode(value)
            if folder is not None:
                _write(folder, key, blob)
        else:
            self.hits += 1
        value = memory[key] = wire.decode_message(blob)
        return wire.copy_decoded(value)

    def close(self) -> None:
        if self._runner is not None:
            self._runner.close()
            self._runner = None


_PROVEN = ".proven"


def _write(folder: Path, name: str, blob: bytes) -> None:
    """`folder/name` whole or not at all: a judge reading it while another writes sees the old file or
    the new one (two judges writing one answer write the same bytes)."""
    folder.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(dir=folder, prefix=".tmp-")
    with os.fdopen(fd, "wb") as f:
        f.write(blob)
    os.replace(tmp, folder / name)
