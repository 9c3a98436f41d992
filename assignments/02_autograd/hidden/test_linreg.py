import pytest
import torch

from autograder.judge.checks import assert_close, assert_equal, assert_scalar, assert_tensor, assert_true


@pytest.mark.points(2)
def test_linreg_loss_random(student, reference, probes, rng):
    """linreg_loss and its gradient agree with the reference on random batches"""
    for n in (1, 7, 50):
        for dtype in (torch.float32, torch.float64):
            p = torch.randn(n, 1, generator=rng, dtype=dtype) * 3
            y = torch.randn(n, 1, generator=rng, dtype=dtype) * 3
            assert_close(student(probes.linreg_loss, p, y), reference(probes.linreg_loss, p, y),
                         name=f"linreg_loss for a {dtype} batch of {n}")


@pytest.mark.points(3)
def test_linreg_steps_random(student, reference, probes, rng):
    """three linreg_step calls agree with the reference; w and b stay leaves and their gradients are cleared"""
    for n in (5, 32):
        for dtype in (torch.float32, torch.float64):
            X = torch.rand(n, 2, generator=rng, dtype=dtype) * 10 - 5
            Y = X @ torch.tensor([[2.0], [-3.0]], dtype=dtype) + 10 + torch.randn(n, 1, generator=rng, dtype=dtype)
            w = torch.randn(2, 1, generator=rng, dtype=dtype)
            b = torch.randn(1, 1, generator=rng, dtype=dtype)
            lr = float(torch.empty(()).uniform_(0.005, 0.03, generator=rng))
            got = student(probes.linreg_steps, X, Y, w, b, lr, 3)
            want = reference(probes.linreg_steps, X, Y, w, b, lr, 3)
            what = f"{dtype} batch of {n}"
            assert_close(got["losses"], want["losses"], name=f"the losses of three steps on a {what}", rtol=1e-5)
            assert_tensor(got["w"], want["w"], name=f"w after three steps on a {what}", rtol=1e-5, atol=1e-6)
            assert_tensor(got["b"], want["b"], name=f"b after three steps on a {what}", rtol=1e-5, atol=1e-6)
            assert_equal(got["is_leaf"], [True, True], name="whether w and b are still leaf tensors")
            assert_equal(got["requires_grad"], [True, True], name="whether w and b still require grad")
            for k in ("w_grad", "b_grad"):
                g = got[k]
                assert_true(g is None or (type(g) is torch.Tensor and not bool(g.abs().sum())),
                            f"{k[0]}.grad should be zero (or None) after a step.")


@pytest.mark.points(2)
def test_fit_linreg_matches_reference(student, reference, probes, rng, seed):
    """two epochs of fit_linreg on the book's data (float64) agree with the reference"""
    X, Y = probes.make_linreg_data(400, seed % 10_000, torch.float64)
    w = torch.randn(2, 1, generator=rng, dtype=torch.float64)
    b = torch.zeros(1, 1, dtype=torch.float64)
    args = (X, Y, w, b, 0.01, 2, 10, seed % 997)
    got, want = student(probes.linreg_fit, *args), reference(probes.linreg_fit, *args)
    assert_close(got["history"], want["history"], name="the per-epoch mean losses", rtol=1e-6)
    assert_tensor(got["w"], want["w"], name="w after two epochs", rtol=1e-6, atol=1e-8)
    assert_tensor(got["b"], want["b"], name="b after two epochs", rtol=1e-6, atol=1e-8)


@pytest.mark.points(2)
def test_fit_linreg_recovers_parameters(student, probes, rng, seed):
    """fit_linreg on the book's data (float32) recovers w = (2, -3) and b = 10"""
    X, Y = probes.make_linreg_data(400, seed % 10_000 + 1, torch.float32)
    w = torch.randn(2, 1, generator=rng)
    got = student(probes.linreg_fit, X, Y, w, torch.zeros(1, 1), 0.01, 20, 10, seed % 991)
    assert_tensor(got["w"], torch.tensor([[2.0], [-3.0]]), name="the fitted w", rtol=0.0, atol=0.2)
    assert_tensor(got["b"], torch.tensor([[10.0]]), name="the fitted b", rtol=0.0, atol=0.5)
    hist = got["history"]
    assert_true(type(hist) in (list, tuple) and len(hist) == 20, "fit_linreg should return one loss per epoch.")
    assert_scalar(hist[-1], 2.0, name="the last epoch's mean loss", rtol=0.0, atol=0.6)
