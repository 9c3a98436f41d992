import pytest
import torch

from autograder.judge.checks import assert_close


@pytest.mark.points(2)
def test_linear_random(student, reference, probes, rng):
    """linear agrees with the reference on float32/float64 data"""
    cases = [(n, d, dtype) for n, d in [(400, 2), (1, 3), (17, 5)] for dtype in (torch.float32, torch.float64)]
    calls = [tuple(torch.randn(s, generator=rng, dtype=dtype) for s in ((n, d), (d, 1), (1,)))  # (X, w, b)
             for n, d, dtype in cases]
    results, answers = student.map(probes.linear, calls), reference.map(probes.linear, calls)
    for (n, d, dtype), got, want in zip(cases, results, answers):
        assert_close(got, want, rtol=1e-5, atol=1e-5, name=f"linear on {dtype} data with N={n}, d={d}")


@pytest.mark.points(2)
def test_bilinear_random(student, reference, probes, rng):
    """bilinear agrees with the reference on float32/float64 data"""
    cases = [(n, d, e, dtype) for n, d, e in [(5, 3, 4), (1, 2, 2), (30, 6, 3), (4, 4, 4)]
             for dtype in (torch.float32, torch.float64)]
    calls = [tuple(torch.randn(s, generator=rng, dtype=dtype) for s in ((n, d), (d, e), (n, e)))  # (x, W, y)
             for n, d, e, dtype in cases]
    results, answers = student.map(probes.bilinear, calls), reference.map(probes.bilinear, calls)
    for (n, d, e, dtype), got, want in zip(cases, results, answers):
        assert_close(got, want, rtol=1e-5, atol=1e-5, name=f"bilinear with N={n}, d={d}, e={e} in {dtype}")


@pytest.mark.points(3)
def test_broadcast_shape_random(student, reference, probes, rng):
    """broadcast_shape agrees with the reference on compatible and incompatible shapes"""
    pairs = [((1,), (1,)), ((4,), (1,)), ((2, 1), (1, 3)), ((6, 1, 5), (7, 1)), ((1,), (3, 4, 5)), ((3, 4, 5), (4, 1)),
             ((2, 3), (3, 2)), ((5, 4), (5,)), ((2, 1, 4), (3, 4, 1)), ((8, 1, 6, 1), (7, 1, 5)), ((3,), (1, 4)),
             ((2, 3, 4), (2, 1, 5)), ((1, 1), (1, 1, 1, 1)), ((9, 2), (9, 1, 2))]
    calls = [(x, y) for a, b in pairs for x, y in ((a, b), (b, a))]
    results, answers = student.map(probes.broadcast_shape, calls), reference.map(probes.broadcast_shape, calls)
    for (x, y), got, want in zip(calls, results, answers):
        assert_close(got, want, name=f"broadcast_shape of shapes of ranks {len(x)} and {len(y)}")
    calls = []
    for _ in range(20):
        ra, rb = (int(torch.randint(1, 5, (), generator=rng)) for _ in range(2))
        x = tuple(int(v) for v in torch.randint(1, 4, (ra,), generator=rng))
        y = tuple(int(v) for v in torch.randint(1, 4, (rb,), generator=rng))
        calls.append((x, y))
    results, answers = student.map(probes.broadcast_shape, calls), reference.map(probes.broadcast_shape, calls)
    for (x, y), got, want in zip(calls, results, answers):
        assert_close(got, want, name=f"broadcast_shape of random shapes of ranks {len(x)} and {len(y)}")
