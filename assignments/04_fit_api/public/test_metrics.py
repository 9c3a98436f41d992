import pytest
import torch

from autograder.judge.checks import assert_close


def _t(v):
    return torch.tensor(v, dtype=torch.float32)


@pytest.mark.points(2)
@pytest.mark.hint("A metric accumulates counts over batches (compute = all correct / all samples since reset); "
                  "the network outputs logits, so the decision threshold is on the logit, not on a probability.")
def test_binary_accuracy_known(student, probes):
    """BinaryAccuracy on three small batches with a reset"""
    batches = [
        (_t([[2.0], [-1.0], [0.3], [0.0]]), _t([[1.0], [0.0], [0.0], [0.0]])),  # 3 of 4 right
        (_t([[-0.2]]), _t([[1.0]])),                                            # 0 of 1 right
        (_t([0.4, -3.0]), _t([1.0, 0.0])),                                      # after a reset: 2 of 2
    ]
    got = student(probes.metric_run, "BinaryAccuracy", batches, reset_before=[2])
    assert_close(got, {"forward": [_t(0.75), _t(0.0), _t(1.0)], "compute": [_t(0.75), _t(0.6), _t(1.0)]},
                 name="BinaryAccuracy results (per batch, and compute() after each batch)")


@pytest.mark.points(2)
@pytest.mark.hint("Keep running sums (total absolute error, number of elements) and divide only in compute(); "
                  "reset() clears them.")
def test_mean_absolute_error_known(student, probes):
    """MeanAbsoluteError on three small batches with a reset"""
    batches = [
        (_t([[1.0, 2.0], [3.0, 4.0]]), _t([[0.0, 0.0], [0.0, 0.0]])),  # errors 1+2+3+4 over 4 elements
        (_t([[-1.0]]), _t([[1.0]])),                                  # error 2 over 1 element
        (_t([0.5, 0.5]), _t([0.0, 1.5])),                             # after a reset: (0.5 + 1) / 2
    ]
    got = student(probes.metric_run, "MeanAbsoluteError", batches, reset_before=[2])
    assert_close(got, {"forward": [_t(2.5), _t(2.0), _t(0.75)], "compute": [_t(2.5), _t(2.4), _t(0.75)]},
                 name="MeanAbsoluteError results (per batch, and compute() after each batch)")
