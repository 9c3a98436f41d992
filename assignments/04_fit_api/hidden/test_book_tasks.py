import pytest
import torch

from autograder.judge.checks import assert_equal, assert_true


def _pair(got, function):
    assert_true(got["returned"] == "pair",
                f"{function}(train_data, val_data) should return the pair (model, history), but returned a {got['returned']}.")


def _linreg(student, probes, rng, X):
    (Xtr, Ytr), (Xva, Yva) = probes.linreg_data(rng, 280), probes.linreg_data(rng, 120)
    got = student(probes.book_task, "train_linreg", Xtr, Ytr, Xva, Yva, 20, X)
    _pair(got, "train_linreg")
    return got


def _rings(student, probes, rng, X):
    (Xtr, Ytr), (Xva, Yva) = probes.ring_data(rng, 1400), probes.ring_data(rng, 600)
    got = student(probes.book_task, "train_rings", Xtr, Ytr, Xva, Yva, 100, X)
    _pair(got, "train_rings")
    return got


@pytest.mark.points(2)
def test_linear_regression_fresh_data(student, probes, rng):
    """trained on fresh data, the linear model predicts more fresh data from the book's distribution (MSE <= 5; the
    noise variance is 4)"""
    X, Y = probes.linreg_data(rng, 2000)
    out = _linreg(student, probes, rng, X)["outputs"]
    assert_true(type(out) is torch.Tensor and out.shape == Y.shape, "the model's net should map [N, 2] to [N, 1].")
    mse = float(((out.double() - Y.double()) ** 2).mean())
    assert_true(mse <= 5.0, f"the mean squared error on fresh data is {mse:.3f}; it should be at most 5.0.")


@pytest.mark.points(1)
def test_linear_regression_history(student, probes, rng):
    """train_linreg returns the history of its model's fit: epochs 1..n and positive learning rates"""
    got = _linreg(student, probes, rng, torch.zeros(1, 2))
    table = got["table"]
    n = len(table.get("epoch", []))
    assert_true(n >= 1, "the history train_linreg returns should have at least one row.")
    assert_equal(list(table["epoch"]), list(range(1, n + 1)), name="the epoch column of the history")
    assert_true(all(float(v) > 0 for v in table.get("lr", [0])), "the lr column should hold the learning rates used.")
    assert_equal(got["metric_types"], {"mae": "MeanAbsoluteError"}, name="the metrics of the model")


@pytest.mark.points(3)
def test_two_rings_fresh_data(student, probes, rng):
    """trained on fresh rings, the classifier is at least 88% accurate on more fresh data from the book's distribution"""
    X, Y = probes.ring_data(rng, 2000)
    out = _rings(student, probes, rng, X)["outputs"]
    assert_true(type(out) is torch.Tensor and out.shape == Y.shape, "the model's net should map [N, 2] to [N, 1].")
    acc = float(((out > 0).float() == Y).float().mean())
    assert_true(acc >= 0.88, f"the accuracy on fresh data (logit > 0 means the inner ring) is {acc:.3f}; it should be at least 0.88.")


@pytest.mark.points(1)
def test_two_rings_setup(student, probes, rng):
    """train_rings' model uses BinaryAccuracy under the name 'acc' and its history has one row per epoch"""
    got = _rings(student, probes, rng, torch.zeros(1, 2))
    assert_equal(got["metric_types"], {"acc": "BinaryAccuracy"}, name="the metrics of the model")
    n = len(got["table"].get("epoch", []))
    assert_true(n >= 1, "the history train_rings returns should have at least one row.")
    assert_equal(list(got["table"]["epoch"]), list(range(1, n + 1)), name="the epoch column of the history")
