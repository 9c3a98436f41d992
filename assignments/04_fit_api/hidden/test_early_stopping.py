import pytest
import torch

from autograder.judge.checks import assert_equal


@pytest.mark.points(4)
def test_sequences_with_ties(student, reference, probes, rng):
    """best_index/should_stop agree with the reference on random sequences with ties"""
    containers = ["list", "tuple", "numpy", "series"]
    i = 0
    for mode in ("min", "max"):
        for patience in (1, 2, 3, 4):
            for _ in range(2):
                values = [float(v) for v in torch.randint(0, 5, (12,), generator=rng)]
                c = containers[i % 4]
                i += 1
                assert_equal(student(probes.early, values, patience, mode, c),
                             reference(probes.early, values, patience, mode, c),
                             name=f"[best_index, should_stop] after each epoch (mode {mode!r}, patience {patience}, a {c})")


@pytest.mark.points(2)
def test_float_sequences(student, reference, probes, rng):
    """best_index/should_stop agree with the reference on noisy decreasing and increasing curves"""
    for mode, sign in (("min", 1.0), ("max", -1.0)):
        for patience in (1, 3, 5):
            t = torch.arange(15, dtype=torch.float64)
            values = (sign * (1.0 / (1.0 + t) + 0.05 * torch.randn(15, generator=rng, dtype=torch.float64))).tolist()
            assert_equal(student(probes.early, values, patience, mode),
                         reference(probes.early, values, patience, mode),
                         name=f"[best_index, should_stop] on a noisy curve (mode {mode!r}, patience {patience})")


@pytest.mark.points(1)
def test_unknown_mode(student, probes):
    """an unknown mode raises ValueError"""
    assert_equal(student(probes.early_bad_mode), "ValueError", name="what best_index(values, 'average') raises")
