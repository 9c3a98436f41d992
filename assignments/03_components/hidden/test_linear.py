import math

import pytest
import torch

from autograder.judge.checks import assert_close, assert_equal, assert_grads, assert_tensor, assert_true


def _torch_linear(w, b, x, up):
    m = torch.nn.Linear(w.shape[1], w.shape[0], bias=b is not None, dtype=w.dtype)
    with torch.no_grad():
        m.weight.copy_(w)
        if b is not None:
            m.bias.copy_(b)
    x = x.clone().requires_grad_(True)
    y = m(x)
    (y * up).sum().backward()
    return {"out": y.detach(), "x_grad": x.grad, "weight_grad": m.weight.grad,
            "bias_grad": None if b is None else m.bias.grad}


@pytest.mark.points(4)
def test_linear_matches_nn_linear(student, probes, rng, device):
    """Linear matches nn.Linear (outputs and gradients) on batched, non-contiguous, float32/float64 inputs"""
    cases = [((5,), 3, 4, True), ((7,), 4, 4, True), ((2, 3), 5, 2, False), ((4,), 1, 6, True), ((2, 3, 2), 3, 3, True)]
    for lead, in_f, out_f, has_bias in cases:
        for dtype in (torch.float64, torch.float32):
            for layout in ("c", "t"):
                w = torch.randn(out_f, in_f, generator=rng, dtype=dtype)
                b = torch.randn(out_f, generator=rng, dtype=dtype) if has_bias else None
                x = torch.randn(*lead, in_f, generator=rng, dtype=dtype)
                up = torch.randn(*lead, out_f, generator=rng, dtype=dtype)
                got = student(probes.linear_run, w, b, x, up, layout, device)
                exp = _torch_linear(w, b, x, up)
                what = f"Linear({in_f}, {out_f}, bias={has_bias}) on a {dtype} input of shape {(*lead, in_f)}"
                assert_tensor(got["out"], exp["out"], name=f"the output of {what}", rtol=1e-5, atol=1e-6)
                assert_tensor(got["x_grad"], exp["x_grad"], name=f"the input gradient of {what}")
                assert_tensor(got["weight_grad"], exp["weight_grad"], name=f"weight's gradient of {what}")
                if has_bias:
                    assert_tensor(got["bias_grad"], exp["bias_grad"], name=f"bias's gradient of {what}")
                else:
                    assert_true(got["bias_grad"] is None, f"{what}: with bias=False there is no bias")
                assert_equal(got["device"], "cuda:0" if device == "cuda" else "cpu", name="the output's device")


@pytest.mark.points(1)
def test_linear_init_seeding(student, probes, rng):
    """under the same torch.manual_seed, Linear starts with exactly nn.Linear's numbers"""
    for in_f, out_f, bias in [(3, 5, True), (10, 1, True), (1, 7, False), (16, 16, True)]:
        seed = int(torch.randint(0, 2**31 - 1, (1,), generator=rng))
        got = student(probes.linear_init, in_f, out_f, bias, seed)
        torch.manual_seed(seed)
        ref = torch.nn.Linear(in_f, out_f, bias=bias)
        assert_equal(got["names"], ["weight", "bias"] if bias else ["weight"], name="the parameter names")
        assert_true(all(got["is_param"]), "the weight and bias must be nn.Parameter objects")
        assert_tensor(got["weight"], ref.weight.detach(), name=f"the initial weight of Linear({in_f}, {out_f})", rtol=1e-5, atol=1e-6)
        if bias:
            assert_tensor(got["bias"], ref.bias.detach(), name=f"the initial bias of Linear({in_f}, {out_f})", rtol=1e-5, atol=1e-6)
        else:
            assert_true(got["bias"] is None, "with bias=False, self.bias should be None")


@pytest.mark.points(1)
def test_linear_init_distribution(student, probes, rng):
    """the initial weights and biases follow U(-1/sqrt(in), 1/sqrt(in))"""
    for in_f, out_f in [(64, 200), (9, 500)]:
        seed = int(torch.randint(0, 2**31 - 1, (1,), generator=rng))
        got = student(probes.linear_init, in_f, out_f, True, seed)
        bound = 1 / math.sqrt(in_f)
        for name in ("weight", "bias"):
            v = got[name].double()
            assert_true(bool(v.abs().max() <= bound + 1e-6), f"the initial {name} of Linear({in_f}, {out_f}) leaves the bound 1/sqrt(in_features)")
            n = v.numel()
            assert_true(abs(float(v.mean())) < 5 * bound / math.sqrt(3 * n), f"the initial {name} of Linear({in_f}, {out_f}) is not centred on 0")
            assert_true(abs(float(v.var()) - bound ** 2 / 3) < 6 * bound ** 2 / math.sqrt(5 * n) + 1e-12,
                        f"the initial {name} of Linear({in_f}, {out_f}) does not have the variance of U(-1/sqrt(in), 1/sqrt(in))")


@pytest.mark.points(1)
def test_relu(student, probes, rng, device):
    """ReLU matches torch.relu (values and gradient) and has no parameters"""
    for shape in [(7,), (3, 4), (2, 3, 5)]:
        for dtype in (torch.float32, torch.float64):
            x = torch.randn(shape, generator=rng, dtype=dtype)
            x.view(-1)[0] = 0.0
            up = torch.randn(shape, generator=rng, dtype=dtype)
            got = student(probes.relu_run, x, up, device)
            xr = x.clone().requires_grad_(True)
            torch.relu(xr).mul(up).sum().backward()
            assert_tensor(got["out"], torch.relu(x), name=f"ReLU of a {dtype} tensor of shape {shape}")
            assert_tensor(got["x_grad"], xr.grad, name=f"ReLU's gradient for a {dtype} tensor of shape {shape} whose first "
                          "element is exactly 0 (torch.relu's gradient there is 0; clamp(min=0) and max(x, 0) pass 1 or 0.5)")
            assert_equal(got["n_params"], 0, name="ReLU's number of parameters")


@pytest.mark.points(3)
def test_sequential_matches_nn_sequential(student, probes, rng):
    """Sequential of Linear/ReLU loaded from nn.Sequential's state_dict: outputs and gradients by name"""
    for sizes in ([2, 4, 8, 1], [3, 5], [4, 3, 3, 2, 6]):
        for dtype in (torch.float64, torch.float32):
            layers = []
            for i in range(len(sizes) - 1):
                if i:
                    layers.append(torch.nn.ReLU())
                layers.append(torch.nn.Linear(sizes[i], sizes[i + 1]))
            ref = torch.nn.Sequential(*layers).to(dtype)
            with torch.no_grad():
                for p in ref.parameters():
                    p.copy_(torch.randn(p.shape, generator=rng, dtype=dtype))
            state = {k: v.detach().clone() for k, v in ref.state_dict().items()}
            x = torch.randn(6, sizes[0], generator=rng, dtype=dtype)
            up = torch.randn(6, sizes[-1], generator=rng, dtype=dtype)
            got = student(probes.sequential_run, sizes, state, x, up, str(dtype).removeprefix("torch."))
            xr = x.clone().requires_grad_(True)
            (ref(xr) * up).sum().backward()
            assert_equal(got["names"], list(state), name="the parameter names")
            tol = {"rtol": 1e-5, "atol": 1e-6} if dtype == torch.float64 else {}
            assert_tensor(got["out"], ref(x).detach(), name=f"the output of a {sizes} {dtype} network", **tol)
            assert_tensor(got["x_grad"], xr.grad, name=f"the input gradient of a {sizes} {dtype} network")
            assert_grads(got["grads"], {n: p.grad for n, p in ref.named_parameters()})


@pytest.mark.points(1)
def test_linear_relu_on_meta(student, reference, probes):
    """on 'meta' (a stand-in GPU) Linear (with and without bias) and ReLU make nothing on the CPU"""
    for component, bias in (("linear", True), ("linear", False), ("relu", True)):
        for dtype in ("float32", "float64"):
            got = student(probes.on_device, component, (5, 4), dtype, bias)
            want = reference(probes.on_device, component, (5, 4), dtype, bias)
            assert_close(got, want, name=f"{component} (bias={bias}) on 'meta' ({dtype}): devices, shapes, dtypes of outputs and gradients")
