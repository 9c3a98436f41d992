import numpy as np
import pytest

from autograder.judge.checks import assert_close

CASES = [("none", False), ("sum_over_batch_size", False), ("sum", True), ("sum_over_batch_size", True), ("none", True)]


@pytest.mark.points(5)
def test_huber_random(student, reference, probes, np_rng):
    """Huber with random deltas, reductions and sample weights on random batches, against the reference"""
    for k, (reduction, weighted) in enumerate(CASES):
        n, width, delta = int(np_rng.integers(3, 10)), [1, 3][k % 2], [0.5, 1.0, 2.5][k % 3]
        y_true = np_rng.normal(size=(n, width)).astype("float32")
        y_pred = (y_true + 3 * delta * np_rng.normal(size=(n, width))).astype("float32")
        sw = np_rng.uniform(0, 2, size=(n,)).astype("float32") if weighted else None
        args = (y_true, y_pred, delta, reduction, sw)
        assert_close(student(probes.huber_run, *args), reference(probes.huber_run, *args),
                     name=f'Huber(delta={delta:g}, reduction="{reduction}") on a [{n}, {width}] batch'
                          + (" with sample weights" if weighted else ""))


@pytest.mark.points(2)
def test_huber_three_axes(student, reference, probes, np_rng):
    """Huber on [N, T, k] targets: one loss per sample and step (the mean runs over the last axis only)"""
    n, t, width = int(np_rng.integers(2, 5)), int(np_rng.integers(2, 5)), 3
    y_true = np_rng.normal(size=(n, t, width)).astype("float32")
    y_pred = (y_true + 2 * np_rng.normal(size=(n, t, width))).astype("float32")
    for reduction in ("none", "sum_over_batch_size"):
        args = (y_true, y_pred, 1.0, reduction)
        assert_close(student(probes.huber_run, *args), reference(probes.huber_run, *args),
                     name=f'Huber(reduction="{reduction}") on a [{n}, {t}, {width}] batch')
