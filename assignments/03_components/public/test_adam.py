import pytest
import torch

from autograder.judge.checks import advise, assert_scalar, assert_tensor, assert_true


@pytest.mark.points(3)
@pytest.mark.hint("Adam's moving averages start at zero, so divide them by (1 - beta**t) before the update (bias correction).")
def test_adam_two_steps(student, probes):
    """two Adam steps on known gradients: parameters and state"""
    p0 = torch.tensor([1.0, -2.0], dtype=torch.float64)
    grads = [[torch.tensor([0.5, -1.0], dtype=torch.float64)], [torch.tensor([0.1, 2.0], dtype=torch.float64)]]
    got = student(probes.optimizer_run, "Adam", [p0], [{"idx": [0]}], {"lr": 0.1}, grads)
    assert_true(got["is_optimizer"], "Adam should be a subclass of torch.optim.Optimizer.")
    s1, s2 = got["history"]
    # the first step moves each coordinate by lr against the sign of its gradient
    assert_tensor(s1["params"][0], torch.tensor([0.9, -1.9], dtype=torch.float64), name="the parameter after one step", rtol=1e-6)
    state = s2["state"][0]
    assert_true("step" in state and "exp_avg" in state and "exp_avg_sq" in state,
                "the optimizer state should hold 'step', 'exp_avg' and 'exp_avg_sq'.")
    assert_scalar(float(state["step"]), 2.0, name="state['step'] after two steps")
    assert_tensor(state["exp_avg"], torch.tensor([0.055, 0.11], dtype=torch.float64), name="exp_avg after two steps")
    assert_tensor(state["exp_avg_sq"], torch.tensor([0.00025975, 0.004999], dtype=torch.float64), name="exp_avg_sq after two steps", rtol=1e-6)
    assert_tensor(s2["params"][0], torch.tensor([0.8196959063846518, -1.9366103534720749], dtype=torch.float64), name="the parameter after two steps", rtol=1e-7)


@pytest.mark.points(0)
def test_advice_own_optimizers(student, probes):
    """advice: SGD and Adam are your own Optimizer subclasses with their own step()"""
    init = torch.ones(3, dtype=torch.float64)
    for name in ("SGD", "Adam"):
        got = student(probes.optimizer_run, name, [init], [{"idx": [0]}], {"lr": 0.1}, [[init.clone()]])
        advise(not any(c.startswith(f"torch.optim.{name.lower()}.") for c in got["classes"]) and got["defines_step"],
               f"your {name} should subclass torch.optim.Optimizer directly and define its own step(), not reuse torch.optim.{name}'s.")
