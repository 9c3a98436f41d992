"""A worker that answers every probe call with a lie earns nothing and blames no one else.

Rule 2 (docs/security.md): points come from values the trusted side compares with the reference, so a
worker that returns None, True, 0, its first argument or an object of another type to every call, the
facts of *how* included, earns 0 on every test of every assignment; and rule 3: what it returns is its
own `failed`, never the grader's `error` (which a check raising on the lie would make it).  The lies go
straight to the tests, bypassing the notebook: the judge's tests and the real reference (the master in its
worker) are what is under test here.  `make test` sends them to the representatives (tests/tiers.py).
"""

from __future__ import annotations

import pytest
import torch

from autograder.config.assignment import load_assignment
from autograder.config.secret import find_secret
from autograder.execute import wire
from autograder.execute.backend import ProbeBackend
from autograder.judge.session import GradeOptions, close_references, prepare_tests, reference_for
from autograder.probe.seeds import Seeds
from tests.curriculum.test_curriculum import ASSIGNMENTS, KIT
from tests.tiers import per_assignment

LIES = {
    "None": lambda args: None,
    "True": lambda args: True,
    "False": lambda args: False,
    "0": lambda args: 0,
    "an empty list": lambda args: [],
    "a string": lambda args: "the answer",
    "an unsupported object": lambda args: wire.Unsupported("Foo"),
    "a tensor of zeros": lambda args: torch.zeros(3),
    "its first argument": lambda args: args[0] if args else None,
}


class Liar(ProbeBackend):
    def __init__(self, lie):
        self.lie = lie

    def call(self, probe, args=(), kwargs=None, *, seed=0, timeout=None):
        return wire.copy_decoded(self.lie(tuple(args)))  # a fresh value each time, as a decode gives


def _leaves(value, swap):
    """`value` with its containers and keys kept and every leaf replaced by `swap(leaf)`."""
    if isinstance(value, dict):
        return {k: _leaves(v, swap) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return type(value)(_leaves(v, swap) for v in value)
    return swap(value)


def _other_type(leaf):
    """A leaf of another type than the right answer's: what a check gets past its structure checks."""
    if isinstance(leaf, torch.Tensor):
        return leaf.tolist()
    if isinstance(leaf, (bool, int, float)):
        return str(leaf)
    return 0


class ShapedLiar(ProbeBackend):
    """The right answer's shape (the reference's, keys and lengths included) with wrong leaves: the lie
    that gets furthest into a test's checks.  A check that converts instead of checking types let one
    through (assert_history took float("0.5"): 6 points of 04_fit_api)."""

    def __init__(self, reference, swap):
        self.reference, self.swap = reference, swap

    def call(self, probe, args=(), kwargs=None, *, seed=0, timeout=None):
        return _leaves(self.reference.call(probe, args, kwargs, seed=seed), self.swap)


SHAPED_LIES = {
    "the right shape, every leaf None": lambda leaf: None,
    "the right shape, leaves of another type": _other_type,
}


@pytest.fixture(scope="module", params=per_assignment(ASSIGNMENTS))
def lied_to(request):
    """Every lie through every test of one assignment: {lie: [TestResult]}."""
    a = load_assignment(request.param, KIT)
    options = GradeOptions(device="cpu")
    suite = prepare_tests(a, options)
    reference = reference_for(a, a.version(), options)
    out = {}
    try:
        liars = {name: Liar(lie) for name, lie in LIES.items()}
        liars.update({name: ShapedLiar(reference, swap) for name, swap in SHAPED_LIES.items()})
        for name, liar in liars.items():
            reference.new_submission()
            suite.plugin.bind(liar, reference, Seeds.for_course(find_secret(), a.id))
            suite.run()
            out[name] = list(suite.plugin.results)
    finally:
        close_references()
    return request.param, out


def test_a_worker_that_lies_earns_nothing_and_causes_no_grader_error(lied_to):
    name, results = lied_to
    earned = {lie: [(t.id, t.score) for t in tests if t.score > 0] for lie, tests in results.items()}
    errors = {lie: [(t.id, t.message[:160]) for t in tests if t.outcome == "error"] for lie, tests in results.items()}
    assert all(tests for tests in results.values())
    assert not any(earned.values()), f"{name}: { ({k: v for k, v in earned.items() if v}) }"
    assert not any(errors.values()), f"{name}: { ({k: v for k, v in errors.items() if v}) }"
