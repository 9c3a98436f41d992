import pytest
import torch

from autograder.judge.checks import assert_close, tf_name


@pytest.mark.points(5)
def test_straight_through_random(student, reference, probes, rng):
    """straight_through_round's values and gradients agree with the reference (shapes, float32/float64)"""
    for shape, dtype in [((6,), torch.float32), ((2, 3), torch.float64), ((), torch.float32), ((3, 1, 2), torch.float64)]:
        x = torch.randn(shape, generator=rng, dtype=dtype) * 4
        v = torch.randn(shape, generator=rng, dtype=dtype)
        got, want = student(probes.straight_through, x, v), reference(probes.straight_through, x, v)
        assert_close(got, want, name=f"straight_through_round of a {tf_name(dtype)} tensor of shape {list(shape)} and its gradient")
