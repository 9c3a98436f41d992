import numpy as np
import pytest

from autograder.judge.checks import assert_close, assert_equal


def _data(np_rng, n):
    """n samples: the training part follows one line, the validation part (the last quarter) a line part-way
    from the start to it, so val_loss has its minimum after a few epochs and rises again."""
    n_val = n // 4
    w = np_rng.normal(size=(3, 1)) + np.sign(np_rng.normal(size=(3, 1)))
    x = np_rng.normal(size=(n, 3)).astype("float32")
    alpha = np_rng.uniform(0.35, 0.6)
    y = np.concatenate([x[:-n_val] @ w + 0.05 * np_rng.normal(size=(n - n_val, 1)), x[-n_val:] @ (alpha * w)])
    start = [np.zeros((3, 1), dtype="float32"), np.zeros(1, dtype="float32")]
    return start, x, y.astype("float32")


def _run(student, reference, probes, np_rng, n, patience):
    start, x, y = _data(np_rng, n)
    args = (probes.train_house_run, start, x, y, 25, patience, 0.08)
    return student(*args), reference(*args)


@pytest.mark.points(5)
def test_history(student, reference, probes, np_rng):
    """the History (loss, mae, val_loss, val_mae per epoch; the epochs that ran) agrees with the reference"""
    for n, patience in ((40, 2), (48, 3)):
        got, want = _run(student, reference, probes, np_rng, n, patience)
        assert_equal(got["type"], want["type"], name="the type of what train_house returns")
        assert_equal(got["epoch"], want["epoch"], name=f"history.epoch (patience {patience})")
        assert_close(got["history"], want["history"], rtol=1e-4, atol=1e-6, name=f"history.history (patience {patience})")
        assert_close(got["per_epoch"], want["per_epoch"], rtol=1e-4, atol=1e-6,
                     name=f"the weights after each epoch, as the extra callback saw them (patience {patience})")


@pytest.mark.points(6)
def test_best_weights_restored(student, reference, probes, np_rng):
    """the model ends with the weights of the best epoch, as the reference's"""
    for n, patience in ((40, 1), (44, 2)):
        got, want = _run(student, reference, probes, np_rng, n, patience)
        assert_close(got["final"], want["final"], rtol=1e-4, atol=1e-6,
                     name=f"the weights after train_house (patience {patience})")


@pytest.mark.points(6)
def test_checkpoint_of_the_best_epoch(student, reference, probes, np_rng):
    """the checkpoint file holds the weights of the best epoch, as the reference's"""
    for n, patience in ((40, 2), (52, 1)):
        got, want = _run(student, reference, probes, np_rng, n, patience)
        assert_close(got["ckpt"], want["ckpt"], rtol=1e-4, atol=1e-6,
                     name=f"the weights in the checkpoint file (patience {patience})")
