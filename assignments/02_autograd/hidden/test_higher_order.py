import pytest
import torch

from autograder.judge.checks import assert_close, assert_true

CASES = [((6,), "c"), ((3, 4), "c"), ((2, 3, 5), "c"), ((4, 3), "t"), ((3, 8), "s")]


@pytest.mark.points(5)
def test_derivatives_random(student, reference, probes, rng):
    """f, f' and f'' agree with the reference for several elementwise functions, shapes and dtypes"""
    cases = [(torch.randn(shape, generator=rng, dtype=dtype) * 2, name, layout)
             for name in ("sin_x", "gauss", "tanh", "log1p_sq", "cube") for shape, layout in CASES
             for dtype in (torch.float32, torch.float64)]
    for (x, name, layout), got, want in zip(cases, student.map(probes.derivatives, cases),
                                            reference.map(probes.derivatives, cases)):
        assert_close(got, want, name=f"derivatives({name}) for a {layout}-layout {x.dtype} tensor of shape {tuple(x.shape)}")


@pytest.mark.points(2)
def test_results_detached(student, reference, probes, rng):
    """the three returned tensors do not require grad"""
    x = torch.randn(4, 5, generator=rng, dtype=torch.float64)
    got = student(probes.derivatives, x, "sin_x")
    assert_true(type(got) in (list, tuple) and len(got) == 3, "derivatives should return a tuple of three tensors.")
    assert_close(got, reference(probes.derivatives, x, "sin_x"), name="derivatives(f, x) for f(x) = sin(x), float64 x [4, 5]")
    for part, t in zip(("f(x)", "f'(x)", "f''(x)"), got):
        assert_true(type(t) is torch.Tensor and not t.requires_grad,
                    f"the returned {part} should be a tensor that does not require grad (detach it).")
