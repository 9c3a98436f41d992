import numpy as np
import pytest

from autograder.judge.checks import assert_close, assert_equal


def batches(np_rng, weighted):
    out = []
    for n in [int(np_rng.integers(5, 12)), 1, int(np_rng.integers(2, 5))]:
        y_true = (np_rng.uniform(size=(n, 1)) < 0.5).astype("float32")
        y_pred = np_rng.uniform(size=(n, 1)).astype("float32")
        out.append([y_true, y_pred, np_rng.uniform(0.1, 2, size=(n,)).astype("float32") if weighted else None])
    return out


@pytest.mark.points(4)
def test_metric_random(student, reference, probes, np_rng):
    """ThresholdAccuracy over random batches of different sizes, with and without sample weights, eager and in a
    tf.function: the result after each batch"""
    for k, threshold in enumerate([0.5, 0.3, 0.7]):
        data, graph = batches(np_rng, weighted=k > 0), k == 2
        got = student(probes.metric_run, threshold, data, graph)
        want = reference(probes.metric_run, threshold, data, graph)
        what = f"ThresholdAccuracy({threshold:g})" + (" with sample weights" if k else "") + (" in a tf.function" if graph else "")
        assert_equal(got["variables"], want["variables"], name=f"the state variables of {what}")
        assert_close(got["results"], want["results"], name=f"result() of {what} after each of 3 batches", rtol=1e-5)


@pytest.mark.points(3)
def test_reset_random(student, reference, probes, np_rng):
    """ThresholdAccuracy after reset_state(), and after one more batch"""
    for graph in (False, True):
        data = batches(np_rng, weighted=graph)
        got = student(probes.metric_run, 0.5, data, graph)
        want = reference(probes.metric_run, 0.5, data, graph)
        for key in ("after_reset", "state_after_reset", "after_reset_and_one_batch"):
            assert_close(got[key], want[key], name=f"ThresholdAccuracy's {key.replace('_', ' ')}", rtol=1e-5)


@pytest.mark.points(1)
def test_prediction_at_the_threshold(student, reference, probes, np_rng):
    """a prediction exactly equal to the threshold is not above it: it predicts label 0"""
    for threshold in (0.5, 0.25):
        n = int(np_rng.integers(4, 9))
        y_true = (np_rng.uniform(size=(n, 1)) < 0.5).astype("float32")
        y_pred = np.full((n, 1), threshold, dtype="float32")
        y_pred[0, 0] = 0.875  # one prediction clearly above
        data = [[y_true, y_pred, None]]
        got = student(probes.metric_run, threshold, data, False)
        want = reference(probes.metric_run, threshold, data, False)
        assert_close(got["results"], want["results"], rtol=1e-6,
                     name=f"ThresholdAccuracy({threshold:g}) with predictions equal to {threshold:g} (y_pred > threshold)")
