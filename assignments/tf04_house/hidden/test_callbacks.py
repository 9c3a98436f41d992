import numpy as np
import pytest

from autograder.judge.checks import assert_close, assert_equal


def _data(np_rng, val_noise):
    w = np_rng.normal(size=(3, 1))
    x = np_rng.normal(size=(20, 3)).astype("float32")
    xv = np_rng.normal(size=(10, 3)).astype("float32")
    y = (x @ w + 0.1 * np_rng.normal(size=(20, 1))).astype("float32")
    yv = (xv @ w + val_noise * np_rng.normal(size=(10, 1))).astype("float32")
    start = [(0.1 * np_rng.normal(size=(3, 1))).astype("float32"), np.zeros(1, dtype="float32")]
    return start, x, y, xv, yv


def _compare(got, want, what):
    assert_equal(got["attrs"], want["attrs"], name=f"[monitor, threshold, mode, stopped_epoch] of a new StopAtThreshold ({what})")
    for run in ("first", "second"):
        assert_equal(got[run]["epoch"], want[run]["epoch"], name=f"the epochs of the {run} fit ({what})")
        assert_equal(got[run]["stopped_epoch"], want[run]["stopped_epoch"], name=f"stopped_epoch after the {run} fit ({what})")
        assert_close(got[run]["history"], want[run]["history"], rtol=1e-4, atol=1e-6, name=f"the history of the {run} fit ({what})")


def _run(student, reference, probes, np_rng, monitor, mode, val_noise, at):
    start, x, y, xv, yv = _data(np_rng, val_noise)
    never = float("-inf") if mode == "min" else float("inf")
    curve = reference(probes.stop_fit, start, x, y, xv, yv, 8, 0.1, monitor, never, mode)["first"]["history"][monitor]
    threshold = (curve[at] + curve[at + 1]) / 2
    args = (probes.stop_fit, start, x, y, xv, yv, 8, 0.1, monitor, threshold, mode)
    _compare(student(*args), reference(*args), f"monitor {monitor!r}, mode {mode!r}")


@pytest.mark.points(5)
def test_stops_on_val_loss(student, reference, probes, np_rng):
    """StopAtThreshold('val_loss', t, 'min') stops where the reference does (t between two epochs' values)"""
    _run(student, reference, probes, np_rng, "val_loss", "min", 1.0, 2 + int(np_rng.integers(0, 3)))


@pytest.mark.points(3)
def test_monitors_what_it_is_given(student, reference, probes, np_rng):
    """StopAtThreshold('loss', t, 'min') watches the training loss, not val_loss (which is far larger here)"""
    _run(student, reference, probes, np_rng, "loss", "min", 3.0, 1 + int(np_rng.integers(0, 3)))


@pytest.mark.points(3)
def test_mode_max(student, reference, probes, np_rng):
    """StopAtThreshold('val_loss', t, 'max') on a val_loss that grows (the validation targets have the other sign)"""
    start, x, y, xv, yv = _data(np_rng, 0.1)
    yv = -yv
    never = float("inf")
    curve = reference(probes.stop_fit, start, x, y, xv, yv, 8, 0.1, "val_loss", never, "max")["first"]["history"]["val_loss"]
    at = 1 + int(np_rng.integers(0, 3))
    threshold = (curve[at] + curve[at + 1]) / 2
    args = (probes.stop_fit, start, x, y, xv, yv, 8, 0.1, "val_loss", threshold, "max")
    _compare(student(*args), reference(*args), "monitor 'val_loss', mode 'max'")
