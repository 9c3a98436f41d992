"""A fake clock for probes that time a student's timing code: exact answers whatever the machine's load.

Imported by assignment probes, so it runs in the student's worker: it gathers facts, never verdicts.  A test that
slept for real and bounded the answer by a window failed correct code whenever a loaded grader overshot a sleep;
here the function the kit hands in advances the clock by the seconds it stands for, and the answer is exact (up to
the rounding of the clock's sums: compare within 1e-6 s).  Every clock the `time` module and `timeit` give is
replaced while the block runs, and so are the names the notebook imported (`from time import perf_counter`).
"""

from __future__ import annotations

import time
import timeit
from typing import Any

_CLOCKS = ("perf_counter", "time", "monotonic", "perf_counter_ns", "time_ns", "monotonic_ns")


class FakeClock:
    """`with FakeClock(ns) as clock:` ... `clock.advance(seconds)` ... (`ns`: the notebook's namespace)."""

    def __init__(self, ns: dict) -> None:
        self.ns, self.now = ns, 1000.0

    def advance(self, seconds: float) -> None:
        self.now += seconds

    def _read(self) -> float:
        return self.now

    def _read_ns(self) -> int:
        return int(round(self.now * 1e9))

    def __enter__(self) -> "FakeClock":
        fakes = {name: self._read_ns if name.endswith("_ns") else self._read for name in _CLOCKS}
        real = {getattr(time, name): fakes[name] for name in _CLOCKS}
        real[timeit.default_timer] = self._read
        self._saved_time = {name: getattr(time, name) for name in _CLOCKS}
        self._saved_timer = timeit.default_timer
        imported: dict[str, Any] = {}
        for name, value in list(self.ns.items()):
            try:
                if value in real:  # `from time import perf_counter` binds the real clock in the notebook
                    imported[name] = real[value]
            except Exception:  # noqa: BLE001 - an unhashable or odd value of the student's is not a clock
                continue
        self._saved_ns = {name: self.ns[name] for name in imported}
        for name, fake in fakes.items():
            setattr(time, name, fake)
        timeit.default_timer = self._read
        self.ns.update(imported)
        return self

    def __exit__(self, *exc: Any) -> None:
        for name, value in self._saved_time.items():
            setattr(time, name, value)
        timeit.default_timer = self._saved_timer
        self.ns.update(self._saved_ns)
