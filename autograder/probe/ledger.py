"""What one submission's costed calls proved, kept for the rest of its grading (`ProbeClient.cost`).

A costed call stopped at its CPU budget (`NotebookRunner.call_costed`, `OverBudget`) proved, from outside the
student's process, that the student's code spends more than that budget on those arguments.  Running the same
call again in a later test would cost the budget once more and prove nothing new: the ledger keeps the proof
per (probe, arguments) for the submission, and a later costed call of the same probe on the same arguments
under a budget no larger is answered with it at once.  Only proofs of *excess* are kept: a call that
finished under its budget is measured again wherever a test asks (its cost is small by construction).

One ledger per submission (`GradingPlugin.bind`): nothing a student's call proved reaches another student.
"""

from __future__ import annotations

import hashlib
from typing import Any

from autograder.execute import wire


class CostLedger:
    """Per (probe, arguments): the CPU seconds a stopped call had spent when it was stopped."""

    def __init__(self) -> None:
        self._over: dict[str, float] = {}

    @staticmethod
    def key(probe: str, args: tuple[Any, ...]) -> str:
        """The call's identity: its probe and its arguments as the worker receives them (not its seed: a
        loop's cost does not depend on the seed a probe sets, and the arguments are the same data)."""
        return hashlib.sha256(wire.encode([probe, list(args)])).hexdigest()

    def proven_over(self, probe: str, args: tuple[Any, ...], budget: float) -> float | None:
        """The CPU seconds spent by this call when it was stopped, if that already passes `budget`.  The
        arguments are hashed only once the ledger holds a proof: a cost check's are megabytes (01_tensors: 14 MB,
        a tenth of a second a correct submission's grading spent hashing for nothing)."""
        if not self._over:
            return None
        cpu = self._over.get(self.key(probe, args))
        return cpu if cpu is not None and cpu >= budget else None

    def record_over(self, probe: str, args: tuple[Any, ...], cpu: float) -> None:
        key = self.key(probe, args)
        self._over[key] = max(cpu, self._over.get(key, 0.0))
