"""Probes run directly on a live namespace: the student's own kernel, for self-checks.

Values still round-trip through the wire format, so a self-check sees exactly the types
grading will see (a tensor subclass or a custom object fails here too), and the probe
gets copies of the test's inputs.  The caller's random state is saved and restored, so
checking does not change what the student's next cell draws.

An exercise whose code is still the release's stub is reported as "not answered yet", not
by whatever the probe made of the NotImplementedError (many probes turn an exception into
data, which a check would then report as a wrong type).
"""

from __future__ import annotations

import inspect
import random
import time
from types import ModuleType
from typing import Any

import numpy as np
import torch

from autograder.execute import wire
from autograder.execute.backend import ProbeBackend, ProbeError
from autograder.execute.namespace import StudentNamespace, describe_exception
from autograder.execute.rng import seed_all
from autograder.notebook.stub import ERROR, PATTERN, not_answered


def _copy(value: Any) -> Any:
    return wire.decode_message(wire.encode(value))


class _Recording(StudentNamespace):
    """The namespace a probe gets, remembering which names it looked up."""

    def __init__(self, namespace: dict) -> None:
        super().__init__(namespace)
        self.used: list[str] = []

    def __getitem__(self, key: str) -> Any:
        self.used.append(key)
        return super().__getitem__(key)

    def get(self, key: str, default: Any = None) -> Any:
        self.used.append(key)
        return super().get(key, default)


def stubs(obj: Any, name: str) -> list[str]:
    """The functions of `obj` (a function, or a class's methods) that are still the release's stub."""
    if isinstance(obj, type):
        members = [(f"{name}.{k}", v) for k, v in vars(obj).items()]
    elif inspect.isfunction(obj):
        members = [(name, obj)]
    else:
        return []
    found = []
    for label, f in members:
        f = f.fget if isinstance(f, property) else getattr(f, "__func__", f)
        if not inspect.isfunction(f):
            continue
        try:
            source = inspect.getsource(f)
        except (OSError, TypeError):
            continue
        if PATTERN.search(source):
            found.append(label)
    return found


class InProcess(ProbeBackend):
    def __init__(self, namespace: dict, probes: ModuleType) -> None:
        self.namespace, self.probes = namespace, probes

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
        """`call` and the CPU seconds of this thread meanwhile: in the student's own kernel, a self-check's hint,
        never evidence for a grade (grading measures its worker's process tree from outside).  This thread's
        only: a loop runs here, while torch's worker threads, spinning as they wait for work, would count
        against vectorised code, and a busy machine would stretch wall time.  The call runs to its end (no
        `budget` stop: a self-check has no second process to watch it from); its cost says it is over."""
        t0 = time.thread_time()
        value = self.call(probe, args, kwargs, seed=seed, timeout=timeout)
        return value, time.thread_time() - t0

    def call(
        self,
        probe: str,
        args: tuple = (),
        kwargs: dict | None = None,
        *,
        seed: int = 0,
        timeout: float | None = None,
        namespace: dict | None = None,
    ) -> Any:
        state = (random.getstate(), np.random.get_state(), torch.get_rng_state())
        seed_all(seed)
        ns = _Recording(self.namespace if namespace is None else namespace)
        try:
            value, error = _copy(getattr(self.probes, probe)(ns, *_copy(list(args)), **_copy(kwargs or {}))), None
        except Exception as exc:  # noqa: BLE001 - reported like a worker would
            value, error = None, exc
        finally:
            random.setstate(state[0])
            np.random.set_state(state[1])
            torch.set_rng_state(state[2])
        unanswered = [
            s for key in dict.fromkeys(ns.used) if key in self.namespace for s in stubs(self.namespace[key], key)
        ]
        if unanswered or isinstance(error, NotImplementedError):
            raise ProbeError({"type": ERROR, "frames": [], "message": not_answered([f"`{s}`" for s in unanswered])})
        if error is not None:
            raise ProbeError(describe_exception(error))
        return value

    def call_fresh(
        self, probe: str, args: tuple = (), kwargs: dict | None = None, *, seed: int = 0, timeout: float | None = None
    ) -> Any:
        """A self-check has no second worker: the probe runs here, on an empty namespace."""
        return self.call(probe, args, kwargs, seed=seed, timeout=timeout, namespace={})
