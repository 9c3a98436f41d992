import numpy as np
import pytest

from autograder.judge.checks import assert_true


def _predictions(got, n, what):
    assert_true(got["is_house"] is True, f"{what} should return a HouseModel.")
    p = got["predict"]
    assert_true(type(p) is np.ndarray and p.shape == (n, 1), f"its predict(x) should be an array of shape ({n}, 1).")
    return p.astype("float64")


@pytest.mark.points(9)
def test_linear_regression_fresh_data(student, probes, np_rng):
    """train_linreg on 300 fresh points from the book's distribution predicts 2000 others with MSE <= 5 (noise: 4)"""
    x, y = probes.linreg_data(np_rng, 300)
    x_test, y_test = probes.linreg_data(np_rng, 2000)
    p = _predictions(student(probes.book_task, "train_linreg", x, y, x_test), 2000, "train_linreg")
    mse = float(((p - y_test) ** 2).mean())
    assert_true(mse <= 5.0, f"the mean squared error on fresh data is {mse:.3f}; it should be at most 5.0.")


@pytest.mark.points(10)
def test_two_rings_fresh_data(student, probes, np_rng):
    """train_rings on 300 + 300 fresh points: probabilities, >= 85% accurate on 2000 others (a second draw if not)"""
    accs = []
    for attempt in range(2):  # a tiny net sometimes starts stuck: a failing run gets one more, independent draw
        x, y = probes.rings_data(np_rng, 300)
        x_test, y_test = probes.rings_data(np_rng, 1000)
        p = _predictions(student(probes.book_task, "train_rings", x, y, x_test), 2000, "train_rings")
        assert_true(bool(((p >= 0) & (p <= 1)).all()), "predict should give probabilities (between 0 and 1), not logits.")
        accs.append(float(((p > 0.5) == (y_test > 0.5)).mean()))
        if accs[-1] >= 0.85:
            return
    assert_true(False, f"the accuracy on fresh data is {accs[0]:.3f}, then {accs[1]:.3f} on another draw; "
                       "it should be at least 0.85.")
