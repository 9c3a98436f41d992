import pytest
import torch

from autograder.judge.checks import assert_equal, assert_scalar, assert_tensor, assert_true


@pytest.mark.points(5)
@pytest.mark.hint("w is an nn.Parameter of shape [1, 2], b one of shape [1, 1] starting at zero; forward is "
                  "x @ w.T + b; the training loop records loss.item() before each optimizer step.")
def test_linear_regression_small(student, probes):
    """LinearRegression's parameters and forward; train_full_batch returns per-step losses"""
    X = torch.tensor([[1.0, 2.0], [-1.0, 0.5], [0.0, 0.0]])
    w = torch.tensor([[2.0, -3.0]])
    b = torch.tensor([[10.0]])
    got = student(probes.linear_model, X, w, b)
    assert_equal(list(got["params"]), ["w", "b"], name="the names of LinearRegression's parameters")
    assert_equal(got["params"]["w"]["shape"], [1, 2], name="the shape of w")
    assert_equal(got["params"]["b"]["shape"], [1, 1], name="the shape of b")
    assert_tensor(got["init_b"], torch.zeros(1, 1), name="b right after LinearRegression()")
    assert_tensor(got["out"].get("value"), torch.tensor([[6.0], [6.5], [10.0]]), name="LinearRegression()(X)")

    y = torch.tensor([[6.0], [7.0], [9.0]])
    got = student(probes.train_regression, X, y, w, b, "cpu", 2, 0.1)
    hist = got["history"]
    assert_true(isinstance(hist, (list, tuple)) and len(hist) == 2,
                "train_full_batch(..., epochs=2) should return a list of 2 losses.")
    assert_scalar(hist[0], (0.0 + 0.25 + 1.0) / 3, name="the first loss (before any step)", rtol=1e-5, kind=float)
