import pytest
import torch

from autograder.judge.checks import assert_close, assert_equal, assert_state_dict, assert_tensor


def _batchnorm_steps(F, weight, bias, batches, modes, ups):
    bn = torch.nn.BatchNorm1d(F, dtype=weight.dtype)
    with torch.no_grad():
        bn.weight.copy_(weight)
        bn.bias.copy_(bias)
    steps = []
    for x, mode, up in zip(batches, modes, ups):
        bn.train(mode == "train")
        x = x.clone().requires_grad_(True)
        bn.zero_grad()
        y = bn(x)
        (y * up).sum().backward()
        steps.append({"out": y.detach(), "x_grad": x.grad, "weight_grad": bn.weight.grad.clone(),
                      "bias_grad": bn.bias.grad.clone(),
                      "state": {k: v.detach().clone() for k, v in bn.state_dict().items()}})
    return steps


@pytest.mark.points(4)
def test_matches_batchnorm1d(student, probes, rng, device):
    """RunningNorm matches nn.BatchNorm1d over train/eval sequences (outputs, gradients, state_dict)"""
    for F, N, dtype in [(3, 8, torch.float64), (5, 17, torch.float32), (1, 4, torch.float64), (7, 33, torch.float32)]:
        weight = torch.randn(F, generator=rng, dtype=dtype)
        bias = torch.randn(F, generator=rng, dtype=dtype)
        modes = ["train", "train", "eval", "train", "eval"]
        batches = [torch.randn(N, F, generator=rng, dtype=dtype) * 3 + 2 for _ in modes]
        ups = [torch.randn(N, F, generator=rng, dtype=dtype) for _ in modes]
        got = student(probes.running_norm_run, F, weight, bias, batches, modes, ups, device)
        exp = _batchnorm_steps(F, weight, bias, batches, modes, ups)
        tol = {} if dtype == torch.float64 else {"rtol": 1e-4, "atol": 1e-4}
        for i, (g, e) in enumerate(zip(got["steps"], exp)):
            what = f"{modes[i]} batch {i + 1} ({dtype}, {F} features)"
            assert_tensor(g["out"], e["out"], name=f"the output for {what}", **tol)
            assert_tensor(g["x_grad"], e["x_grad"], name=f"the input gradient for {what}", **tol)
            assert_tensor(g["weight_grad"], e["weight_grad"], name=f"weight's gradient for {what}", **tol)
            assert_tensor(g["bias_grad"], e["bias_grad"], name=f"bias's gradient for {what}", **tol)
            assert_state_dict(g["state"], e["state"], name=f"the state_dict after {what}", **tol)


@pytest.mark.points(2)
def test_fresh_state_and_modes(student, probes):
    """a fresh RunningNorm has BatchNorm1d's state_dict and follows train()/eval()"""
    for F in (1, 6):
        got = student(probes.running_norm_fresh, F)
        exp = {k: v.clone() for k, v in torch.nn.BatchNorm1d(F).state_dict().items()}
        assert_state_dict(got["state"], exp, name=f"a fresh RunningNorm({F})'s state_dict")
        assert_equal(got["requires_grad"], {"weight": True, "bias": True}, name="requires_grad of the parameters")
    x = torch.ones(2, 2)
    got = student(probes.running_norm_run, 2, torch.ones(2), torch.zeros(2), [x], ["eval"], [x])
    assert_equal(got["training"], [True, False], name="self.training after train() and after eval()")


@pytest.mark.points(1)
def test_running_norm_on_meta(student, reference, probes):
    """on 'meta' (a stand-in GPU) RunningNorm runs in train and eval mode with its buffers moved by .to()"""
    for where in ("cpu", "meta"):  # the cpu values: no points for the devices of wrong results
        for dtype in ("float32", "float64"):
            got = student(probes.on_device, "running_norm", (6, 4), dtype, True, where)
            want = reference(probes.on_device, "running_norm", (6, 4), dtype, True, where)
            assert_close(got, want, name=f"RunningNorm's outputs, gradients and state_dict on {where!r} ({dtype})", rtol=1e-4, atol=1e-5)
