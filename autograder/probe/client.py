"""What a test calls: `student(probe, *args)` / `reference(probe, *args)`.

A `ProbeClient` turns a probe function into a call on a backend (a worker-backed
`NotebookRunner`, the cached reference, or the student's own kernel for self-checks),
with a seed derived from the course secret, the test's identity and the call's position
(`Seeds.call`), so the k-th student call and the k-th reference call of a test run under
the same seed, and the worker learns that call's seed only: nothing it can derive another
test's (or call's) seed from.  The student's time
inside probes is charged against the test's time limit; the reference's is not.
"""
from __future__ import annotations

import time
from types import ModuleType
from typing import Any, Callable, Protocol

from autograder.execute.runner import ProbeTimeout
from autograder.probe.seeds import Seeds


class Backend(Protocol):
    def call(self, probe: str, args: tuple = (), kwargs: dict | None = None, *, seed: int = 0,
             timeout: float | None = None) -> Any: ...


class TestContext:
    """Per-test state shared by the `student` and `reference` clients of that test."""

    def __init__(self, seeds: Seeds, test_id: str, time_limit: float) -> None:
        self.seeds, self.test_id = seeds, test_id
        self.time_limit = time_limit
        self.student_time = 0.0
        self._calls: dict[str, int] = {}

    def next_seed(self, role: str) -> int:
        k = self._calls.get(role, 0)
        self._calls[role] = k + 1
        return self.seeds.call(self.test_id, k)

    def time_left(self) -> float:
        left = self.time_limit - self.student_time
        if left <= 0:
            raise ProbeTimeout(f"the test's time limit of {self.time_limit:g} s is used up")
        return left


class ProbeClient:
    def __init__(self, backend: Backend, probes: ModuleType | None, context: TestContext, role: str) -> None:
        self.backend, self.probes, self.context, self.role = backend, probes, context, role

    def __call__(self, probe: Callable | str, *args: Any, **kwargs: Any) -> Any:
        name = probe if isinstance(probe, str) else getattr(probe, "__name__", "")
        if self.probes is None or not callable(getattr(self.probes, name, None)):
            raise LookupError(f"{name!r} is not a function of this assignment's probes.py")
        seed = self.context.next_seed(self.role)
        if self.role != "student":
            return self.backend.call(name, args, kwargs, seed=seed, timeout=None)
        timeout = self.context.time_left()
        t0 = time.monotonic()
        try:
            return self.backend.call(name, args, kwargs, seed=seed, timeout=timeout)
        finally:
            self.context.student_time += time.monotonic() - t0
