import pytest
import torch

from autograder.judge.checks import assert_tensor


@pytest.mark.points(2)
@pytest.mark.hint("Each iteration: optimizer.zero_grad(), compute f(x), backward(), optimizer.step(); record x "
                  "after the step; x is a float32 scalar tensor.")
def test_sgd_first_steps(student, probes):
    """three SGD steps from x = 0 with lr = 0.1"""
    got = student(probes.minimize, 0.0, 0.1, 3, "sgd")
    assert_tensor(got, torch.tensor([0.2, 0.36, 0.488]), name="the SGD path from 0 with lr 0.1")
