import math

import pytest
import torch

from autograder.judge.checks import advise, assert_tensor


@pytest.mark.points(1)
@pytest.mark.hint("BCE = mean(-y*log(p) - (1-y)*log(1-p)), predictions first, labels second.")
def test_bce_known_values(student, probes):
    """bce_loss on two predictions"""
    got = student(probes.bce, torch.tensor([0.5, 0.9]), torch.tensor([1.0, 0.0]))
    assert_tensor(got["loss"], torch.tensor((math.log(2) + math.log(10)) / 2), name="bce_loss([0.5, 0.9], [1, 0])")


@pytest.mark.points(1)
@pytest.mark.hint("Clamp the predictions into [eps, 1 - eps] before taking logs.")
def test_bce_clamps(student, probes):
    """bce_loss stays finite for predictions of exactly 0 and 1"""
    got = student(probes.bce, torch.tensor([0.0, 1.0], dtype=torch.float64), torch.tensor([1.0, 1.0], dtype=torch.float64))
    want = (-math.log(1e-7) - math.log(1 - 1e-7)) / 2
    assert_tensor(got["loss"], torch.tensor(want, dtype=torch.float64), name="bce_loss([0, 1], [1, 1]) in float64")


@pytest.mark.points(0)
def test_advice_bce_by_hand(student, probes):
    """advice: bce_loss is written by hand"""
    got = student(probes.bce, torch.tensor([0.5, 0.9]), torch.tensor([1.0, 0.0]))
    used = sorted(set(got["calls"]) & {"binary_cross_entropy", "binary_cross_entropy_with_logits", "cross_entropy", "nll_loss", "bce"})
    advise(not used, f"bce_loss calls {', '.join(used)}; write the formula yourself (clamp, log, mean).")
