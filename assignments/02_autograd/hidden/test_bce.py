import pytest
import torch

from autograder.judge.checks import assert_close


@pytest.mark.points(3)
def test_bce_random(student, reference, probes, rng):
    """bce_loss and its gradient agree with the reference for hard and soft labels, shapes and dtypes"""
    for shape in [(8, 1), (20,), (3, 5)]:
        for dtype in (torch.float32, torch.float64):
            p = torch.rand(shape, generator=rng, dtype=dtype) * 0.98 + 0.01
            hard = torch.randint(0, 2, shape, generator=rng).to(dtype)
            soft = torch.rand(shape, generator=rng, dtype=dtype)
            for y, kind in ((hard, "0/1"), (soft, "soft")):
                got, want = student(probes.bce, p, y), reference(probes.bce, p, y)
                what = f"{dtype} predictions of shape {shape} with {kind} labels"
                assert_close(got["loss"], want["loss"], name=f"bce_loss of {what}")
                assert_close(got["grad"], want["grad"], name=f"the gradient of bce_loss for {what}")


@pytest.mark.points(1)
def test_bce_clamping_and_eps(student, reference, probes, rng):
    """bce_loss clamps predictions of exactly 0 and 1 (finite loss, zero gradient there) and honours eps"""
    for dtype in (torch.float32, torch.float64):
        p = torch.tensor([0.0, 1.0, 0.0, 1.0, 0.3, 1e-12], dtype=dtype)
        y = torch.tensor([1.0, 0.0, 0.0, 1.0, 1.0, 1.0], dtype=dtype)
        perm = torch.randperm(6, generator=rng)
        p, y = p[perm], y[perm]
        for eps in (None, 1e-3):
            got, want = student(probes.bce, p, y, eps), reference(probes.bce, p, y, eps)
            assert_close(got["loss"], want["loss"], name=f"bce_loss with predictions at 0 and 1 ({dtype}, eps {eps or 'default'})")
            assert_close(got["grad"], want["grad"], name=f"the gradient of bce_loss at clamped predictions ({dtype})")
