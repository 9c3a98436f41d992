"""The real bubblewrap sandbox (cold or warm, whichever the grader uses by default), plus a log.

The test needs to know which cgroups and work folders *this* batch created, to prove none
is left behind, on a machine where other graders may be running.  These subclasses change
nothing about the isolation: they call the real `spawn` and append one JSON line per worker
start to a log file.  They are pickled to the judge processes like any isolation.
"""

from __future__ import annotations

import json
import os
from pathlib import Path

from autograder.config.limits import Limits
from autograder.execute import sandbox


def _record(log: str, workdir: Path, worker) -> None:
    entry = {"pid": os.getpid(), "workdir": str(workdir), "groups": [str(g) for g in getattr(worker, "cgroups", [])]}
    with open(log, "a", encoding="utf-8") as f:
        f.write(json.dumps(entry) + "\n")


class RecordingBubblewrap(sandbox.Bubblewrap):
    def __init__(self, log: Path, gpu: bool = False) -> None:
        super().__init__(gpu=gpu)
        self.log = str(log)

    def spawn(self, workdir: Path, probes: Path | None, limits: Limits, env: dict[str, str], wire_limits):
        worker = super().spawn(workdir, probes, limits, env, wire_limits)
        _record(self.log, workdir, worker)
        return worker

    def __reduce__(self):
        return (RecordingBubblewrap, (self.log, self.gpu))


if hasattr(sandbox, "WarmBubblewrap"):

    class RecordingWarmBubblewrap(sandbox.WarmBubblewrap):  # type: ignore[name-defined]
        def __init__(self, log: Path, gpu: bool = False) -> None:
            super().__init__(gpu=gpu)
            self.log = str(log)

        def __reduce__(self):  # like the base class: one instance (one zygote) per judge process
            return (_recording_warm_for_process, (self.log, self.gpu))

        def spawn(self, workdir: Path, probes: Path | None, limits: Limits, env: dict[str, str], wire_limits):
            worker = super().spawn(workdir, probes, limits, env, wire_limits)
            _record(self.log, workdir, worker)
            return worker


_PROCESS_RECORDERS: dict = {}


def _recording_warm_for_process(log: str, gpu: bool):
    key = (log, gpu)
    if key not in _PROCESS_RECORDERS:
        _PROCESS_RECORDERS[key] = RecordingWarmBubblewrap(log, gpu=gpu)
        sandbox.close_at_exit(_PROCESS_RECORDERS[key])
    return _PROCESS_RECORDERS[key]


def recording(default: sandbox.Isolation, log: Path) -> sandbox.Isolation:
    """A recording twin of the grader's default isolation."""
    if type(default).__name__ == "WarmBubblewrap":
        return RecordingWarmBubblewrap(log, gpu=default.gpu)
    assert type(default) is sandbox.Bubblewrap, f"unexpected default isolation {type(default).__name__}"
    return RecordingBubblewrap(log, gpu=default.gpu)
