"""The reference side of a comparison: the master notebook, run once, its answers cached.

Cache keys hash the probe name, its arguments (in wire encoding) and the seed; the cache
directory is per assignment *version*, so editing the master notebook, a probe or a test
invalidates it.  Entries are wire-format bytes, decoded like any worker result, once per
process: later submissions get copies of the decoded value.  A reference that raises is a
broken assignment, reported as a test `error`, never as a student failure.
"""
from __future__ import annotations

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
        self._memory: dict[str, Any] = {}  # decoded answers by key
        self.hits = self.misses = 0
        self.start_time = 0.0  # seconds spent starting the master's worker (its cells): no test's time
        self._failed_start: Exception | None = None

    def new_submission(self) -> None:
        """Try the master's worker again if it could not be started (a host fault may have passed).
        Within one submission a failed start is not retried per call: each start retries on its own,
        and a broken master would otherwise run again for every test."""
        self._failed_start = None

    def call(self, probe: str, args: tuple = (), kwargs: dict | None = None, *, seed: int = 0,
             timeout: float | None = None) -> Any:
        key = hashlib.sha256(wire.encode([probe, list(args), kwargs or {}, seed])).hexdigest()
        if key in self._memory:
            self.hits += 1
            return wire.copy_decoded(self._memory[key])
        blob = None
        if self.cache_dir is not None and (self.cache_dir / key).is_file():
            blob = (self.cache_dir / key).read_bytes()
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
            self._store(key, blob)
        else:
            self.hits += 1
        value = self._memory[key] = wire.decode_message(blob)
        return wire.copy_decoded(value)

    def _store(self, key: str, blob: bytes) -> None:
        if self.cache_dir is None:
            return
        self.cache_dir.mkdir(parents=True, exist_ok=True)
        fd, tmp = tempfile.mkstemp(dir=self.cache_dir, prefix=".tmp-")
        with os.fdopen(fd, "wb") as f:
            f.write(blob)
        os.replace(tmp, self.cache_dir / key)

    def close(self) -> None:
        if self._runner is not None:
            self._runner.close()
            self._runner = None
