import numpy as np
import pytest
import torch

from autograder.judge.checks import assert_close, assert_equal, assert_true

# 40 samples: the first 30 follow one line, the last 10 (the validation split) a line half-way from zero to it,
# so gradient descent from zero weights passes the validation optimum after a few epochs and val_loss rises again.
_G = np.random.default_rng(7)
X = _G.normal(size=(40, 2)).astype("float32")
_W = np.array([[2.0], [-1.0]])
Y = np.concatenate([X[:30] @ _W + 0.5, X[30:] @ (_W / 2) + 0.25]).astype("float32")
ZERO = [np.zeros((2, 1), dtype="float32"), np.zeros(1, dtype="float32")]
LR, PATIENCE = 0.1, 2


def _descent(epochs):
    """Weights and val_loss after each epoch of full-batch gradient descent on the first 30 samples."""
    x, y = torch.from_numpy(X).double(), torch.from_numpy(Y).double()
    w, b = torch.zeros(2, 1, dtype=torch.float64), torch.zeros(1, dtype=torch.float64)
    weights, val = [], []
    for _ in range(epochs):
        err = x[:30] @ w + b - y[:30]
        w, b = w - LR * 2 * x[:30].T @ err / 30, b - LR * 2 * err.mean(0)
        weights.append([w.float().numpy(), b.float().numpy()])
        val.append(float(((x[30:] @ w + b - y[30:]) ** 2).mean()))
    return weights, val


def _expected():
    weights, val = _descent(20)
    best = int(np.argmin(val))
    return weights, val, best


@pytest.mark.points(8)
@pytest.mark.hint("validation_split takes the LAST val_fraction of the samples, in order, before any shuffling (do not "
                  "reorder x and y yourself); EarlyStopping(monitor='val_loss', patience=patience, "
                  "restore_best_weights=True) stops `patience` epochs after the best one and gives the model the best "
                  "epoch's weights back; ModelCheckpoint(ckpt_path, monitor='val_loss', save_best_only=True, "
                  "save_weights_only=True) writes the weights only when val_loss improves.")
def test_validation_split_early_stopping_and_checkpoint(student, probes, credit):
    """on 40 samples whose last 10 validate: val_loss, when fit stops, the weights it ends with and the checkpoint's"""
    weights, val, best = _expected()
    got = student(probes.train_house_run, ZERO, X, Y, 20, PATIENCE, LR)
    n = len(got["history"].get("val_loss", []))
    assert_true(n >= 1, "history.history should have a 'val_loss' column with one value per epoch.")
    assert_close(got["history"]["val_loss"], val[:n], rtol=1e-4, atol=1e-6,
                 name="history.history['val_loss'] (measured on the last 10 samples)")
    credit.award(2 / 8)
    assert_equal(got["epoch"], list(range(best + PATIENCE + 1)), name="history.epoch (the epochs that ran)")
    assert_close(got["final"], weights[best], rtol=1e-4, atol=1e-6,
                 name=f"the weights after train_house (those of the best epoch, epoch index {best})")
    credit.award(5 / 8)
    assert_true(got["ckpt"] is not None, "train_house wrote no file at ckpt_path.")
    assert_close(got["ckpt"], weights[best], rtol=1e-4, atol=1e-6,
                 name=f"the weights in the checkpoint (those of the best epoch, epoch index {best})")
    credit.award(1.0)
