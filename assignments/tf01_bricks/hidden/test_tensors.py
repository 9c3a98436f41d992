import pytest
import torch

from autograder.judge.checks import assert_close, assert_true, tf_name


@pytest.mark.points(2)
def test_scale_in_place_random(student, reference, probes, rng):
    """scale_in_place on variables of several shapes and dtypes agrees with the reference"""
    for shape, dtype in [((3,), torch.float32), ((2, 5), torch.float64), ((1, 1, 4), torch.float32)]:
        x = torch.randn(shape, generator=rng, dtype=dtype)
        factor = float(torch.empty(()).uniform_(-3.0, 3.0, generator=rng))
        got, want = student(probes.scale_in_place, x, factor), reference(probes.scale_in_place, x, factor)
        assert_true(got["same"] is True, "scale_in_place should return the variable it was given.")
        assert_close(got["value"], want["value"], name=f"a {tf_name(dtype)} variable of shape {list(shape)} after scale_in_place")


@pytest.mark.points(2)
def test_running_sum_random(student, reference, probes, rng):
    """running_sum's snapshots and final variable agree with the reference"""
    for shape, dtype, k in [((4,), torch.float32, 5), ((2, 3), torch.float64, 3), ((), torch.float32, 4)]:
        x0 = torch.randn(shape, generator=rng, dtype=dtype)
        xs = [torch.randn(shape, generator=rng, dtype=dtype) for _ in range(k)]
        got, want = student(probes.running_sum, x0, xs), reference(probes.running_sum, x0, xs)
        assert_close(got, want, name=f"running_sum over {k} {tf_name(dtype)} tensors of shape {list(shape)}")


@pytest.mark.points(2)
def test_int_mean_random(student, reference, probes, rng):
    """int_mean of random integer tensors (int32, int64, uint8) agrees with the reference"""
    for shape, dtype in [((7,), "int32"), ((3, 5), "int64"), ((2, 2, 3), "uint8"), ((1,), "int32")]:
        x = torch.randint(0, 100, shape, generator=rng)
        got, want = student(probes.int_mean, x, dtype), reference(probes.int_mean, x, dtype)
        assert_close(got, want, name=f"int_mean of a {tf_name(dtype)} tensor of shape {list(shape)}")
