import pytest
import torch

from autograder.judge.checks import assert_close

NAMES = ["square_sum", "poly", "logsumexp", "sin_mean", "norm"]


@pytest.mark.points(3)
def test_value_and_grad_random(student, reference, probes, rng):
    """value_and_grad agrees with the reference for several functions, shapes and dtypes"""
    for i, (shape, dtype) in enumerate([((4,), torch.float32), ((2, 3), torch.float64), ((), torch.float32),
                                        ((3, 1, 2), torch.float64), ((5,), torch.float64)]):
        x = torch.randn(shape, generator=rng, dtype=dtype)
        name = NAMES[i]
        got, want = student(probes.value_and_grad, x, name), reference(probes.value_and_grad, x, name)
        assert_close(got["result"], want["result"], name=f"value_and_grad of {name} at a {dtype} tensor of shape {list(shape)}",
                     rtol=1e-5, atol=1e-6)


@pytest.mark.points(3)
def test_two_grads_random(student, reference, probes, rng):
    """two_grads agrees with the reference for pairs of functions"""
    for f, g, shape, dtype in [("poly", "sin_mean", (3,), torch.float32), ("norm", "square_sum", (2, 2), torch.float64),
                               ("logsumexp", "poly", (6,), torch.float64)]:
        x = torch.randn(shape, generator=rng, dtype=dtype)
        got, want = student(probes.two_grads, x, f, g), reference(probes.two_grads, x, f, g)
        assert_close(got["result"], want["result"], name=f"two_grads of {f} and {g} at a {dtype} tensor of shape {list(shape)}",
                     rtol=1e-5, atol=1e-6)
