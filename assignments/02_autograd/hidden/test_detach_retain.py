import pytest
import torch

from autograder.judge.checks import assert_close, assert_equal

CASES = [((7,), "c"), ((3, 4), "c"), ((2, 3, 4), "c"), ((4, 3), "t"), ((3, 8), "s")]


def _laid_out(shape, layout):
    if layout == "t":
        return shape[:-2] + (shape[-1], shape[-2])
    if layout == "s":
        return shape[:-1] + ((shape[-1] + 1) // 2,)
    return shape


@pytest.mark.points(3)
def test_straight_through_random(student, reference, probes, rng):
    """straight_through_round: rounded values, identity gradient, on random shapes, layouts and dtypes"""
    for shape, layout in CASES:
        for dtype in (torch.float32, torch.float64):
            x = torch.randn(shape, generator=rng, dtype=dtype) * 4
            v = torch.randn(_laid_out(shape, layout), generator=rng, dtype=dtype)
            assert_close(student(probes.straight_through, x, v, layout), reference(probes.straight_through, x, v, layout),
                         name=f"straight_through_round on a {layout}-layout {dtype} tensor of shape {shape}")


@pytest.mark.points(1)
def test_predict_random(student, reference, probes, rng):
    """predict agrees with the reference and records no graph"""
    for n, k, m in [(5, 3, 1), (2, 4, 3)]:
        for dtype in (torch.float32, torch.float64):
            w = torch.randn(k, m, generator=rng, dtype=dtype)
            x = torch.randn(n, k, generator=rng, dtype=dtype)
            assert_close(student(probes.predict, w, x), reference(probes.predict, w, x),
                         name=f"predict for {dtype} w of shape {(k, m)}")


@pytest.mark.points(3)
def test_backward_twice_random(student, reference, probes, rng):
    """backward_twice agrees with the reference and evaluates f once"""
    for name in ("poly", "logsumexp", "sin_mean"):
        for shape in [(5,), (3, 4)]:
            for dtype in (torch.float32, torch.float64):
                x = torch.randn(shape, generator=rng, dtype=dtype)
                got, want = student(probes.backward_twice, x, name), reference(probes.backward_twice, x, name)
                assert_close(got["grad"], want["grad"], name=f"backward_twice({name}) for a {dtype} tensor of shape {shape}")
                assert_equal(got["calls"], 1, name="the number of times backward_twice called f")
