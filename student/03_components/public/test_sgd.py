import pytest
import torch

from autograder.judge.checks import assert_tensor, assert_true


@pytest.mark.points(2)
@pytest.mark.hint("Weight decay is added to the gradient first; the momentum buffer starts as a copy of that gradient, "
                  "then becomes momentum * buf + (1 - dampening) * g.")
def test_sgd_two_steps(student, probes):
    """two SGD steps with momentum, dampening and weight decay on known gradients"""
    p0 = torch.tensor([1.0, -2.0])
    grads = [[torch.tensor([0.5, 1.0])], [torch.tensor([-1.0, 2.0])]]
    hyper = {"lr": 0.1, "momentum": 0.9, "dampening": 0.5, "weight_decay": 0.1}
    got = student(probes.optimizer_run, "SGD", [p0], [{"idx": [0]}], hyper, grads)
    assert_true(got["is_optimizer"], "SGD should be a subclass of torch.optim.Optimizer.")
    s1, s2 = got["history"]
    # step 1: g = [0.6, 0.8], buf = g, p = [0.94, -2.08]
    assert_tensor(s1["params"][0], torch.tensor([0.94, -2.08]), name="the parameter after one step")
    assert_tensor(s1["state"][0].get("momentum_buffer"), torch.tensor([0.6, 0.8]), name="the momentum buffer after one step")
    # step 2: g = [-0.906, 1.792], buf = 0.9 * [0.6, 0.8] + 0.5 * g = [0.087, 1.616]
    assert_tensor(s2["state"][0].get("momentum_buffer"), torch.tensor([0.087, 1.616]), name="the momentum buffer after two steps")
    assert_tensor(s2["params"][0], torch.tensor([0.9313, -2.2416]), name="the parameter after two steps")
