import pytest
import torch

from autograder.judge.checks import assert_close


@pytest.mark.points(2)
def test_to_channels_last_random(student, reference, probes, rng):
    """to_channels_last agrees with the reference on non-square images"""
    shapes = [(2, 3, 4, 5), (1, 1, 3, 2), (3, 4, 6, 6), (2, 5, 2, 7)]
    calls = [(torch.randn(shape, generator=rng),) for shape in shapes]
    results, answers = student.map(probes.to_channels_last, calls), reference.map(probes.to_channels_last, calls)
    for shape, got, want in zip(shapes, results, answers):
        assert_close(got, want, name=f"to_channels_last of a batch of shape {shape}")


@pytest.mark.points(1)
def test_add_bias_column_random(student, reference, probes, rng):
    """add_bias_column agrees with the reference and keeps the dtype"""
    cases, calls = [], []  # two calls per case: on the CPU, then on 'meta'
    for (n, d), layout in [((5, 2), "contiguous"), ((1, 4), "contiguous"), ((3, 7), "transposed"), ((40, 3), "contiguous")]:
        for dtype in (torch.float32, torch.float64):
            X = torch.randn(n, d, generator=rng, dtype=dtype)
            cases.append((layout, dtype))
            calls += [(X, layout), (X, layout, "meta")]
    results, answers = student.map(probes.add_bias_column, calls), reference.map(probes.add_bias_column, calls)
    for i, (layout, dtype) in enumerate(cases):
        assert_close(results[2 * i], answers[2 * i], name=f"add_bias_column of a {layout} {dtype} matrix")
        assert_close(results[2 * i + 1], answers[2 * i + 1],
                     name=f"add_bias_column of a {layout} {dtype} matrix on 'meta' (a stand-in GPU): shape, dtype, device")


@pytest.mark.points(1)
def test_split_xy_random(student, reference, probes, rng):
    """split_xy agrees with the reference (y stays [N, 1])"""
    cases = [(5, 2), (1, 3), (12, 1), (30, 6)]
    calls = [(torch.randn(n, d + 1, generator=rng),) for n, d in cases]
    results, answers = student.map(probes.split_xy, calls), reference.map(probes.split_xy, calls)
    for (n, d), got, want in zip(cases, results, answers):
        assert_close(got, want, name=f"split_xy of a [{n}, {d + 1}] table")


@pytest.mark.points(1)
def test_stack_images_random(student, reference, probes, rng):
    """stack_images agrees with the reference"""
    cases = [(1, (3, 4, 4)), (4, (1, 5, 3)), (3, (2, 2, 6))]
    calls = [([torch.randn(shape, generator=rng) for _ in range(n)],) for n, shape in cases]  # (images,)
    results, answers = student.map(probes.stack_images, calls), reference.map(probes.stack_images, calls)
    for (n, shape), got, want in zip(cases, results, answers):
        assert_close(got, want, name=f"stack_images of {n} images of shape {shape}")


@pytest.mark.points(2)
def test_squeeze_last_random(student, reference, probes, rng):
    """squeeze_last agrees with the reference, including a batch of one"""
    sizes = (1, 2, 7, 64)
    calls = [(torch.randn(n, 1, generator=rng),) for n in sizes]
    results, answers = student.map(probes.squeeze_last, calls), reference.map(probes.squeeze_last, calls)
    for n, got, want in zip(sizes, results, answers):
        assert_close(got, want, name=f"squeeze_last of [{n}, 1] predictions")
