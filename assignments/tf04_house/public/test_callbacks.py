import numpy as np
import pytest
import torch

from autograder.judge.checks import assert_close, assert_equal

_G = np.random.default_rng(11)
X = _G.normal(size=(16, 2)).astype("float32")
Y = (X @ np.array([[1.5], [-2.0]]) + 0.5).astype("float32")
XV = _G.normal(size=(8, 2)).astype("float32")
YV = (XV @ np.array([[1.5], [-2.0]]) + 0.5 + 0.3 * _G.normal(size=(8, 1))).astype("float32")
ZERO = [np.zeros((2, 1), dtype="float32"), np.zeros(1, dtype="float32")]


def _val_losses(epochs, lr):
    """val_loss after each epoch of full-batch gradient descent on the mean squared error, from zero weights."""
    x, y, xv, yv = (torch.from_numpy(a).double() for a in (X, Y, XV, YV))
    w, b, out = torch.zeros(2, 1, dtype=torch.float64), torch.zeros(1, dtype=torch.float64), []
    for _ in range(epochs):
        err = x @ w + b - y
        w, b = w - lr * 2 * x.T @ err / len(x), b - lr * 2 * err.mean(0)
        out.append(float(((xv @ w + b - yv) ** 2).mean()))
    return out


@pytest.mark.points(3)
@pytest.mark.hint("In on_epoch_end(epoch, logs), compare logs[self.monitor] with the threshold and set "
                  "self.model.stop_training = True and self.stopped_epoch = epoch when it is reached; reset "
                  "stopped_epoch to None in on_train_begin.")
def test_stops_after_the_epoch_that_reaches_it(student, probes):
    """StopAtThreshold('val_loss', t, 'min') stops fit after the first epoch whose val_loss <= t"""
    curve = _val_losses(10, 0.1)
    threshold = (curve[2] + curve[3]) / 2  # reached after the 4th epoch (index 3)
    got = student(probes.stop_fit, ZERO, X, Y, XV, YV, 10, 0.1, "val_loss", threshold, "min")
    assert_equal(got["attrs"], ["val_loss", threshold, "min", None],
                 name="[monitor, threshold, mode, stopped_epoch] of a new StopAtThreshold")
    assert_equal(got["first"]["epoch"], [0, 1, 2, 3], name="the epochs fit ran (history.epoch)")
    assert_close(got["first"]["history"]["val_loss"], curve[:4], rtol=1e-4, atol=1e-6, name="history.history['val_loss']")
    assert_equal(got["first"]["stopped_epoch"], 3, name="stopped_epoch")
    assert_equal(got["second"]["epoch"], [0, 1], name="the epochs of a second fit whose threshold is never reached")
    assert_equal(got["second"]["stopped_epoch"], None, name="stopped_epoch after that second fit")


@pytest.mark.points(1)
@pytest.mark.hint("The constructor checks the mode: only 'min' and 'max' are valid.")
def test_unknown_mode(student, probes):
    """StopAtThreshold(mode='average') raises ValueError"""
    assert_equal(student(probes.stop_bad_mode), "ValueError", name="what StopAtThreshold('loss', 0.0, 'average') raises")
