import pytest
import torch

from autograder.judge.checks import assert_close


@pytest.mark.points(3)
def test_describe_random(student, reference, probes, rng):
    """describe agrees with the reference on tensors of several ranks, dtypes and layouts"""
    cases = [((), torch.float32, "contiguous"), ((5,), torch.int64, "contiguous"), ((3, 4), torch.float16, "contiguous"),
             ((2, 3, 4), torch.uint8, "contiguous"), ((2, 1, 3, 4, 2), torch.bool, "contiguous"),
             ((4, 6), torch.float64, "transposed"), ((3, 10), torch.float32, "strided"), ((2, 5, 3), torch.int32, "transposed")]
    for shape, dtype, layout in cases:
        t = (torch.rand(shape, generator=rng) * 10).to(dtype)
        assert_close(student(probes.describe, t, layout), reference(probes.describe, t, layout),
                     name=f"describe of a {layout} {dtype} tensor of rank {len(shape)}")


@pytest.mark.points(3)
def test_ensure_batch_random(student, reference, probes, rng):
    """ensure_batch agrees with the reference on tensors of rank 0 to 5"""
    for shape in [(3, 5, 7), (1, 2, 2), (4, 3, 5, 7), (1, 1, 2, 2), (), (6,), (5, 7), (2, 1, 3, 4, 5)]:
        x = torch.randn(shape, generator=rng)
        assert_close(student(probes.ensure_batch, x), reference(probes.ensure_batch, x),
                     name=f"ensure_batch of a tensor of rank {len(shape)}")
