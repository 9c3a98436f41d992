import pytest
import torch

from autograder.judge.checks import assert_equal, assert_tensor, assert_true

SHAPES = [(5, 3), (2, 4, 3), (1, 1), (7, 1), (2, 3, 4, 2), (4, 0)]
DTYPES = [torch.float32, torch.float64, torch.float16, torch.bfloat16]


def _check(got, exp, device, name):
    assert_true(got.get("type") == "Tensor", f"{name} should be a torch.Tensor, but it is a {got.get('type')}.")
    assert_equal(got["dtype"], exp["dtype"], name=f"the dtype of {name}")
    assert_equal(got["device"].split(":")[0], torch.device(device).type, name=f"the device of {name}")
    assert_equal(got["shape"], exp["shape"], name=f"the shape of {name}")
    if exp["value"] is not None:
        assert_tensor(got["value"], exp["value"], name=name)


@pytest.mark.points(5)
def test_shapes_and_dtypes(student, reference, probes, rng, device):
    """add_bias_column on random inputs of several shapes and floating dtypes"""
    for shape in SHAPES:
        X = torch.randn(shape, generator=rng)
        for dtype in DTYPES:
            name = f"add_bias_column of a {dtype} tensor of shape {shape} on {device}"
            _check(student(probes.add_bias_column, X, device, dtype),
                   reference(probes.add_bias_column, X, "cpu", dtype), device, name)


@pytest.mark.points(3)
def test_non_contiguous(student, reference, probes, rng, device):
    """add_bias_column on transposed (non-contiguous) inputs"""
    for shape in [(3, 5), (2, 3, 4), (1, 6)]:
        X = torch.randn(shape, generator=rng)
        for dtype in (torch.float32, torch.float64):
            name = f"add_bias_column of a transposed {dtype} tensor on {device}"
            _check(student(probes.add_bias_column, X, device, dtype, True),
                   reference(probes.add_bias_column, X, "cpu", dtype, True), device, name)


@pytest.mark.points(4)
def test_keeps_device(student, reference, probes, rng):
    """the new column is created on the input's device (checked on the 'meta' device)"""
    for shape in [(6, 2), (3, 2, 5), (1, 1)]:
        X = torch.randn(shape, generator=rng)
        for dtype in DTYPES:
            name = f"add_bias_column of a {dtype} tensor on 'meta'"
            _check(student(probes.add_bias_column, X, "meta", dtype),
                   reference(probes.add_bias_column, X, "meta", dtype), "meta", name)
