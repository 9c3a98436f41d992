import numpy as np
import pytest

from autograder.judge.checks import assert_close, assert_equal, assert_scalar

BATCHES = [
    [np.array([[1.0], [0.0], [1.0], [1.0]], "float32"), np.array([[0.9], [0.2], [0.4], [0.6]], "float32"), None],
    [np.array([[0.0]], "float32"), np.array([[0.7]], "float32"), None],
    [np.array([[0.0], [1.0]], "float32"), np.array([[0.1], [0.55]], "float32"), None],
]
# right predictions per batch: 3 of 4, 0 of 1, 2 of 2


@pytest.mark.points(3)
@pytest.mark.hint("Keep the number of right predictions and the number of predictions in two add_weight variables; "
                  "result() divides the totals (a mean of batch means weighs a batch of 1 like a batch of 4).")
def test_accumulates_over_batches(student, probes):
    """ThresholdAccuracy over batches of 4, 1 and 2 predictions: the result after each"""
    got = student(probes.metric_run, 0.5, BATCHES)
    assert_equal(got["variables"], ["total", "count"], name="the metric's state variables (names)")
    assert_scalar(got["fresh"], 0.0, name="result() of a fresh metric", rtol=1e-6)
    assert_close(got["results"], [3 / 4, 3 / 5, 5 / 7], name="result() after each of the three batches", rtol=1e-6)


@pytest.mark.points(2)
@pytest.mark.hint("reset_state() must set every state variable back to its initial value (assign 0.0 to total and count).")
def test_reset_state(student, probes):
    """after reset_state(): a result of 0, and one more batch counts alone"""
    got = student(probes.metric_run, 0.5, BATCHES)
    assert_scalar(got["after_reset"], 0.0, name="result() right after reset_state()", rtol=1e-6)
    assert_close(got["state_after_reset"], [0.0, 0.0], name="total and count right after reset_state()")
    assert_scalar(got["after_reset_and_one_batch"], 1.0, name="result() after reset_state() and one batch (2 of 2 right)")


@pytest.mark.points(1)
@pytest.mark.hint("Update the state with assign_add on the variables (a Python number attribute does not change inside "
                  "a tf.function); multiply each prediction's 0/1 by its sample weight, and add the weights to count.")
def test_sample_weights_inside_a_tf_function(student, probes):
    """update_state under tf.function, with sample weights and threshold 0.3"""
    batches = [[b[0], b[1], np.arange(1, len(b[0]) + 1, dtype="float32")] for b in BATCHES]
    got = student(probes.metric_run, 0.3, batches, True)
    # threshold 0.3: right are [1, 1, 1, 1] (w 1..4), [0] (w 1), [1, 1] (w 1, 2)
    assert_close(got["results"], [10 / 10, 10 / 11, 13 / 14], name="result() after each batch (weighted, in a tf.function)",
                 rtol=1e-6)
