import pytest
import torch

from autograder.judge.checks import assert_close


@pytest.mark.points(2)
def test_half_mse_random(student, reference, probes, rng):
    """half_mse agrees with the reference on float32/float64 predictions"""
    cases = [(shape, dtype) for shape in [(10, 1), (400, 1), (7,), (5, 3)] for dtype in (torch.float32, torch.float64)]
    calls = [(torch.randn(shape, generator=rng, dtype=dtype), torch.randn(shape, generator=rng, dtype=dtype) * 3)  # (pred, target)
             for shape, dtype in cases]
    results, answers = student.map(probes.half_mse, calls), reference.map(probes.half_mse, calls)
    for (shape, dtype), got, want in zip(cases, results, answers):
        assert_close(got, want, name=f"half_mse of {dtype} tensors of shape {shape}")


@pytest.mark.points(2)
def test_standardize_random(student, reference, probes, rng):
    """standardize agrees with the reference (per column)"""
    cases = [(n, d, dtype) for n, d in [(10, 3), (400, 2), (5, 5), (3, 8)] for dtype in (torch.float32, torch.float64)]
    calls = [(torch.randn(n, d, generator=rng, dtype=dtype) * torch.arange(1, d + 1, dtype=dtype) + 5,) for n, d, dtype in cases]
    results, answers = student.map(probes.standardize, calls), reference.map(probes.standardize, calls)
    for (n, d, dtype), got, want in zip(cases, results, answers):
        assert_close(got, want, rtol=1e-5, atol=1e-5, name=f"standardize of a {dtype} [{n}, {d}] matrix")


@pytest.mark.points(2)
def test_top_k_rows_random(student, reference, probes, rng):
    """top_k_rows agrees with the reference"""
    cases = [(5, 10, 3), (1, 4, 4), (20, 7, 1), (6, 6, 2)]
    calls = [(torch.randn(n, c, generator=rng), k) for n, c, k in cases]
    results, answers = student.map(probes.top_k_rows, calls), reference.map(probes.top_k_rows, calls)
    for (n, c, k), got, want in zip(cases, results, answers):
        assert_close(got, want, name=f"top_k_rows of a [{n}, {c}] matrix with k={k}")


@pytest.mark.points(1)
def test_sort_by_column_random(student, reference, probes, rng):
    """sort_by_column agrees with the reference"""
    cases = [(10, 3, 0), (10, 3, 2), (50, 2, 1), (4, 5, 3)]
    calls = [(torch.randn(n, d, generator=rng), col) for n, d, col in cases]
    results, answers = student.map(probes.sort_by_column, calls), reference.map(probes.sort_by_column, calls)
    for (n, d, col), got, want in zip(cases, results, answers):
        assert_close(got, want, name=f"sort_by_column of a [{n}, {d}] matrix by column {col}")
