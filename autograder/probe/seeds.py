"""Seeds students cannot predict: every test's inputs derive from a course secret.

The secret lives outside the repository (env `AUTOGRADER_SECRET`, or the file named by
`AUTOGRADER_SECRET_FILE`, or `~/.config/autograder/secret`).  Without one, a fixed public
default is used and the instructor record says so (`seed_source: "default"`): fine for a
demo, not for a class, since anyone with the kit could then reproduce the hidden inputs.

Every seed is a one-way function of the secret: HMAC-SHA256 keyed by the secret over the
assignment and the test's identity (file and name), plus the call's index for a probe call.
There is no base seed: knowing the seeds of some tests (a probe can read the seed it runs
under) tells nothing about the seeds of any other test or call.  A test id and call index
name the same seed in every run, so a re-grade reproduces the same inputs.
"""
from __future__ import annotations

import functools
import hashlib
import hmac
import os
from dataclasses import dataclass, field
from pathlib import Path

_DEFAULT = b"autograder-public-default-secret"


def course_secret() -> tuple[bytes, str]:
    """(secret bytes, where it came from)."""
    if os.environ.get("AUTOGRADER_SECRET"):
        return os.environ["AUTOGRADER_SECRET"].encode(), "env"
    for path in (os.environ.get("AUTOGRADER_SECRET_FILE"), Path.home() / ".config" / "autograder" / "secret"):
        if path and Path(path).is_file():
            return Path(path).read_bytes().strip(), "file"
    return _DEFAULT, "default"


def _mac(key: bytes, *parts: object) -> bytes:
    """HMAC-SHA256 over the parts, each length-prefixed (so ("ab", "c") and ("a", "bc") differ)."""
    h = hmac.new(key, digestmod=hashlib.sha256)
    for p in parts:
        b = p if isinstance(p, bytes) else str(p).encode()
        h.update(len(b).to_bytes(8, "big") + b)
    return h.digest()


@functools.lru_cache(maxsize=1 << 16)  # every submission's tests ask for the same seeds (0.03 s of HMACs each)
def _seed(key: bytes, *parts: object) -> int:
    return int.from_bytes(_mac(key, *parts)[:8], "big") >> 1  # 63 bits: fits every RNG's seed


def fingerprint(secret: bytes) -> str:
    """A short non-invertible tag of the secret: tells two runs' secrets apart, reveals no seed."""
    return _mac(secret, "autograder secret fingerprint").hex()[:16]


@dataclass(frozen=True)
class Seeds:
    """The seeds of one assignment.  Lives only in the trusted process (the key is left out of
    `repr`, so it cannot reach a traceback or a log)."""

    key: bytes = field(repr=False)
    assignment: str

    @classmethod
    def for_course(cls, assignment: str) -> "Seeds":
        return cls(course_secret()[0], assignment)

    def test(self, test_id: str) -> int:
        """The `seed` fixture of a test (and its `rng`, `np_rng`): trusted side only."""
        return _seed(self.key, "test", self.assignment, test_id)

    def call(self, test_id: str, index: int) -> int:
        """The seed the worker runs the `index`-th student (and reference) probe call of a test under."""
        return _seed(self.key, "call", self.assignment, test_id, index)

    def cells(self) -> int:
        """The seed the notebook's cells run under (cell i: this + i), the same for student and master."""
        return _seed(self.key, "cells", self.assignment)
