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


def _check(student, reference, probes, np_rng, n, patience, batches=1, once=False):
    """`once`: the run is the submission's one run of its kind (`student.once`), read by every test that checks it."""
    start, x, y = _data(np_rng, n)
    args = (probes.train_house_run, start, x, y, 25, patience, 0.08 / batches, 0.25, batches)
    got, want = (student.once(*args), reference.once(*args)) if once else (student(*args), reference(*args))
    what = f"{n} samples, patience {patience}" + (f", {batches} batches an epoch" if batches > 1 else "")
    assert_equal(got["type"], want["type"], name="the type of what train_house returns")
    assert_equal(got["epoch"], want["epoch"], name=f"history.epoch ({what})")
    assert_close(got["history"], want["history"], rtol=1e-4, atol=1e-6, name=f"history.history ({what})")
    assert_close(got["per_epoch"], want["per_epoch"], rtol=1e-4, atol=1e-6,
                 name=f"the weights after each epoch, as the extra callback saw them ({what})")
    assert_close(got["final"], want["final"], rtol=1e-4, atol=1e-6, name=f"the weights after train_house ({what})")
    assert_close(got["ckpt"], want["ckpt"], rtol=1e-4, atol=1e-6, name=f"the weights in the checkpoint file ({what})")
    return got, want


@pytest.mark.points(6)
def test_history_best_weights_and_checkpoint(student, reference, probes, shared_rng):
    """40 samples, patience 2: the History, the weights it ends with (the best epoch's) and the checkpoint's (the
    best epoch's) agree with the reference"""
    _check(student, reference, probes, shared_rng("train_house"), 40, 2, once=True)


@pytest.mark.points(6)
def test_patience_one(student, reference, probes, np_rng):
    """52 samples, patience 1: History, final weights and checkpoint agree with the reference"""
    _check(student, reference, probes, np_rng, 52, 1)


@pytest.mark.points(3)
def test_shuffled_batches(student, reference, probes, np_rng):
    """48 samples in 4 batches an epoch, patience 2: the training samples shuffled every epoch (as the reference's,
    under the grader's seed), History, weights and checkpoint as the reference's"""
    _check(student, reference, probes, np_rng, 48, 2, batches=4)


@pytest.mark.points(2)
def test_extra_callbacks_run_last(student, reference, probes, shared_rng):
    """the extra callback runs after EarlyStopping and ModelCheckpoint: at each epoch's end it sees their decisions
    (stop, the file written), and at the end the restored best weights (the run of the first test, read again)"""
    got, want = _check(student, reference, probes, shared_rng("train_house"), 40, 2, once=True)
    assert_equal(got["seen_by_extra"], want["seen_by_extra"],
                 name="[stop_training, checkpoint file exists] as the extra callback sees them at each epoch's end")
    assert_close(got["extra_at_end"], want["extra_at_end"], rtol=1e-4, atol=1e-6,
                 name="the weights the extra callback sees at the end of training")
