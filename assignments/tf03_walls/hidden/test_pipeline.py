import numpy as np
import pytest

from autograder.judge.checks import assert_close


def data(np_rng):
    n = int(np_rng.integers(15, 41))
    X = np.concatenate([np.arange(n)[:, None], np_rng.normal(size=(n, 2))], axis=1)
    return X, np_rng.integers(0, 2, size=n), int(np_rng.integers(3, 9))


@pytest.mark.points(5)
def test_shuffled_like_reference(student, reference, probes, np_rng):
    """make_dataset with a random seed on random data: the same batches, epoch after epoch, as the reference's"""
    X, y, batch = data(np_rng)
    seed, global_seed = int(np_rng.integers(0, 10_000)), int(np_rng.integers(0, 10_000))
    got = student(probes.pipeline_run, X, y, batch, True, seed, global_seed)
    want = reference(probes.pipeline_run, X, y, batch, True, seed, global_seed)
    for key, what in [("epochs", "two epochs"), ("again", "a second dataset with the same seed"),
                      ("other_seed", "a dataset with the next seed")]:
        assert_close(got[key], want[key], name=f"the batches of {what} ({len(X)} rows, batches of {batch})")


@pytest.mark.points(3)
def test_unshuffled_like_reference(student, reference, probes, np_rng):
    """make_dataset(shuffle=False) on random data: the batches in order"""
    X, y, batch = data(np_rng)
    got = student(probes.pipeline_run, X, y, batch, False, 0)
    want = reference(probes.pipeline_run, X, y, batch, False, 0)
    assert_close(got["epochs"], want["epochs"], name=f"the batches without shuffle ({len(X)} rows, batches of {batch})")
