import pytest
import torch

from autograder.judge.checks import assert_tensor

SHAPES = [((5,), "c"), ((3, 4), "c"), ((2, 3, 4), "c"), ((4, 3), "t"), ((3, 8), "s"), ((1,), "c")]


@pytest.mark.points(3)
def test_grad_at_random(student, reference, probes, rng):
    """grad_at agrees with the reference for several scalar functions, shapes, layouts and dtypes"""
    cases = [(torch.randn(shape, generator=rng, dtype=dtype), name, layout)
             for name in ("poly", "logsumexp", "sin_mean", "norm") for shape, layout in SHAPES
             for dtype in (torch.float32, torch.float64)]
    for (x, name, layout), got, want in zip(cases, student.map(probes.grad_at, cases),
                                            reference.map(probes.grad_at, cases)):
        assert_tensor(got["grad"], want["grad"],
                      name=f"grad_at({name}) for a {layout}-layout {x.dtype} tensor of shape {tuple(x.shape)}")


@pytest.mark.points(3)
def test_vjp_random(student, reference, probes, rng, laid_out):
    """vjp agrees with the reference for elementwise and non-elementwise functions and random v"""
    cases = []
    for name in ("square", "sin_x", "cumsum", "softmax", "gram"):
        for shape, layout in SHAPES[1:]:
            for dtype in (torch.float32, torch.float64):
                x = torch.randn(shape, generator=rng, dtype=dtype)
                s = laid_out(x, layout).shape
                out_shape = (s[0], s[0]) if name == "gram" else s
                cases.append((x, torch.randn(out_shape, generator=rng, dtype=dtype), name, layout))
    for (x, v, name, layout), got, want in zip(cases, student.map(probes.vjp, cases), reference.map(probes.vjp, cases)):
        assert_tensor(got["grad"], want["grad"],
                      name=f"vjp({name}) for a {layout}-layout {x.dtype} tensor of shape {tuple(x.shape)}")


@pytest.mark.points(2)
def test_input_untouched(student, reference, probes, rng):
    """grad_at and vjp ignore and keep an input that already requires grad and carries an old .grad"""
    for dtype in (torch.float32, torch.float64):
        x = torch.randn(3, 4, generator=rng, dtype=dtype)
        v = torch.randn(3, 4, generator=rng, dtype=dtype)
        for got, want, what in (
            (student(probes.grad_at, x, "poly", "c", True), reference(probes.grad_at, x, "poly", "c", True), "grad_at"),
            (student(probes.vjp, x, v, "sin_x", "c", True), reference(probes.vjp, x, v, "sin_x", "c", True), "vjp"),
        ):
            assert_tensor(got["grad"], want["grad"], name=f"{what} of a {dtype} input that already had a .grad")
            assert_tensor(got["x"], got["x_before"], name=f"the input x after {what} (it must not change)")
            assert_tensor(got["x_grad"], want["x_grad"], name=f"the input's own .grad after {what} (it must not change)")
