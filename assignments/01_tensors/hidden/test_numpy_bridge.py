import numpy as np
import pytest
import torch

from autograder.judge.checks import assert_close

SHAPES = [(4,), (3, 5), (2, 3, 4)]


def _agrees_on_tensors(student, reference, probe, rng):
    """`probe` agrees with the reference on float32/float64 tensors, with and without requires_grad."""
    cases = [(dtype, shape, rg) for dtype in (torch.float32, torch.float64) for shape in SHAPES for rg in (False, True)]
    calls = [(torch.randn(shape, generator=rng, dtype=dtype), rg) for dtype, shape, rg in cases]
    results, answers = student.map(probe, calls), reference.map(probe, calls)
    for (dtype, shape, rg), got, want in zip(cases, results, answers):
        assert_close(got, want,
                     name=f"{probe.__name__} of a {dtype} tensor" + (" that requires grad" if rg else "") + ", after an in-place change")


@pytest.mark.points(2)
def test_share_to_numpy_random(student, reference, probes, rng):
    """share_to_numpy shares memory on float32/float64 tensors, with and without requires_grad"""
    _agrees_on_tensors(student, reference, probes.share_to_numpy, rng)


@pytest.mark.points(1)
def test_copy_to_numpy_random(student, reference, probes, rng):
    """copy_to_numpy does not share memory, with and without requires_grad"""
    _agrees_on_tensors(student, reference, probes.copy_to_numpy, rng)


@pytest.mark.points(1)
def test_share_from_numpy_random(student, reference, probes, np_rng):
    """share_from_numpy shares memory and keeps numpy's dtype"""
    cases = [(dtype, shape) for dtype in (np.float64, np.float32, np.int64, np.int32) for shape in SHAPES]
    calls = [((np_rng.standard_normal(shape) * 10).astype(dtype),) for dtype, shape in cases]
    results, answers = student.map(probes.share_from_numpy, calls), reference.map(probes.share_from_numpy, calls)
    for (dtype, shape), got, want in zip(cases, results, answers):
        assert_close(got, want, name=f"share_from_numpy of a {np.dtype(dtype).name} array, after an in-place change")


@pytest.mark.points(2)
def test_to_python_random(student, reference, probes, rng):
    """to_python agrees with the reference on one-element and larger tensors of several dtypes"""
    cases = [(shape, dtype) for shape in [(), (1,), (1, 1), (1, 1, 1), (3,), (2, 3), (2, 1, 2), (1, 3), (1, 1, 2), (3, 1)]
             for dtype in (torch.float32, torch.float64, torch.int64, torch.bool)]
    calls = [((torch.randn(shape, generator=rng) * 5).to(dtype),) for shape, dtype in cases]
    results, answers = student.map(probes.to_python, calls), reference.map(probes.to_python, calls)
    for (shape, dtype), got, want in zip(cases, results, answers):
        assert_close(got, want, name=f"to_python of a {dtype} tensor of shape {shape}")
