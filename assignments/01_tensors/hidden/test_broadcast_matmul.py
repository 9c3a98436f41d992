import pytest
import torch

from autograder.judge.checks import assert_close


@pytest.mark.points(2)
def test_linear_random(student, reference, probes, rng):
    """linear agrees with the reference on float32/float64 data"""
    for n, d in [(400, 2), (1, 3), (17, 5)]:
        for dtype in (torch.float32, torch.float64):
            X, w, b = (torch.randn(s, generator=rng, dtype=dtype) for s in ((n, d), (d, 1), (1,)))
            assert_close(student(probes.linear, X, w, b), reference(probes.linear, X, w, b), rtol=1e-5, atol=1e-5,
                         name=f"linear on {dtype} data with N={n}, d={d}")


@pytest.mark.points(2)
def test_bilinear_random(student, reference, probes, rng):
    """bilinear agrees with the reference on float32/float64 data"""
    for n, d, e in [(5, 3, 4), (1, 2, 2), (30, 6, 3), (4, 4, 4)]:
        for dtype in (torch.float32, torch.float64):
            x, W, y = (torch.randn(s, generator=rng, dtype=dtype) for s in ((n, d), (d, e), (n, e)))
            assert_close(student(probes.bilinear, x, W, y), reference(probes.bilinear, x, W, y), rtol=1e-5, atol=1e-5,
                         name=f"bilinear with N={n}, d={d}, e={e} in {dtype}")


@pytest.mark.points(3)
def test_broadcast_shape_random(student, reference, probes, rng):
    """broadcast_shape agrees with the reference on compatible and incompatible shapes"""
    pairs = [((1,), (1,)), ((4,), (1,)), ((2, 1), (1, 3)), ((6, 1, 5), (7, 1)), ((1,), (3, 4, 5)), ((3, 4, 5), (4, 1)),
             ((2, 3), (3, 2)), ((5, 4), (5,)), ((2, 1, 4), (3, 4, 1)), ((8, 1, 6, 1), (7, 1, 5)), ((3,), (1, 4)),
             ((2, 3, 4), (2, 1, 5)), ((1, 1), (1, 1, 1, 1)), ((9, 2), (9, 1, 2))]
    for a, b in pairs:
        for x, y in ((a, b), (b, a)):
            assert_close(student(probes.broadcast_shape, x, y), reference(probes.broadcast_shape, x, y),
                         name=f"broadcast_shape of shapes of ranks {len(x)} and {len(y)}")
    for _ in range(20):
        ra, rb = (int(torch.randint(1, 5, (), generator=rng)) for _ in range(2))
        x = tuple(int(v) for v in torch.randint(1, 4, (ra,), generator=rng))
        y = tuple(int(v) for v in torch.randint(1, 4, (rb,), generator=rng))
        assert_close(student(probes.broadcast_shape, x, y), reference(probes.broadcast_shape, x, y),
                     name=f"broadcast_shape of random shapes of ranks {ra} and {rb}")
