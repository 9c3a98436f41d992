import math

import pytest
import torch

from autograder.judge.checks import assert_tensor


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
