import numpy as np
import pytest

from autograder.judge.checks import assert_equal, assert_true


@pytest.mark.points(6)
def test_reaches_least_squares(student, probes, np_rng):
    """train_linear_regression on fresh data (random true weights and bias) ends near the least-squares fit"""
    w_true, b_true = np_rng.uniform(-4, 4, size=(2, 1)), float(np_rng.uniform(-10, 10))
    X = np_rng.uniform(-5.0, 5.0, size=(400, 2))
    y = X @ w_true + b_true + np_rng.normal(0.0, 2.0, size=(400, 1))
    X, y = X.astype("float32"), y.astype("float32")
    fit = np.linalg.lstsq(np.c_[X, np.ones(len(X))].astype("float64"), y.astype("float64"), rcond=None)[0].ravel()
    got = student(probes.linear_regression_run, X, y, {"seed": int(np_rng.integers(0, 1000))})
    shapes = [list(w.shape) if hasattr(w, "shape") else None for w in got["weights"]]
    assert_equal(shapes, [[2, 1], [1]], name="the shapes of the Dense layer's weights (kernel, bias)")
    w, b = got["weights"][0].ravel().astype("float64"), float(got["weights"][1][0])
    assert_true(bool(np.all(np.abs(w - fit[:2]) < 0.4)), f"the weights ({w[0]:.3f}, {w[1]:.3f}) are not close to the "
                                                         "least-squares fit of the data")
    assert_true(abs(b - fit[2]) < 0.3, f"the bias {b:.3f} is not close to the least-squares fit of the data")
