import numpy as np
import pytest

from autograder.judge.checks import assert_close, assert_equal


def _data(np_rng, val_sign, val_noise):
    w = np_rng.normal(size=(3, 1)) + np.sign(np_rng.normal(size=(3, 1)))
    x = np_rng.normal(size=(20, 3)).astype("float32")
    xv = np_rng.normal(size=(10, 3)).astype("float32")
    y = (x @ w + 0.1 * np_rng.normal(size=(20, 1))).astype("float32")
    yv = (val_sign * xv @ w + val_noise * np_rng.normal(size=(10, 1))).astype("float32")
    return x, y, xv, yv


def _val_losses(x, y, xv, yv, epochs, lr):
    """val_loss after each epoch of full-batch gradient descent on the mean squared error, from zero weights."""
    x, y, xv, yv = (a.astype("float64") for a in (x, y, xv, yv))
    w, b, out = np.zeros((x.shape[1], 1)), np.zeros(1), []
    for _ in range(epochs):
        err = x @ w + b - y
        w, b = w - lr * 2 * x.T @ err / len(x), b - lr * 2 * err.mean(0)
        out.append(float(((xv @ w + b - yv) ** 2).mean()))
    return out


def _run(student, reference, probes, np_rng, mode, val_sign, val_noise):
    x, y, xv, yv = _data(np_rng, val_sign, val_noise)
    curve = _val_losses(x, y, xv, yv, 8, 0.1)
    at = 1 + int(np_rng.integers(0, 4))
    threshold = (curve[at] + curve[at + 1]) / 2  # between two epochs' val_loss: reached after epoch index at + 1
    start = [np.zeros((3, 1), dtype="float32"), np.zeros(1, dtype="float32")]
    args = (probes.stop_fit, start, x, y, xv, yv, 8, 0.1, "val_loss", threshold, mode)
    got, want = student(*args), reference(*args)
    what = f"monitor 'val_loss', mode {mode!r}"
    assert_equal(got["attrs"], want["attrs"], name=f"[monitor, threshold, mode, stopped_epoch] of a new StopAtThreshold ({what})")
    for run in ("first", "second"):
        assert_equal(got[run]["epoch"], want[run]["epoch"], name=f"the epochs of the {run} fit ({what})")
        assert_equal(got[run]["stopped_epoch"], want[run]["stopped_epoch"], name=f"stopped_epoch after the {run} fit ({what})")
        assert_close(got[run]["history"], want[run]["history"], rtol=1e-4, atol=1e-6, name=f"the history of the {run} fit ({what})")


@pytest.mark.points(5)
def test_stops_on_val_loss(student, reference, probes, np_rng):
    """StopAtThreshold('val_loss', t, 'min') stops where the reference does; val_loss is far above the training loss"""
    _run(student, reference, probes, np_rng, "min", 1.0, 1.5)


@pytest.mark.points(3)
def test_mode_max(student, reference, probes, np_rng):
    """StopAtThreshold('val_loss', t, 'max') on a val_loss that grows (the validation targets have the other sign)"""
    _run(student, reference, probes, np_rng, "max", -1.0, 0.1)


@pytest.mark.points(3)
def test_value_exactly_at_threshold(student, reference, probes, np_rng):
    """a monitored value exactly equal to the threshold has reached it (<= in mode 'min', >= in mode 'max')"""
    x, y, _, _ = _data(np_rng, 1.0, 1.5)
    start = [np.zeros((3, 1), dtype="float32"), np.zeros(1, dtype="float32")]
    for mode, unreachable in (("min", float("-inf")), ("max", float("inf"))):
        lr = 0.1 if mode == "min" else -0.02  # gradient ascent: the loss grows epoch after epoch
        free = reference(probes.stop_exact, start, x, y, 8, lr, "loss", unreachable, mode)
        at = 2 + int(np_rng.integers(0, 4))
        threshold = free["history"]["loss"][at]  # the value logged after epoch `at`, exactly
        args = (probes.stop_exact, start, x, y, 8, lr, "loss", threshold, mode)
        got, want = student(*args), reference(*args)
        what = f"mode {mode!r}, a threshold equal to the loss of epoch {at}"
        assert_equal(got["epoch"], want["epoch"], name=f"the epochs of the fit ({what})")
        assert_equal(got["stopped_epoch"], want["stopped_epoch"], name=f"stopped_epoch ({what})")
