import pytest
import torch

from autograder.judge.checks import assert_equal, assert_tensor, assert_true

CONFIGS = [
    {"lr": 0.1},
    {"lr": 0.05, "momentum": 0.9},
    {"lr": 0.02, "momentum": 0.8, "dampening": 0.3},
    {"lr": 0.1, "weight_decay": 0.05},
    {"lr": 0.03, "momentum": 0.95, "dampening": 0.1, "weight_decay": 0.01},
]


@pytest.mark.points(4)
def test_sgd_matches_torch(student, reference, probes, rng, device, optimizer_race):
    """SGD steps side by side with torch.optim.SGD: parameters and momentum buffers"""
    for cfg in CONFIGS:
        for dtype in (torch.float64, torch.float32):
            inits, grads = optimizer_race.problem(rng, dtype)
            groups = [{"idx": [0, 1, 2, 3]}]
            got = student(probes.optimizer_run, "SGD", inits, groups, cfg, grads, device)
            assert_true(got["is_optimizer"], "SGD should be a subclass of torch.optim.Optimizer.")
            exp = reference(probes.torch_optimizer_run, "SGD", inits, groups, cfg, grads)
            optimizer_race.compare_histories(got["history"], exp, ["momentum_buffer"], f"SGD({cfg}) in {dtype}")


@pytest.mark.points(2)
def test_sgd_param_groups(student, reference, probes, rng, optimizer_race):
    """SGD uses each param group's own hyper-parameters"""
    inits, grads = optimizer_race.problem(rng, torch.float64)
    groups = [{"idx": [0, 3]}, {"idx": [1], "lr": 0.3, "momentum": 0.5}, {"idx": [2], "weight_decay": 0.2, "dampening": 0.4}]
    defaults = {"lr": 0.05, "momentum": 0.9}
    got = student(probes.optimizer_run, "SGD", inits, groups, defaults, grads)
    exp = reference(probes.torch_optimizer_run, "SGD", inits, groups, defaults, grads)
    optimizer_race.compare_histories(got["history"], exp, ["momentum_buffer"], "SGD with three parameter groups")


@pytest.mark.points(1)
def test_sgd_is_own_and_closure(student, reference, probes, rng, optimizer_race):
    """SGD.step(closure) returns the closure's loss, like torch's"""
    init = torch.randn(4, generator=rng, dtype=torch.float64)
    got = student(probes.optimizer_run, "SGD", [init], [{"idx": [0]}], {"lr": 0.1}, [[init.clone()]])
    target = torch.randn(4, generator=rng, dtype=torch.float64)
    got = student(probes.optimizer_closure, "SGD", init, target, 3, {"lr": 0.1, "momentum": 0.5})
    exp = reference(probes.torch_optimizer_closure, "SGD", init, target, 3, {"lr": 0.1, "momentum": 0.5})
    param, losses = exp["param"], exp["losses"]
    assert_equal(len(got["losses"]), 3, name="the number of losses")
    for i, (g, e) in enumerate(zip(got["losses"], losses)):
        assert_tensor(g, e, name=f"the loss returned by step(closure) number {i + 1}")
    assert_tensor(got["param"], param, name="the parameter after three closure steps")


@pytest.mark.points(1)
def test_sgd_state_on_the_parameters_device(student, probes, optimizer_race):
    """SGD keeps its state on its parameters' device ('meta', a stand-in GPU: state made on the CPU raises there)"""
    optimizer_race.state_on_device(student, probes, "SGD", {"lr": 0.1, "momentum": 0.9}, ["momentum_buffer"])
