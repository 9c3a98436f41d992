import numpy as np
import pytest
import torch

from autograder.judge.checks import assert_close


@pytest.mark.points(2)
def test_to_float32_random(student, reference, probes, np_rng):
    """to_float32 agrees with the reference on arrays of several dtypes and shapes"""
    cases = [(dtype, shape) for dtype in (np.float64, np.float32, np.int64, np.int32, np.uint8, np.float16)
             for shape in [(5,), (3, 4), (2, 3, 4)]]
    calls = [((np_rng.standard_normal(shape) * 50).astype(dtype),) for dtype, shape in cases]
    results, answers = student.map(probes.to_float32, calls), reference.map(probes.to_float32, calls)
    for (dtype, shape), got, want in zip(cases, results, answers):
        assert_close(got, want, name=f"to_float32 of a {np.dtype(dtype).name} array of shape {shape}")


@pytest.mark.points(2)
def test_encode_labels_random(student, reference, probes, np_rng):
    """encode_labels agrees with the reference on random label lists"""
    vocab = ["setosa", "versicolor", "virginica", "cat", "dog", "Zebra", "ant", "b", "a1", "a10", "a2"]
    cases = [(1, 1), (7, 3), (50, 6), (200, 11)]
    calls = []
    for n, k in cases:
        words = [vocab[i] for i in np_rng.permutation(len(vocab))[:k]]
        labels = [words[i] for i in np_rng.integers(0, k, size=n)]
        calls.append((labels,))
    results, answers = student.map(probes.encode_labels, calls), reference.map(probes.encode_labels, calls)
    for (n, k), got, want in zip(cases, results, answers):
        assert_close(got, want, name=f"encode_labels of {n} labels with up to {k} classes")


@pytest.mark.points(3)
def test_to_uint8_image_random(student, reference, probes, rng):
    """to_uint8_image agrees with the reference on random images, including out-of-range values"""
    cases = [(dtype, shape) for dtype in (torch.float32, torch.float64) for shape in [(10,), (3, 8, 8), (2, 3, 5, 7)]]
    calls = [(torch.rand(shape, generator=rng, dtype=dtype) * 1.6 - 0.3,) for dtype, shape in cases]
    results, answers = student.map(probes.to_uint8_image, calls), reference.map(probes.to_uint8_image, calls)
    for (dtype, shape), got, want in zip(cases, results, answers):
        assert_close(got, want, name=f"to_uint8_image of a {dtype} image of shape {shape}")
