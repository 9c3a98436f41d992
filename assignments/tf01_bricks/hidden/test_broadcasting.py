import pytest
import torch

from autograder.judge.checks import assert_close, tf_name


@pytest.mark.points(3)
def test_center_columns_random(student, reference, probes, rng):
    """center_columns agrees with the reference on square and non-square matrices, float32 and float64"""
    for n, d in [(5, 3), (4, 4), (1, 6), (9, 2)]:
        for dtype in (torch.float32, torch.float64):
            x = torch.randn(n, d, generator=rng, dtype=dtype) * 3 + 1
            assert_close(student(probes.center_columns, x), reference(probes.center_columns, x),
                         name=f"center_columns of a {tf_name(dtype)} [{n}, {d}] matrix")


@pytest.mark.points(4)
def test_pairwise_sq_dists_random(student, reference, probes, rng):
    """pairwise_sq_dists agrees with the reference (n != m, n == m, one point), float32 and float64"""
    for n, m, d in [(5, 7, 2), (4, 4, 3), (1, 6, 5), (8, 1, 1)]:
        for dtype in (torch.float32, torch.float64):
            a, b = torch.randn(n, d, generator=rng, dtype=dtype), torch.randn(m, d, generator=rng, dtype=dtype)
            tol = {"rtol": 1e-5, "atol": 1e-5} if dtype == torch.float32 else {}
            assert_close(student(probes.pairwise_sq_dists, a, b), reference(probes.pairwise_sq_dists, a, b),
                         name=f"pairwise_sq_dists of {n} against {m} {tf_name(dtype)} points in {d}-d", **tol)
