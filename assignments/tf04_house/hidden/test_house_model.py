import numpy as np
import pytest

from autograder.judge.checks import assert_close, assert_equal


def _mlp_weights(np_rng, d, h):
    return [(np_rng.normal(size=(d, h)) * 0.6).astype("float32"), (np_rng.normal(size=h) * 0.1).astype("float32"),
            (np_rng.normal(size=(h, 1)) * 0.6).astype("float32"), (np_rng.normal(size=1) * 0.1).astype("float32")]


def _regression(np_rng, n, d):
    x = np_rng.normal(size=(n, d)).astype("float32")
    y = (x @ np_rng.normal(size=(d, 1)) + 0.3 * np_rng.normal(size=(n, 1))).astype("float32")
    return x, y


def _binary(np_rng, n, d):
    x = np_rng.normal(size=(n, d)).astype("float32")
    y = (x @ np_rng.normal(size=(d, 1)) + 0.5 * np_rng.normal(size=(n, 1)) > 0).astype("float32")
    return x, y


def _same_fit(got, want):
    """house_fit's History (its keys, then its values) and trained weights, as the reference's."""
    assert_equal(sorted(got["history"]), sorted(want["history"]), name="the keys of history.history")
    assert_close(got["history"], want["history"], rtol=1e-4, atol=1e-5, name="history.history")
    assert_close(got["weights"], want["weights"], rtol=1e-4, atol=1e-5, name="the weights after fit")


@pytest.mark.points(7)
def test_fit_regression_with_dropout(student, reference, probes, np_rng):
    """fit a 3-5-1 net with Dropout(0.3) by SGD with validation data: the History and the weights agree with the reference"""
    weights = _mlp_weights(np_rng, 3, 5)
    x, y = _regression(np_rng, 24, 3)
    xv, yv = _regression(np_rng, 12, 3)
    args = (probes.house_fit, weights, x, y, xv, yv, 6, 3, 0.05, "regression", 0.3)
    _same_fit(student(*args), reference(*args))


@pytest.mark.points(6)
def test_fit_binary_classifier(student, reference, probes, np_rng):
    """fit a 2-4-1 classifier on logits (BinaryCrossentropy(from_logits=True), BinaryAccuracy): History and weights"""
    weights = _mlp_weights(np_rng, 2, 4)
    x, y = _binary(np_rng, 32, 2)
    xv, yv = _binary(np_rng, 16, 2)
    args = (probes.house_fit, weights, x, y, xv, yv, 8, 2, 0.2, "binary")
    _same_fit(student(*args), reference(*args))


@pytest.mark.points(6)
def test_evaluate_with_dropout(student, reference, probes, np_rng):
    """evaluate a net with Dropout(0.5) twice: the same values as the reference both times, no weight changed"""
    weights = _mlp_weights(np_rng, 4, 6)
    x, y = _regression(np_rng, 20, 4)
    args = (probes.house_evaluate, weights, x, y, 5, "regression", 0.5)
    got, want = student(*args), reference(*args)
    assert_close(got["first"], want["first"], rtol=1e-5, atol=1e-6, name="model.evaluate(x, y, return_dict=True)")
    assert_close(got["again"], want["again"], rtol=1e-5, atol=1e-6, name="a second model.evaluate(x, y)")
    assert_close(got["weights"], weights, rtol=0, atol=0, name="the weights after evaluate")


@pytest.mark.points(5)
def test_predict(student, reference, probes, np_rng):
    """predict and model(x) of a classifier with Dropout(0.5) and of a regressor agree with the reference"""
    for task in ("binary", "regression"):
        weights = _mlp_weights(np_rng, 3, 4)
        x = (np_rng.normal(size=(20, 3)) * 2).astype("float32")
        args = (probes.house_predict, weights, x, task, 0.5)
        got, want = student(*args), reference(*args)
        assert_close(got, want, rtol=1e-5, atol=1e-6, name=f"predict and model(x) of a {task} model")


@pytest.mark.points(3)
def test_loss_metric_is_the_mean_of_step_losses(student, reference, probes, np_rng):
    """fit one epoch of 5 batches whose last is smaller: the loss logged after each batch is the mean of the
    step losses so far (update_state(loss)), as the reference's"""
    weights = _mlp_weights(np_rng, 3, 4)
    x, y = _regression(np_rng, 4 * 6 + int(np_rng.integers(1, 4)), 3)
    y[-1] += 5.0  # a large error in the small last batch: weighting it by its size shows
    args = (probes.house_loss_metric, weights, x, y, 6, 0.05)
    got, want = student(*args), reference(*args)
    assert_close(got["batch_losses"], want["batch_losses"], rtol=1e-4, atol=1e-5,
                 name=f"the loss in the logs after each batch ({len(x)} samples in batches of 6)")
    _same_fit(got, want)
