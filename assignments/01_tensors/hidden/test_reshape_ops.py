import pytest
import torch

from autograder.judge.checks import assert_close


@pytest.mark.points(2)
def test_to_channels_last_random(student, reference, probes, rng):
    """to_channels_last agrees with the reference on non-square images"""
    for shape in [(2, 3, 4, 5), (1, 1, 3, 2), (3, 4, 6, 6), (2, 5, 2, 7)]:
        x = torch.randn(shape, generator=rng)
        assert_close(student(probes.to_channels_last, x), reference(probes.to_channels_last, x),
                     name=f"to_channels_last of a batch of shape {shape}")


@pytest.mark.points(1)
def test_add_bias_column_random(student, reference, probes, rng):
    """add_bias_column agrees with the reference and keeps the dtype"""
    for (n, d), layout in [((5, 2), "contiguous"), ((1, 4), "contiguous"), ((3, 7), "transposed"), ((40, 3), "contiguous")]:
        for dtype in (torch.float32, torch.float64):
            X = torch.randn(n, d, generator=rng, dtype=dtype)
            assert_close(student(probes.add_bias_column, X, layout), reference(probes.add_bias_column, X, layout),
                         name=f"add_bias_column of a {layout} {dtype} matrix")
            assert_close(student(probes.add_bias_column, X, layout, "meta"), reference(probes.add_bias_column, X, layout, "meta"),
                         name=f"add_bias_column of a {layout} {dtype} matrix on 'meta' (a stand-in GPU): shape, dtype, device")


@pytest.mark.points(1)
def test_split_xy_random(student, reference, probes, rng):
    """split_xy agrees with the reference (y stays [N, 1])"""
    for n, d in [(5, 2), (1, 3), (12, 1), (30, 6)]:
        data = torch.randn(n, d + 1, generator=rng)
        assert_close(student(probes.split_xy, data), reference(probes.split_xy, data), name=f"split_xy of a [{n}, {d + 1}] table")


@pytest.mark.points(1)
def test_stack_images_random(student, reference, probes, rng):
    """stack_images agrees with the reference"""
    for n, shape in [(1, (3, 4, 4)), (4, (1, 5, 3)), (3, (2, 2, 6))]:
        images = [torch.randn(shape, generator=rng) for _ in range(n)]
        assert_close(student(probes.stack_images, images), reference(probes.stack_images, images),
                     name=f"stack_images of {n} images of shape {shape}")


@pytest.mark.points(2)
def test_squeeze_last_random(student, reference, probes, rng):
    """squeeze_last agrees with the reference, including a batch of one"""
    for n in (1, 2, 7, 64):
        pred = torch.randn(n, 1, generator=rng)
        assert_close(student(probes.squeeze_last, pred), reference(probes.squeeze_last, pred), name=f"squeeze_last of [{n}, 1] predictions")
