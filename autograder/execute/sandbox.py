"""How a worker is isolated: a command prefix that puts it in a sandbox.

`Isolation.prefix()` returns the argv to put before the worker's own command.  The
weakest level, `RlimitsOnly`, adds nothing (the worker still sets its own rlimits and runs
in its own process group); `Bubblewrap` runs it in fresh namespaces with a read-only view
of the system, see `bubblewrap.py`.
"""
from __future__ import annotations

from pathlib import Path


class Isolation:
    name = "none"

    def prefix(self, workdir: Path, probes: Path | None) -> list[str]:
        raise NotImplementedError


class RlimitsOnly(Isolation):
    """Separate process, rlimits, own process group; no filesystem or network isolation."""

    name = "rlimits"

    def prefix(self, workdir: Path, probes: Path | None) -> list[str]:
        return []
