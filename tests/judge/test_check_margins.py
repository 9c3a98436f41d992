"""`checks.observe_margins`: each comparison under a tolerance reports the share of it the error used, so that a
sweep over course secrets measures how near correct work comes to failing a check (tests/curriculum/sweep_secrets.py)."""

from __future__ import annotations

import math
import sys
from pathlib import Path

import numpy as np
import pytest
import torch

from autograder.judge import checks

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "curriculum"))

import sweep_secrets  # noqa: E402


@pytest.fixture
def seen():
    got: list[float] = []
    checks.observe_margins(got.append)
    yield got
    checks.observe_margins(None)


def test_each_comparison_that_holds_reports_the_share_of_its_tolerance_used(seen):
    checks.assert_close(torch.tensor([1.0, 2.0]), torch.tensor([1.0, 2.0]))  # equal: nothing used
    checks.assert_close(torch.tensor([1.0, 2.0]), torch.tensor([1.0, 2.5]), rtol=0.0, atol=1.0)  # half
    checks.assert_close(np.array([3.0]), np.array([3.0 + 0.25]), rtol=0.0, atol=1.0)  # a quarter, through numpy
    checks.assert_scalar(1.0 + 0.75e-3, 1.0, rtol=1e-3, atol=0.0)  # math.isclose's tolerance, three quarters
    inf = torch.tensor([1.0, math.inf, math.nan])
    checks.assert_tensor(inf, inf.clone(), equal_nan=True)  # the same infinity, NaN where NaN is expected: none
    checks.assert_close(torch.tensor([1, 2]), torch.tensor([1, 2]))  # integers: no tolerance to use
    assert seen == pytest.approx([0.0, 0.5, 0.25, 0.75, 0.0], rel=1e-3)


def test_a_comparison_that_fails_reports_nothing(seen):
    """A test may catch the failure and decide otherwise (a fallback); a grading that loses the points says so."""
    for got, want in [([1.0, 3.0], [1.0, 2.0]), ([1.0, math.nan], [1.0, 1.0]), ([1.0, math.inf], [1.0, 1.0])]:
        with pytest.raises(checks.CheckFailed):
            checks.assert_close(torch.tensor(got), torch.tensor(want), rtol=0.0, atol=0.5)
    with pytest.raises(checks.CheckFailed):
        checks.assert_scalar(2.0, 1.0)
    assert seen == []


def test_without_an_observer_nothing_is_reported():
    checks.assert_close(torch.tensor([1.0]), torch.tensor([1.0 + 1e-7]))  # no observer set: no error either


def test_the_sweep_fits_a_tail_to_each_tests_shares(monkeypatch):
    m = sweep_secrets.Margins()
    for used in ([0.1, 0.2], [0.1, 0.3], [0.0]):  # three gradings of one test; the largest share of each counts
        for u in used:
            monkeypatch.setenv("PYTEST_CURRENT_TEST", "hidden/test_x.py::test_y (call)")
            m.observe(u)
        m.graded("a1")
    monkeypatch.setenv("PYTEST_CURRENT_TEST", "hidden/test_x.py::test_z (call)")
    m.observe(2.0)  # another test, failing
    m.graded("a1")
    rows = {r["test"]: r for r in m.rows()}
    row = rows["hidden/test_x.py::test_y"]
    assert (row["gradings"], row["max"]) == (3, pytest.approx(0.3))
    assert row["mean"] == pytest.approx(1 / 6)
    scale = (0.3 - 1 / 6) / math.log(3)
    assert row["rate"] == pytest.approx(math.exp(-(1 - 1 / 6) / scale))
    assert row["assignment"] == "a1" and rows["hidden/test_x.py::test_z"]["rate"] == 1.0
