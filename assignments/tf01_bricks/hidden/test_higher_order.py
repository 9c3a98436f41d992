import pytest
import torch

from autograder.judge.checks import assert_close, tf_name


@pytest.mark.points(5)
def test_derivatives_random(student, reference, probes, rng):
    """derivatives of several elementwise functions agree with the reference (shapes, float32/float64)"""
    for name, shape, dtype in [("sin_x", (5,), torch.float32), ("gauss", (2, 3), torch.float64),
                               ("tanh", (4, 1), torch.float32), ("log1p_sq", (3,), torch.float64), ("cube", (), torch.float64)]:
        x = torch.randn(shape, generator=rng, dtype=dtype) * 2
        got, want = student(probes.derivatives, x, name), reference(probes.derivatives, x, name)
        assert_close(got, want, name=f"derivatives of {name} at a {tf_name(dtype)} tensor of shape {list(shape)}", rtol=1e-5, atol=1e-5)
