import pytest
import torch
import torch.nn.functional as F

from autograder.judge.checks import assert_close, assert_tensor, assert_true, tolerance

SHAPES = [(5,), (3, 4), (2, 3, 5), (1,)]


def _torch_loss(fn, a, b, reduction, upstream=None):
    a = a.clone().requires_grad_(True)
    b = b.clone().requires_grad_(True)
    v = fn(a, b, reduction=reduction)
    if upstream is not None:
        (v * upstream).sum().backward()
    else:
        v.sum().backward() if v.dim() else v.backward()
    return {"value": v.detach(), "grad_a": a.grad, "grad_b": b.grad}


def _compare(got, exp, what, grad_b=True, value_atol=None):
    assert_tensor(got["value"], exp["value"], name=f"the value of {what}", atol=value_atol)
    assert_tensor(got["grad_a"], exp["grad_a"], name=f"the gradient of {what} w.r.t. its first argument")
    if grad_b:
        assert_tensor(got["grad_b"], exp["grad_b"], name=f"the gradient of {what} w.r.t. the target")


def _matches_torch(student, probes, name, fn, a, b, up, device, where):
    """The student's `name` against torch's `fn` on (a, b) for every reduction, then with reduction 'none' and
    the upstream gradient `up`."""
    for reduction in ("mean", "sum", "none"):
        got = student(probes.loss_run, name, a, b, reduction, device)
        _compare(got, _torch_loss(fn, a, b, reduction), f"{name}(reduction={reduction!r}) on {where}")
    got = student(probes.loss_run_upstream, name, a, b, up, device)
    _compare(got, _torch_loss(fn, a, b, "none", up), f"{name}(reduction='none') on {where}")


@pytest.mark.points(3)
def test_mse_matches_torch(student, probes, rng, device):
    """mse_loss matches F.mse_loss (values and both gradients) for every reduction, shape and dtype"""
    for shape in SHAPES:
        for dtype in (torch.float32, torch.float64):
            a = torch.randn(shape, generator=rng, dtype=dtype) * 3
            b = torch.randn(shape, generator=rng, dtype=dtype)
            up = torch.randn(shape, generator=rng, dtype=dtype)
            _matches_torch(student, probes, "mse_loss", F.mse_loss, a, b, up, device, f"{dtype} {shape}")


@pytest.mark.points(2)
def test_bce_matches_torch(student, probes, rng, device):
    """bce_with_logits matches F.binary_cross_entropy_with_logits on random logits and soft targets"""
    for shape in SHAPES:
        for dtype in (torch.float32, torch.float64):
            z = torch.randn(shape, generator=rng, dtype=dtype) * 4
            y = torch.rand(shape, generator=rng, dtype=dtype)
            up = torch.randn(shape, generator=rng, dtype=dtype)
            _matches_torch(student, probes, "bce_with_logits", F.binary_cross_entropy_with_logits, z, y, up, device,
                           f"{dtype} {shape}")


@pytest.mark.points(3)
def test_bce_extreme_logits(student, probes, rng, device):
    """bce_with_logits is finite and matches torch for logits of ±100, ±1000 and beyond"""
    for dtype in (torch.float32, torch.float64):
        for scale in (100.0, 1000.0, 1e4):
            n = 12
            sign = torch.where(torch.rand(n, generator=rng) < 0.5, -1.0, 1.0).to(dtype)
            z = sign * scale * (1 + torch.rand(n, generator=rng, dtype=dtype) * 0.1)
            y = (torch.rand(n, generator=rng) < 0.5).to(dtype)
            y[:3] = torch.rand(3, generator=rng, dtype=dtype)
            for reduction in ("none", "mean"):
                got = student(probes.loss_run, "bce_with_logits", z, y, reduction, device)
                v = got["value"]
                assert_true(type(v) is torch.Tensor and bool(torch.isfinite(v).all()),
                            f"bce_with_logits gives inf or nan for {dtype} logits of magnitude about {scale:g}.")
                g = got["grad_a"]
                assert_true(type(g) is torch.Tensor and bool(torch.isfinite(g).all()),
                            f"the gradient of bce_with_logits is inf or nan for {dtype} logits of magnitude about {scale:g}.")
                exp = _torch_loss(F.binary_cross_entropy_with_logits, z, y, reduction)
                # the loss is a difference of terms as large as the logits (max(z, 0) - z * y), so valid formulas
                # round differently by up to 1.28 eps * scale (3000 draws, the master's against torch's): more
                # than float32's default atol at 1000 (a course secret failed the master on it).  8 eps * scale
                atol = max(tolerance(dtype)[1], 8 * torch.finfo(dtype).eps * scale)
                _compare(got, exp, f"bce_with_logits on {dtype} logits of magnitude about {scale:g}", grad_b=False,
                         value_atol=atol)


@pytest.mark.points(1)
def test_losses_on_meta(student, reference, probes):
    """on 'meta' (a stand-in GPU) mse_loss and bce_with_logits make no constant on the CPU"""
    for where in ("cpu", "meta"):  # the cpu values: no points for the devices of wrong results
        for name in ("mse_loss", "bce_with_logits"):
            for dtype in ("float32", "float64"):
                got = student(probes.on_device, name, (3, 4), dtype, True, where)
                want = reference(probes.on_device, name, (3, 4), dtype, True, where)
                assert_close(got, want, name=f"{name} on {where!r} ({dtype}): the value and gradient", rtol=1e-4, atol=1e-5)
