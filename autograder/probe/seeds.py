"""Seeds students cannot predict: every test's inputs derive from a course secret.

The secret lives outside the repository (`config.secret`: where a face finds it) and reaches this
module as a value (`GradeOptions.secret`).  Without one, a fixed public default is used and the
instructor record says so (`seed_source: "default"`): fine for a demo, not for a class, since anyone
with the kit could then reproduce the hidden inputs.

Every seed is a one-way function of the secret: HMAC-SHA256 keyed by the secret over the
assignment and the test's identity (file and name), plus the call's index for a probe call.
There is no base seed: knowing the seeds of some tests (a probe can read the seed it runs
under) tells nothing about the seeds of any other test or call.  A test id and call index
name the same seed in every run, so a re-grade reproduces the same inputs.

Hidden tests vary per student.  A student's *variant* is a keyed hash (the secret again) of the
assignment and the identity intake assigned them (the roster's student id where matched), so it is
the same for every resubmission and re-grade of one student and unrelated between students; a hidden
test's seeds add the variant, so one student's leaked inputs (a classmate's feedback, an error that
prints its arguments, a lookup table) fit nobody else's.  A course may ask for N variants instead of
one per student (`[course] variants` in course.toml; 1 is one set of inputs for the whole class).
Public tests keep the course-wide seeds: they are the checks the student package runs, nothing in
them is secret, and the same inputs for everyone keep a public failure the same for every student.
"""

from __future__ import annotations

import functools
import hashlib
import hmac
from dataclasses import dataclass, field, replace

from autograder.config.course import PER_STUDENT
from autograder.config.secret import Secret


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
    variant: str = ""  # the hidden tests' variant; "" is the course-wide inputs (public tests, the gate)

    @classmethod
    def for_course(cls, secret: Secret, assignment: str, variant: str = "") -> "Seeds":
        return cls(secret.value, assignment, variant)

    def variant_of(self, student: str, count: int | None = PER_STUDENT) -> str:
        """The variant of `student` (the identity intake assigned): a tag of a keyed hash, "s" and 16 hex
        digits per student, or "v1".."vN" with `count` variants; "" (the course-wide inputs) with one."""
        if count == 1:
            return ""
        mac = _mac(self.key, "variant", self.assignment, student)
        return f"s{mac.hex()[:16]}" if count is PER_STUDENT else f"v{int.from_bytes(mac[:8], 'big') % count + 1}"

    @staticmethod
    def shared(variant: str) -> bool:
        """Whether `variant` may be several students' (the course-wide inputs, one of N), not one student's."""
        return not variant.startswith("s")

    def scope(self, hidden: bool) -> "Seeds":
        """The seeds of one test: a hidden test's vary with the variant, a public test's never do."""
        return self if hidden or not self.variant else replace(self, variant="")

    def test(self, test_id: str) -> int:
        """The `seed` fixture of a test (and its `rng`, `np_rng`): trusted side only."""
        return _seed(self.key, "test", self.assignment, test_id, *self._varied())

    def call(self, test_id: str, index: int) -> int:
        """The seed the worker runs the `index`-th student (and reference) probe call of a test under."""
        return _seed(self.key, "call", self.assignment, test_id, index, *self._varied())

    def _varied(self) -> tuple[str, ...]:
        # the course-wide seeds hash exactly what they always did: a cache and a stored grade stay valid
        return ("variant", self.variant) if self.variant else ()

    def cells(self) -> int:
        """The seed the notebook's cells run under (cell i: this + i), the same for student and master."""
        return _seed(self.key, "cells", self.assignment)
