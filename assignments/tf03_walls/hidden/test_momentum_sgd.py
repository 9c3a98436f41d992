import numpy as np
import pytest

from autograder.judge.checks import assert_close

SHAPES = [(3,), (2, 4), (5, 1), (1,)]


def problem(np_rng, dtype, steps=5):
    inits = [np_rng.normal(size=s).astype(dtype) for s in SHAPES]
    grads = [[None if (i == 3 and t % 2) else np_rng.normal(size=s).astype(dtype) for i, s in enumerate(SHAPES)]
             for t in range(steps)]
    return inits, grads


@pytest.mark.points(5)
def test_sgd_random(student, reference, probes, np_rng):
    """MomentumSGD on four float32 / float64 variables (one without a gradient every other step), random rates"""
    for dtype in ("float32", "float64"):
        inits, grads = problem(np_rng, dtype)
        lr, momentum = float(np_rng.uniform(0.01, 0.2)), float(np_rng.uniform(0.5, 0.95))
        got = student(probes.sgd_run, lr, momentum, inits, grads, dtype)
        want = reference(probes.sgd_run, lr, momentum, inits, grads, dtype)
        assert_close(got, want, name=f"the {dtype} variables after each of 5 steps")


@pytest.mark.points(2)
def test_sgd_without_momentum(student, reference, probes, np_rng):
    """MomentumSGD with momentum 0 (plain SGD)"""
    inits, grads = problem(np_rng, "float32", steps=3)
    lr = float(np_rng.uniform(0.01, 0.2))
    got = student(probes.sgd_run, lr, 0.0, inits, grads)
    assert_close(got, reference(probes.sgd_run, lr, 0.0, inits, grads), name="the variables after each of 3 steps, momentum 0")
