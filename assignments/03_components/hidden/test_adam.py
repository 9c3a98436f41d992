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
def test_adam_matches_torch(student, probes, rng, device):
    """Adam steps side by side with torch.optim.Adam: parameters, step, exp_avg and exp_avg_sq"""
    for cfg in CONFIGS:
        for dtype in (torch.float64, torch.float32):
            inits, grads = _problem(rng, dtype, n_steps=8)
            groups = [{"idx": [0, 1, 2, 3]}]
            got = student(probes.optimizer_run, "Adam", inits, groups, cfg, grads, device)
            assert_true(got["is_optimizer"], "Adam should be a subclass of torch.optim.Optimizer.")
            exp = _torch_run(torch.optim.Adam, inits, groups, cfg, grads)
            compare_histories(got["history"], exp, KEYS, f"Adam({cfg}) in {dtype}")


@pytest.mark.points(2)
def test_adam_param_groups(student, probes, rng):
    """Adam uses each param group's own hyper-parameters"""
    inits, grads = _problem(rng, torch.float64, n_steps=5)
    groups = [{"idx": [0]}, {"idx": [1, 3], "lr": 0.2, "betas": (0.7, 0.95)}, {"idx": [2], "weight_decay": 0.3, "eps": 1e-4}]
    defaults = {"lr": 0.01}
    got = student(probes.optimizer_run, "Adam", inits, groups, defaults, grads)
    exp = _torch_run(torch.optim.Adam, inits, groups, defaults, grads)
    compare_histories(got["history"], exp, KEYS, "Adam with three parameter groups")


@pytest.mark.points(2)
def test_adam_is_own_and_converges(student, probes, rng):
    """Adam is your own Optimizer subclass and minimises a quadratic through step(closure) like torch"""
    init = torch.randn(5, generator=rng, dtype=torch.float64)
    got = student(probes.optimizer_run, "Adam", [init], [{"idx": [0]}], {"lr": 0.1}, [[init.clone()]])
    assert_true(not any(c.startswith("torch.optim.adam.") for c in got["classes"]),
                "Adam must subclass torch.optim.Optimizer directly, not torch.optim.Adam.")
    assert_true(got["defines_step"], "your Adam class should define its own step().")
    target = torch.randn(5, generator=rng, dtype=torch.float64)
    got = student(probes.optimizer_closure, "Adam", init, target, 30, {"lr": 0.05})
    p = init.clone().requires_grad_(True)
    opt = torch.optim.Adam([p], lr=0.05)
    losses = []
    for _ in range(30):
        def closure():
            opt.zero_grad()
            loss = ((p - target) ** 2).sum()
            loss.backward()
            return loss
        losses.append(opt.step(closure).detach())
    assert_equal(len(got["losses"]), 30, name="the number of losses")
    assert_tensor(got["param"], p.detach(), name="the parameter after 30 closure steps")
