"""Probes run directly on a live namespace: the student's own kernel, for self-checks.

Values still round-trip through the wire format, so a self-check sees exactly the types
grading will see (a tensor subclass or a custom object fails here too), and the probe
gets copies of the test's inputs.  The caller's random state is saved and restored, so
checking does not change what the student's next cell draws.
"""
from __future__ import annotations

import random
from types import ModuleType
from typing import Any

import numpy as np
import torch

from autograder.execute import wire
from autograder.execute.namespace import StudentNamespace, describe_exception
from autograder.execute.runner import ProbeError


def _copy(value: Any) -> Any:
    return wire.decode_message(wire.encode(value))


class InProcess:
    def __init__(self, namespace: dict, probes: ModuleType) -> None:
        self.namespace, self.probes = namespace, probes

    def call(self, probe: str, args: tuple = (), kwargs: dict | None = None, *, seed: int = 0,
             timeout: float | None = None) -> Any:
        state = (random.getstate(), np.random.get_state(), torch.get_rng_state())
        random.seed(seed)
        np.random.seed(seed % 2**32)
        torch.manual_seed(seed)
        try:
            ns = StudentNamespace(self.namespace)
            value = getattr(self.probes, probe)(ns, *_copy(list(args)), **_copy(kwargs or {}))
            return _copy(value)
        except Exception as exc:  # noqa: BLE001 - reported like a worker would
            raise ProbeError(describe_exception(exc)) from None
        finally:
            random.setstate(state[0])
            np.random.set_state(state[1])
            torch.set_rng_state(state[2])
