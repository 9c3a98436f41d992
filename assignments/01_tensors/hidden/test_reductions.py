import pytest
import torch

from autograder.judge.checks import assert_close


@pytest.mark.points(2)
def test_half_mse_random(student, reference, probes, rng):
    """half_mse agrees with the reference on float32/float64 predictions"""
    for shape in [(10, 1), (400, 1), (7,), (5, 3)]:
        for dtype in (torch.float32, torch.float64):
            pred, target = torch.randn(shape, generator=rng, dtype=dtype), torch.randn(shape, generator=rng, dtype=dtype) * 3
            assert_close(student(probes.half_mse, pred, target), reference(probes.half_mse, pred, target),
                         name=f"half_mse of {dtype} tensors of shape {shape}")


@pytest.mark.points(2)
def test_standardize_random(student, reference, probes, rng):
    """standardize agrees with the reference (per column)"""
    for n, d in [(10, 3), (400, 2), (5, 5), (3, 8)]:
        for dtype in (torch.float32, torch.float64):
            X = torch.randn(n, d, generator=rng, dtype=dtype) * torch.arange(1, d + 1, dtype=dtype) + 5
            assert_close(student(probes.standardize, X), reference(probes.standardize, X), rtol=1e-5, atol=1e-5,
                         name=f"standardize of a {dtype} [{n}, {d}] matrix")


@pytest.mark.points(2)
def test_top_k_rows_random(student, reference, probes, rng):
    """top_k_rows agrees with the reference"""
    for n, c, k in [(5, 10, 3), (1, 4, 4), (20, 7, 1), (6, 6, 2)]:
        scores = torch.randn(n, c, generator=rng)
        assert_close(student(probes.top_k_rows, scores, k), reference(probes.top_k_rows, scores, k),
                     name=f"top_k_rows of a [{n}, {c}] matrix with k={k}")


@pytest.mark.points(1)
def test_sort_by_column_random(student, reference, probes, rng):
    """sort_by_column agrees with the reference"""
    for n, d, col in [(10, 3, 0), (10, 3, 2), (50, 2, 1), (4, 5, 3)]:
        X = torch.randn(n, d, generator=rng)
        assert_close(student(probes.sort_by_column, X, col), reference(probes.sort_by_column, X, col),
                     name=f"sort_by_column of a [{n}, {d}] matrix by column {col}")
