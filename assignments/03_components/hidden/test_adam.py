import pytest
import torch

from autograder.judge.checks import assert_equal, assert_tensor, assert_true

CONFIGS = [
    {},
    {"lr": 0.01},
    {"lr": 0.05, "betas": (0.8, 0.99)},
    {"lr": 0.02, "weight_decay": 0.1},
    {"lr": 0.1, "betas": (0.5, 0.9), "eps": 1e-3},
]
KEYS = ["step", "exp_avg", "exp_avg_sq"]


@pytest.mark.points(4)
def test_adam_matches_torch(student, reference, probes, rng, device, optimizer_race):
    """Adam steps side by side with torch.optim.Adam: parameters, step, exp_avg and exp_avg_sq"""
    for cfg in CONFIGS:
        for dtype in (torch.float64, torch.float32):
            inits, grads = optimizer_race.problem(rng, dtype, n_steps=8)
            groups = [{"idx": [0, 1, 2, 3]}]
            got = student(probes.optimizer_run, "Adam", inits, groups, cfg, grads, device)
            assert_true(got["is_optimizer"], "Adam should be a subclass of torch.optim.Optimizer.")
            exp = reference(probes.torch_optimizer_run, "Adam", inits, groups, cfg, grads)
            optimizer_race.compare_histories(got["history"], exp, KEYS, f"Adam({cfg}) in {dtype}")


@pytest.mark.points(2)
def test_adam_param_groups(student, reference, probes, rng, optimizer_race):
    """Adam uses each param group's own hyper-parameters"""
    inits, grads = optimizer_race.problem(rng, torch.float64, n_steps=5)
    groups = [{"idx": [0]}, {"idx": [1, 3], "lr": 0.2, "betas": (0.7, 0.95)}, {"idx": [2], "weight_decay": 0.3, "eps": 1e-4}]
    defaults = {"lr": 0.01}
    got = student(probes.optimizer_run, "Adam", inits, groups, defaults, grads)
    exp = reference(probes.torch_optimizer_run, "Adam", inits, groups, defaults, grads)
    optimizer_race.compare_histories(got["history"], exp, KEYS, "Adam with three parameter groups")


@pytest.mark.points(2)
def test_adam_is_own_and_converges(student, reference, probes, rng, optimizer_race):
    """Adam minimises a quadratic through step(closure) like torch"""
    init = torch.randn(5, generator=rng, dtype=torch.float64)
    got = student(probes.optimizer_run, "Adam", [init], [{"idx": [0]}], {"lr": 0.1}, [[init.clone()]])
    target = torch.randn(5, generator=rng, dtype=torch.float64)
    got = student(probes.optimizer_closure, "Adam", init, target, 30, {"lr": 0.05})
    param = reference(probes.torch_optimizer_closure, "Adam", init, target, 30, {"lr": 0.05})["param"]
    assert_equal(len(got["losses"]), 30, name="the number of losses")
    assert_tensor(got["param"], param, name="the parameter after 30 closure steps")


@pytest.mark.points(1)
def test_adam_state_on_the_parameters_device(student, probes, optimizer_race):
    """Adam keeps its state on its parameters' device ('meta', a stand-in GPU: state made on the CPU raises there)"""
    optimizer_race.state_on_device(student, probes, "Adam", {"lr": 0.01}, ["exp_avg", "exp_avg_sq"])
