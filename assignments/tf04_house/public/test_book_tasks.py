import numpy as np
import pytest

from autograder.judge.checks import assert_true


def _predictions(got, n, what):
    assert_true(got["is_house"] is True, f"{what} should return a HouseModel.")
    p = got["predict"]
    assert_true(type(p) is np.ndarray and p.shape == (n, 1), f"its predict(x) should be an array of shape ({n}, 1).")
    return p.astype("float64")


@pytest.mark.points(3)
@pytest.mark.hint("A HouseModel around Dense(1), compiled with the mean squared error and an optimizer whose "
                  "learning rate suits data of this scale, fit for enough epochs to approach y = 2x1 - 3x2 + 10.")
def test_linear_regression(student, probes):
    """train_linreg on 300 of the book's points predicts 1000 fresh ones with a mean squared error <= 5 (noise: 4)"""
    x, y = probes.linreg_data(np.random.default_rng(0), 300)
    x_test, y_test = probes.linreg_data(np.random.default_rng(1), 1000)
    p = _predictions(student(probes.book_task, "train_linreg", x, y, x_test), 1000, "train_linreg")
    mse = float(((p - y_test) ** 2).mean())
    assert_true(mse <= 5.0, f"the mean squared error on fresh data is {mse:.3f}; it should be at most 5.0.")


@pytest.mark.points(3)
@pytest.mark.hint("The 2-4-8-1 DNN ends without an activation (logits) and trains with "
                  "BinaryCrossentropy(from_logits=True); output_activation='sigmoid' makes predict return probabilities.")
def test_two_rings(student, probes):
    """train_rings on 300 + 300 points: predict gives probabilities, >= 85% accurate on 2000 fresh points"""
    x, y = probes.rings_data(np.random.default_rng(0), 300)
    x_test, y_test = probes.rings_data(np.random.default_rng(1), 1000)
    p = _predictions(student(probes.book_task, "train_rings", x, y, x_test), 2000, "train_rings")
    assert_true(bool(((p >= 0) & (p <= 1)).all()), "predict should give probabilities (between 0 and 1), not logits.")
    acc = float(((p > 0.5) == (y_test > 0.5)).mean())
    assert_true(acc >= 0.85, f"the accuracy on fresh data (probability > 0.5 means the inner ring) is {acc:.3f}; "
                             "it should be at least 0.85.")
