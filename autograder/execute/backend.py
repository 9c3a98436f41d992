"""What answers a probe call: the contract every backend of `probe.client.ProbeClient` keeps, declared once.

The backends are the student's worker (`runner.NotebookRunner`), the master's cached answers
(`probe.reference.CachedReference`), the student's own kernel for self-checks (`probe.inprocess.InProcess`), a
notebook that could not be read (`judge.session`) and the test suite's doubles.  Each says what it can do by
overriding a default here, never by having a method or not: the client asks every backend the same way.
"""

from __future__ import annotations

import time
from typing import Any


class ProbeError(Exception):
    """Student code raised inside a probe; `.error` is the worker's description of it."""

    def __init__(self, error: dict[str, Any]) -> None:
        super().__init__(f"{error.get('type')}: {error.get('message')}")
        self.error = error


class ProbeTimeout(Exception):
    """The probe did not finish before the test's (or the submission's) deadline."""


class ProbeCrashed(Exception):
    """The worker died during the probe, or sent back something that is not valid data."""


# One entry of `call_many`: (True, value), (False, the student's error as data) or (None, the exception that
# stands for the call: a ProbeTimeout or ProbeCrashed for a call the worker never answered).
Entry = tuple[bool | None, Any]


def answer(ok: bool | None, value: Any) -> Any:
    """The value of one `call_many` entry, or the exception it stands for."""
    if ok:
        return value
    if ok is None:
        raise value
    raise ProbeError(value)


class ProbeBackend:
    """Runs `probe(ns, *args, **kwargs)` of an assignment's probes.py against a notebook and answers.

    `call` is the one method every backend writes; the others default to what any backend can do with it."""

    FRESH_PROCESS = False  # each `call_fresh` runs in a process of its own (`ProbeClient.fresh_once` may keep it)
    fresh_kept: dict[str, Any] | None = None  # `fresh_once` answers kept beyond one submission (None: per submission)
    WATCHES_COST = False  # `call_costed` measures CPU from outside the code and stops a call at its `budget`
    start_time = 0.0  # seconds spent starting a worker whose cells are no test's work (`ProbeClient._timed`)

    def call(
        self, probe: str, args: tuple = (), kwargs: dict | None = None, *, seed: int = 0, timeout: float | None = None
    ) -> Any:
        raise NotImplementedError

    def call_many(self, calls: list[tuple[str, tuple, dict, int]], *, timeout: float | None = None) -> list[Entry]:
        """Each `(probe, args, kwargs, seed)` in order, one entry each; a backend with a worker sends them in one
        request.  This one calls them one by one, and a call that fails stands for itself and every call after
        it (as a loop over them would have stopped there)."""
        out: list[Entry] = []
        for probe, args, kwargs, seed in calls:
            try:
                out.append((True, self.call(probe, args, kwargs, seed=seed, timeout=timeout)))
            except (ProbeError, ProbeTimeout, ProbeCrashed) as exc:
                return out + [(None, exc)] * (len(calls) - len(out))
        return out

    def call_fresh(
        self, probe: str, args: tuple = (), kwargs: dict | None = None, *, seed: int = 0, timeout: float | None = None
    ) -> Any:
        """The probe where no code of the notebook can reach it; a backend with no workers of its own answers
        through `call`."""
        return self.call(probe, args, kwargs, seed=seed, timeout=timeout)

    def call_costed(
        self,
        probe: str,
        args: tuple = (),
        kwargs: dict | None = None,
        *,
        seed: int = 0,
        timeout: float | None = None,
        budget: float | None = None,
    ) -> tuple[Any, float | None]:
        """`call` and what it cost: here its wall time, which says little (no `budget` stop: `WATCHES_COST`)."""
        t0 = time.monotonic()
        value = self.call(probe, args, kwargs, seed=seed, timeout=timeout)
        return value, time.monotonic() - t0
