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


def _problem(rng, dtype, n_steps=6):
    shapes = [(3,), (2, 4), (5, 1), (1,)]
    inits = [torch.randn(s, generator=rng, dtype=dtype) for s in shapes]
    grads = []
    for t in range(n_steps):
        step = [torch.randn(s, generator=rng, dtype=dtype) for s in shapes]
        step[3] = None if t % 2 else step[3]  # a parameter that only sometimes has a gradient
        grads.append(step)
    return inits, grads


def _torch_run(cls, inits, groups, defaults, grads):
    params = [t.clone().requires_grad_(True) for t in inits]
    pg = [dict({k: v for k, v in g.items() if k != "idx"}, params=[params[i] for i in g["idx"]]) for g in groups]
    opt = cls(pg, **defaults)
    history = []
    for step in grads:
        for p, g in zip(params, step):
            p.grad = None if g is None else g.clone()
        opt.step()
        history.append({"params": [p.detach().clone() for p in params],
                        "state": [{k: v.detach().clone() if isinstance(v, torch.Tensor) else v for k, v in opt.state[p].items()}
                                  if p in opt.state else {} for p in params]})
    return history


def compare_histories(got, exp, keys, what):
    assert_true(len(got) == len(exp), f"{what}: expected {len(exp)} steps of history")
    for t, (g, e) in enumerate(zip(got, exp)):
        for i, (gp, ep) in enumerate(zip(g["params"], e["params"])):
            assert_tensor(gp, ep, name=f"parameter {i} after step {t + 1} ({what})")
        for i, (gs, es) in enumerate(zip(g["state"], e["state"])):
            for k in keys:
                if k not in es:
                    continue
                assert_true(isinstance(gs, dict) and k in gs, f"self.state[p] has no {k!r} after step {t + 1} ({what})")
                if k == "step":
                    got_step = gs[k].item() if type(gs[k]) is torch.Tensor else gs[k]
                    assert_true(isinstance(got_step, (int, float)) and float(got_step) == float(es[k]),
                                f"state['step'] of parameter {i} is {got_step!r} after step {t + 1}, expected {float(es[k]):g} ({what})")
                else:
                    assert_tensor(gs[k], es[k], name=f"state[{k!r}] of parameter {i} after step {t + 1} ({what})")


@pytest.mark.points(5)
def test_sgd_matches_torch(student, probes, rng, device):
    """SGD steps side by side with torch.optim.SGD: parameters and momentum buffers"""
    for cfg in CONFIGS:
        for dtype in (torch.float64, torch.float32):
            inits, grads = _problem(rng, dtype)
            groups = [{"idx": [0, 1, 2, 3]}]
            got = student(probes.optimizer_run, "SGD", inits, groups, cfg, grads, device)
            assert_true(got["is_optimizer"], "SGD should be a subclass of torch.optim.Optimizer.")
            exp = _torch_run(torch.optim.SGD, inits, groups, cfg, grads)
            compare_histories(got["history"], exp, ["momentum_buffer"], f"SGD({cfg}) in {dtype}")


@pytest.mark.points(2)
def test_sgd_param_groups(student, probes, rng):
    """SGD uses each param group's own hyper-parameters"""
    inits, grads = _problem(rng, torch.float64)
    groups = [{"idx": [0, 3]}, {"idx": [1], "lr": 0.3, "momentum": 0.5}, {"idx": [2], "weight_decay": 0.2, "dampening": 0.4}]
    defaults = {"lr": 0.05, "momentum": 0.9}
    got = student(probes.optimizer_run, "SGD", inits, groups, defaults, grads)
    exp = _torch_run(torch.optim.SGD, inits, groups, defaults, grads)
    compare_histories(got["history"], exp, ["momentum_buffer"], "SGD with three parameter groups")


@pytest.mark.points(1)
def test_sgd_is_own_and_closure(student, probes, rng):
    """SGD is your own Optimizer subclass (not torch.optim.SGD) and returns the closure's loss"""
    init = torch.randn(4, generator=rng, dtype=torch.float64)
    got = student(probes.optimizer_run, "SGD", [init], [{"idx": [0]}], {"lr": 0.1}, [[init.clone()]])
    assert_true(not any(c.startswith("torch.optim.sgd.") for c in got["classes"]),
                "SGD must subclass torch.optim.Optimizer directly, not torch.optim.SGD.")
    assert_true(got["defines_step"], "your SGD class should define its own step().")
    target = torch.randn(4, generator=rng, dtype=torch.float64)
    got = student(probes.optimizer_closure, "SGD", init, target, 3, {"lr": 0.1, "momentum": 0.5})
    p = init.clone().requires_grad_(True)
    opt = torch.optim.SGD([p], lr=0.1, momentum=0.5)
    losses = []
    for _ in range(3):
        def closure():
            opt.zero_grad()
            loss = ((p - target) ** 2).sum()
            loss.backward()
            return loss
        losses.append(opt.step(closure).detach())
    assert_equal(len(got["losses"]), 3, name="the number of losses")
    for i, (g, e) in enumerate(zip(got["losses"], losses)):
        assert_tensor(g, e, name=f"the loss returned by step(closure) number {i + 1}")
    assert_tensor(got["param"], p.detach(), name="the parameter after three closure steps")
