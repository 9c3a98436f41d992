import pytest
import torch

from autograder.judge.checks import assert_close


@pytest.mark.points(3)
def test_describe_random(student, reference, probes, rng):
    """describe agrees with the reference on tensors of several ranks, dtypes and layouts"""
    cases = [((), torch.float32, "contiguous"), ((5,), torch.int64, "contiguous"), ((3, 4), torch.float16, "contiguous"),
             ((2, 3, 4), torch.uint8, "contiguous"), ((2, 1, 3, 4, 2), torch.bool, "contiguous"),
             ((4, 6), torch.float64, "transposed"), ((3, 10), torch.float32, "strided"), ((2, 5, 3), torch.int32, "transposed")]
    calls = [((torch.rand(shape, generator=rng) * 10).to(dtype), layout) for shape, dtype, layout in cases]
    results, answers = student.map(probes.describe, calls), reference.map(probes.describe, calls)
    for (shape, dtype, layout), got, want in zip(cases, results, answers):
        assert_close(got, want, name=f"describe of a {layout} {dtype} tensor of rank {len(shape)}")


@pytest.mark.points(3)
def test_ensure_batch_random(student, reference, probes, rng):
    """ensure_batch agrees with the reference on tensors of rank 0 to 5"""
    shapes = [(3, 5, 7), (1, 2, 2), (4, 3, 5, 7), (1, 1, 2, 2), (), (6,), (5, 7), (2, 1, 3, 4, 5)]
    calls = [(torch.randn(shape, generator=rng),) for shape in shapes]
    results, answers = student.map(probes.ensure_batch, calls), reference.map(probes.ensure_batch, calls)
    for shape, got, want in zip(shapes, results, answers):
        assert_close(got, want, name=f"ensure_batch of a tensor of rank {len(shape)}")
