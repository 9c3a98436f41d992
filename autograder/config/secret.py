"""The course secret: what every hidden input and every student's variant is keyed by (`probe.seeds`).

Found once, by the face that was started (a command, the workspace, Gradescope's runner), and then carried
as a value inside the settings it builds (`GradeOptions.secret` on the way to the judges): no layer below
the faces looks it up again, and nothing hands it on through the environment.  Where it may come from, in
order: the `AUTOGRADER_SECRET` variable of the caller's own environment, a file the caller named (`--secret-file`,
the course file's `secret_file`, `AUTOGRADER_SECRET_FILE`), `~/.config/autograder/secret` when only the caller
can change it (`config.locate`); else a fixed public
default, recorded as such (`seed_source: "default"`): fine for a demo, never for a class.
"""

from __future__ import annotations

import os
from dataclasses import dataclass, field
from pathlib import Path

from autograder.config import locate

DEFAULT = b"autograder-public-default-secret"
ENV = "AUTOGRADER_SECRET"
FILE_ENV = "AUTOGRADER_SECRET_FILE"


@dataclass(frozen=True)
class Secret:
    """The secret's bytes (never in a `repr`, so never in a traceback or a log) and where they came from:
    "env", "file" or "default"."""

    value: bytes = field(default=DEFAULT, repr=False)
    source: str = "default"

    @property
    def is_default(self) -> bool:
        return self.source == "default"


def read_secret(path: Path) -> Secret:
    """The secret in the file `path` (a flag named it: it wins over every other place)."""
    return Secret(Path(path).expanduser().read_bytes().strip(), "file")


def find_secret(named: Path | None = None) -> Secret:
    """The caller's secret: its environment's `AUTOGRADER_SECRET`, the file `named` (a flag or the course file),
    the file `AUTOGRADER_SECRET_FILE` names, `~/.config/autograder/secret`, else the public default."""
    if os.environ.get(ENV):
        return Secret(os.environ[ENV].encode(), "env")
    for path in (named, os.environ.get(FILE_ENV), locate.home_secret()):  # named, or only the caller's
        if path and Path(path).expanduser().is_file():
            return read_secret(Path(path))
    return Secret()
