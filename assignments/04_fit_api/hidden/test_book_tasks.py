import math

import pytest
import torch

from autograder.judge.checks import assert_equal, assert_true


def _linreg_data(rng, n):
    X = 10 * torch.rand(n, 2, generator=rng) - 5.0
    Y = X @ torch.tensor([[2.0], [-3.0]]) + 10.0 + torch.normal(0.0, 2.0, size=(n, 1), generator=rng)
    return X, Y


def _ring_data(rng, n):
    r = torch.cat([5.0 + torch.randn(n, 1, generator=rng), 8.0 + torch.randn(n, 1, generator=rng)])
    theta = 2 * math.pi * torch.rand(2 * n, 1, generator=rng)
    X = torch.cat([r * torch.cos(theta), r * torch.sin(theta)], dim=1)
    Y = torch.cat([torch.ones(n, 1), torch.zeros(n, 1)])
    return X, Y


@pytest.mark.points(2)
def test_linear_regression_fresh_data(student, probes, rng):
    """the linear regression model predicts fresh data from the book's distribution (MSE <= 5; noise variance is 4)"""
    X, Y = _linreg_data(rng, 2000)
    got = student(probes.book_model, "linreg_model", "linreg_history", X)
    out = got["outputs"]
    assert_true(type(out) is torch.Tensor and out.shape == Y.shape, "linreg_model.net should map [N, 2] to [N, 1].")
    mse = float(((out.double() - Y.double()) ** 2).mean())
    assert_true(mse <= 5.0, f"the mean squared error on fresh data is {mse:.3f}; it should be at most 5.0.")


@pytest.mark.points(1)
def test_linear_regression_history(student, probes):
    """linreg_history is a history of linreg_model's fit: epochs 1..n and positive learning rates"""
    got = student(probes.book_model, "linreg_model", "linreg_history", torch.zeros(1, 2))
    table = got["table"]
    n = len(table.get("epoch", []))
    assert_true(n >= 1, "linreg_history should have at least one row.")
    assert_equal(list(table["epoch"]), list(range(1, n + 1)), name="the epoch column of linreg_history")
    assert_true(all(float(v) > 0 for v in table.get("lr", [0])), "the lr column should hold the learning rates used.")
    assert_equal(got["metric_types"], {"mae": "MeanAbsoluteError"}, name="the metrics of linreg_model")


@pytest.mark.points(3)
def test_two_rings_fresh_data(student, probes, rng):
    """the two-ring classifier is at least 88% accurate on fresh data from the book's distribution"""
    X, Y = _ring_data(rng, 2000)
    got = student(probes.book_model, "ring_model", "ring_history", X)
    out = got["outputs"]
    assert_true(type(out) is torch.Tensor and out.shape == Y.shape, "ring_model.net should map [N, 2] to [N, 1].")
    acc = float(((out > 0).float() == Y).float().mean())
    assert_true(acc >= 0.88, f"the accuracy on fresh data (logit > 0 means the inner ring) is {acc:.3f}; it should be at least 0.88.")


@pytest.mark.points(1)
def test_two_rings_setup(student, probes):
    """ring_model uses BinaryAccuracy under the name 'acc' and its history has one row per epoch"""
    got = student(probes.book_model, "ring_model", "ring_history", torch.zeros(1, 2))
    assert_equal(got["metric_types"], {"acc": "BinaryAccuracy"}, name="the metrics of ring_model")
    n = len(got["table"].get("epoch", []))
    assert_true(n >= 1, "ring_history should have at least one row.")
    assert_equal(list(got["table"]["epoch"]), list(range(1, n + 1)), name="the epoch column of ring_history")
