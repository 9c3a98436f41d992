"""The optimizer exercises' shared harness: the same parameters and gradients stepped through the
student's optimizer (in the student's worker) and torch's (`probes.torch_optimizer_run`, asked of the reference),
compared step by step; and where the optimizer keeps its state when the parameters are on another device."""
from types import SimpleNamespace

import pytest
import torch

from autograder.judge.checks import assert_equal, assert_tensor, assert_true


def _problem(rng, dtype, n_steps=6):
    shapes = [(3,), (2, 4), (5, 1), (1,)]
    inits = [torch.randn(s, generator=rng, dtype=dtype) for s in shapes]
    grads = []
    for t in range(n_steps):
        step = [torch.randn(s, generator=rng, dtype=dtype) for s in shapes]
        step[3] = None if t % 2 else step[3]  # a parameter that only sometimes has a gradient
        grads.append(step)
    return inits, grads


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


def state_on_device(student, probes, name, hyper, keys):
    """`name`(params, **hyper) stepped on 'meta' parameters (a stand-in GPU: state made on the CPU raises there),
    in float32 and float64: each state tensor in `keys` is on the parameters' device, with their shape and dtype."""
    shapes = [(3,), (2, 4)]
    for dtype in ("float32", "float64"):
        got = student(probes.optimizer_on_meta, name, shapes, dtype, hyper)
        for i, (shape, param, state) in enumerate(zip(shapes, got["params"], got["state"])):
            assert_equal(param["device"], "meta", name=f"the device of parameter {i} after {name}.step() on 'meta'")
            for k in keys:
                assert_true(k in state, f"{name}'s state[p] has no tensor {k!r} after three steps of {dtype} parameters on 'meta'")
                assert_true(state[k]["device"] == "meta",
                            f"{name}'s state[{k!r}] of parameter {i} is on {state[k]['device']}, expected the parameter's "
                            "device meta: create state with torch.zeros_like(p) (or device=p.device), not torch.zeros(shape).")
                assert_equal((state[k]["shape"], state[k]["dtype"]), (list(shape), getattr(torch, dtype)),
                             name=f"the shape and dtype of {name}'s state[{k!r}] of parameter {i}")


@pytest.fixture
def optimizer_race() -> SimpleNamespace:
    return SimpleNamespace(problem=_problem, compare_histories=compare_histories, state_on_device=state_on_device)
