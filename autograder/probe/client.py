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
from typing import Any, Callable, Iterable, Protocol

from autograder.execute.runner import ProbeError, ProbeTimeout
from autograder.probe.seeds import Seeds


class Backend(Protocol):
    def call(self, probe: str, args: tuple = (), kwargs: dict | None = None, *, seed: int = 0,
             timeout: float | None = None) -> Any: ...


class TestContext:
    """Per-test state shared by the `student` and `reference` clients of that test."""

    __test__ = False  # not a test class

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
        return self._run(self._name(probe), [(args, kwargs)])[0]

    def map(self, probe: Callable | str, arg_tuples: Iterable[tuple]) -> list[Any]:
        """`[client(probe, *args) for args in arg_tuples]`, the same seeds and results, in one round trip
        to the worker instead of one each (a probe call's fixed cost is ~0.5 ms).  Every call runs; the
        first one that raised, in order, raises here, as the loop would have."""
        return self._run(self._name(probe), [(tuple(a), {}) for a in arg_tuples])

    def _name(self, probe: Callable | str) -> str:
        name = probe if isinstance(probe, str) else getattr(probe, "__name__", "")
        if self.probes is None or not callable(getattr(self.probes, name, None)):
            raise LookupError(f"{name!r} is not a function of this assignment's probes.py")
        return name

    def _run(self, name: str, calls: list[tuple[tuple, dict]]) -> list[Any]:
        batch = [(name, a, k, self.context.next_seed(self.role)) for a, k in calls]
        if self.role != "student":
            return [self.backend.call(p, a, k, seed=s, timeout=None) for p, a, k, s in batch]
        many = getattr(self.backend, "call_many", None)
        if many is None or len(batch) <= 1:  # one call, or a backend without a worker to batch for
            return [self._timed(lambda p=p, a=a, k=k, s=s: self.backend.call(p, a, k, seed=s, timeout=self.context.time_left()))
                    for p, a, k, s in batch]
        answers = self._timed(lambda: many(batch, timeout=self.context.time_left()))
        for ok, value in answers:
            if not ok:
                raise ProbeError(value)
        return [value for _, value in answers]

    def _timed(self, run: Callable[[], Any]) -> Any:
        """The student's time inside probes counts against the test's time limit."""
        t0 = time.monotonic()
        try:
            return run()
        finally:
            self.context.student_time += time.monotonic() - t0
