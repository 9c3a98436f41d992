import pytest
import torch

from autograder.judge.checks import assert_close


@pytest.mark.points(5)
def test_prefix_sum_random(student, reference, probes, rng):
    """prefix_sum agrees with the reference on vectors of random lengths, with the first negative anywhere (or nowhere)"""
    xs = []
    for n in (1, 4, 7, 12, 20):
        x = torch.rand(n, generator=rng) * 5
        stop = int(torch.randint(0, n + 1, (), generator=rng))  # n: no negative element
        if stop < n:
            x[stop] = -float(torch.rand((), generator=rng)) - 0.1
        xs.append(x)
    xs.append(torch.zeros(0))
    got, want = student(probes.prefix_sum, xs), reference(probes.prefix_sum, xs)
    assert_close(got["direct"], want["direct"], name="prefix_sum of six random vectors", rtol=1e-5, atol=1e-5)
    assert_close(got["graph"], want["graph"], name="prefix_sum through one concrete function for [None] float32 vectors",
                 rtol=1e-5, atol=1e-5)
