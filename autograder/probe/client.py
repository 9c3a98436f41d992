"""What a test calls: `student(probe, *args)` / `reference(probe, *args)`.

A `ProbeClient` turns a probe function into a call on a backend (a worker-backed
`NotebookRunner`, the cached reference, or the student's own kernel for self-checks),
with a seed derived from the course secret, the test's identity, the call's position and, for a
hidden test, the student's variant (`Seeds.call`, `Seeds.scope`), so the k-th student call and the
k-th reference call of a test run under the same seed, and the worker learns that call's seed only:
nothing it can derive another test's, call's or student's seed from.  The student's time
inside probes is charged against the test's time limit; the reference's is not.
"""

from __future__ import annotations

import time
from collections.abc import Sequence
from dataclasses import dataclass
from types import ModuleType
from typing import Any, Callable, Iterable

from autograder.execute.backend import Entry, ProbeBackend, ProbeError, ProbeTimeout, answer
from autograder.execute.runner import OverBudget
from autograder.probe.ledger import CostLedger
from autograder.probe.seeds import Seeds


class TestContext:
    """Per-test state shared by the `student` and `reference` clients of that test."""

    __test__ = False  # not a test class

    def __init__(
        self,
        seeds: Seeds,
        test_id: str,
        time_limit: float,
        ledger: CostLedger | None = None,
        kept: dict[str, Any] | None = None,
    ) -> None:
        self.seeds, self.test_id = seeds, test_id
        self.time_limit = time_limit
        self.ledger = ledger if ledger is not None else CostLedger()  # the submission's (`GradingPlugin.bind`)
        self.kept = kept if kept is not None else {}  # the submission's `fresh_once` answers (`GradingPlugin.bind`)
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
    def __init__(self, backend: ProbeBackend, probes: ModuleType | None, context: TestContext, role: str) -> None:
        self.backend, self.probes, self.context, self.role = backend, probes, context, role

    def __call__(self, probe: Callable | str, *args: Any, **kwargs: Any) -> Any:
        return self._run(self._name(probe), [(args, kwargs)])[0]

    def fresh(self, probe: Callable | str, *args: Any, **kwargs: Any) -> Any:
        """`probe(ns, *args)` in a worker that never ran the notebook (`ns` is empty): the kit's own code on
        data an earlier call returned (a kernel's source as text), where no code of the notebook can reach
        it.  The student's time, seeds and errors as for a call; a backend with no workers of its own (the
        master's cached answers, a test double) answers through its `call`."""
        fresh = self.backend.call_fresh
        name, seed = self._name(probe), self.context.next_seed(self.role)
        if self.role != "student":
            return fresh(name, args, kwargs, seed=seed, timeout=None)
        return self._timed(lambda: fresh(name, args, kwargs, seed=seed, timeout=self.context.time_left()))

    def fresh_once(self, probe: Callable | str, *args: Any) -> Any:
        """`fresh(probe, *args)`, answered once per submission: the answer is kept for the rest of the
        submission's grading (never another's), and the same probe on the same arguments in a later test gets
        it without a worker.  Only for the kit's own code that runs nothing of the student's and answers from
        its arguments alone (a kernel's source text compiled: every test's compile of it is the same, and the
        library is loaded only in a later, separate worker).  An error is not kept.  A backend whose fresh
        calls share one process (a self-check in the student's kernel) runs it every time.  The master's
        (`CachedReference.fresh_kept`) are kept for the judge's life: its notebook is the same in every share of
        the reference pass and every variant's proof, each a submission of its own."""
        if self.role != "student" or not self.backend.FRESH_PROCESS:
            return self.fresh(probe, *args)
        kept = self.context.kept if self.backend.fresh_kept is None else self.backend.fresh_kept
        key = CostLedger.key(self._name(probe), args)
        if key in kept:
            self.context.next_seed(self.role)  # the seeds of the test's later calls stay those of a run without it
            return kept[key]
        value = self.fresh(probe, *args)
        kept[key] = value
        return value

    def once(self, probe: Callable | str, *args: Any) -> Any:
        """`client(probe, *args)`, called once per submission: a later test that asks the same probe on the
        same arguments reads the kept answer instead of calling again.  For a costly call whose answer several
        tests judge (tf04's book tasks: one training run read by the accuracy, the reproducibility and the
        logits tests), with the inputs drawn from `shared_rng`.  The call's seed comes from its probe and
        arguments in the test's scope (a hidden test's vary per student), not from the asking test, so the
        answer is the same whichever test asks first, and asking does not move the seeds of the test's other
        calls.  An exception the notebook raised is kept too (the same call raises it again); a timeout or a
        crash is not: the next test asks again on its own time.  Kept per role and per submission only
        (`GradingPlugin.bind`), never across students."""
        name = self._name(probe)
        key = CostLedger.key(name, args)
        seed = self.context.seeds.call(f"once:{key}", 0)
        slot = f"once:{self.role}:{key}:{seed}"
        if slot not in self.context.kept:
            [entry] = self._ask([(name, args, {}, seed)])
            if entry[0] is None and not isinstance(entry[1], ProbeError):  # timed out or crashed: not its answer
                return answer(*entry)
            self.context.kept[slot] = entry
        return answer(*self.context.kept[slot])

    def map(self, probe: Callable | str, arg_tuples: Iterable[tuple]) -> Sequence[Any]:
        """`[client(probe, *args) for args in arg_tuples]` in one round trip to the worker instead of one
        each (a call's fixed cost is ~0.5 ms): the same seeds and values.  Reading an item whose call
        raised, hung or crashed raises what that call would have, so a test that checks the items in
        order fails where the loop would have (an earlier item's wrong value first)."""
        return self._run(self._name(probe), [(tuple(a), {}) for a in arg_tuples])

    def cost(
        self, probe: Callable | str, *args: Any, within: float | None = None, budget: float | None = None
    ) -> "Cost":
        """`client(probe, *args)` with the CPU time the call cost, measured by the trusted side from /proc
        for a worker (`NotebookRunner.call_costed`): evidence of how much work the code did that nothing
        in the notebook can lower; for a backend that cannot tell, the call's wall time on this side.  `cpu`
        is None for the master's cached answers (`CachedReference.call_costed`: no student code ran) and the
        reference role: the reference's own cost comes from its (trusted) probe.  `within`: at most that
        many seconds for the call (ProbeTimeout past it), besides the test's time left.  `budget`: CPU
        seconds at which a worker's call is stopped, watched while it runs (`OverBudget`: the proof that the
        code costs more); the proof is kept for the submission (`CostLedger`), so the same call in a later
        test raises it again at once instead of running again."""
        name = self._name(probe)
        seed = self.context.next_seed(self.role)
        if self.role != "student":
            return Cost(self.backend.call(name, args, {}, seed=seed, timeout=None), None)
        measure = self.backend.call_costed
        ledger, watch = self.context.ledger, {}
        if budget is not None and self.backend.WATCHES_COST:  # a backend that stops a call at its budget
            watch = {"budget": budget}
            proven = ledger.proven_over(name, args, budget)
            if proven is not None:
                raise OverBudget(proven, budget)
        try:
            return Cost(
                *self._timed(
                    lambda: measure(
                        name,
                        args,
                        {},
                        seed=seed,
                        **watch,
                        timeout=min(self.context.time_left(), within or float("inf")),
                    )
                )
            )
        except OverBudget as exc:
            if watch:
                ledger.record_over(name, args, exc.cpu)
            raise

    def _name(self, probe: Callable | str) -> str:
        name = probe if isinstance(probe, str) else getattr(probe, "__name__", "")
        if self.probes is None or not callable(getattr(self.probes, name, None)):
            raise LookupError(f"{name!r} is not a function of this assignment's probes.py")
        return name

    def _run(self, name: str, calls: list[tuple[tuple, dict]]) -> Sequence[Any]:
        batch = [(name, a, k, self.context.next_seed(self.role)) for a, k in calls]
        if self.role != "student":  # the master's answers: a map's misses go to its worker in one request
            return Deferred(len(batch), lambda: self._ask(batch))
        if not batch:
            return []
        return Answers(self._ask(batch))

    def _ask(self, batch: list[tuple[str, tuple, dict, int]]) -> list[Entry]:
        """The backend's entries for `batch`, in one request: the student's on the test's time left (and charged
        to it), the master's with no limit."""
        if self.role != "student":
            return self.backend.call_many(batch, timeout=None)
        return self._timed(lambda: self.backend.call_many(batch, timeout=self.context.time_left()))

    def _timed(self, run: Callable[[], Any]) -> Any:
        """The student's time inside probes counts against the test's time limit; starting the master's
        worker does not (the master graded as the student: its cells are no test's work, as a
        student's cells, run before any test, are not)."""
        t0, started = time.monotonic(), self.backend.start_time
        try:
            return run()
        finally:
            self.context.student_time += time.monotonic() - t0 - (self.backend.start_time - started)


@dataclass(frozen=True)
class Cost:
    """A probe's value, and the CPU seconds its call took (`ProbeClient.cost`)."""

    value: Any
    cpu: float | None


class Answers(Sequence):
    """The results of a `map`: item k is call k's value, or raises its error when read."""

    def __init__(self, answers: list[tuple[bool | None, Any]]) -> None:
        self._answers = answers

    def __len__(self) -> int:
        return len(self._answers)

    def __getitem__(self, k):
        if isinstance(k, slice):
            return [self[i] for i in range(*k.indices(len(self)))]
        return answer(*self._answers[k])

    def __eq__(self, other: object) -> bool:  # compares the values (raising the first error, as reading does)
        return list(self) == list(other) if isinstance(other, Sequence) else NotImplemented

    __hash__ = None  # type: ignore[assignment]

    def __repr__(self) -> str:
        return f"Answers({len(self)} calls)"


class Deferred(Answers):
    """The master's answers to a `reference.map`, asked for when one is first read: a test that stops at
    the student's first failure (a blank notebook's) never has the master answer, under the student's own
    variant, what nobody reads.  The seeds were taken in order when the map was made."""

    def __init__(self, n: int, fetch: Callable[[], list[tuple[bool | None, Any]]]) -> None:
        self._n, self._fetch = n, fetch
        self._got: list[tuple[bool | None, Any]] | None = None

    def __len__(self) -> int:
        return self._n

    @property
    def _answers(self) -> list[tuple[bool | None, Any]]:  # type: ignore[override]
        if self._got is None:
            self._got = self._fetch()
        return self._got
