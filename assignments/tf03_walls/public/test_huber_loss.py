import numpy as np
import pytest

from autograder.judge.checks import assert_close

Y_TRUE = np.array([[0.0, 0.0], [1.0, 1.0], [2.0, -1.0]], dtype="float32")
Y_PRED = np.array([[0.5, 3.0], [1.0, -1.0], [2.25, -4.0]], dtype="float32")


def huber(y_true, y_pred, delta):
    """Keras's Huber loss per sample (mean over the last axis), in numpy."""
    e = np.abs(y_pred.astype("float64") - y_true)
    per_element = np.where(e <= delta, 0.5 * e ** 2, delta * e - 0.5 * delta ** 2)
    return per_element.mean(axis=-1)


@pytest.mark.points(2)
@pytest.mark.hint("call returns one loss per sample: 0.5 * e**2 where |e| <= delta, else delta * |e| - 0.5 * delta**2, "
                  "averaged over the last axis (not over the batch: the base class reduces).")
def test_per_sample_losses(student, probes):
    """Huber(reduction="none") gives one loss per sample, for delta 1 and 2"""
    for delta in (1.0, 2.0):
        got = student(probes.huber_run, Y_TRUE, Y_PRED, delta, "none")
        assert_close(got, huber(Y_TRUE, Y_PRED, delta).astype("float32"),
                     name=f'Huber(delta={delta:g}, reduction="none") on a [3, 2] batch')


@pytest.mark.points(3)
@pytest.mark.hint("Leave the reduction to keras.losses.Loss: with sample weights it multiplies each sample's loss by its "
                  "weight, then sums (\"sum\") or divides that sum by the number of samples (the default).")
def test_reductions_and_sample_weights(student, probes):
    """the default reduction, "sum", and both with sample weights"""
    per_sample = huber(Y_TRUE, Y_PRED, 1.0)
    w = np.array([2.0, 0.5, 0.0], dtype="float32")
    cases = [("sum_over_batch_size", None, per_sample.mean()), ("sum", None, per_sample.sum()),
             ("sum_over_batch_size", w, (per_sample * w).sum() / 3), ("sum", w, (per_sample * w).sum())]
    for reduction, sw, want in cases:
        got = student(probes.huber_run, Y_TRUE, Y_PRED, 1.0, reduction, sw)
        weights = "" if sw is None else f", sample_weight={sw.tolist()}"
        assert_close(got, np.array(want, dtype="float32"), name=f'Huber(reduction="{reduction}") on a [3, 2] batch{weights}')
