import pytest
import torch

from autograder.judge.checks import assert_close

SHAPES = [(5, 3, 2), (1, 4, 1), (7, 2, 6), (3, 3, 3)]


def _layer_inputs(rng, n, k, m, dtype):
    """x [n, k], w [k, m] and b [m], drawn in that order."""
    return (torch.randn(n, k, generator=rng, dtype=dtype), torch.randn(k, m, generator=rng, dtype=dtype),
            torch.randn(m, generator=rng, dtype=dtype))


@pytest.mark.points(4)
def test_inspect_graph_random(student, reference, probes, rng):
    """inspect_graph agrees with the reference on random shapes in float32 and float64"""
    for n, k, m in SHAPES:
        for dtype in (torch.float32, torch.float64):
            x, w, b = _layer_inputs(rng, n, k, m, dtype)
            assert_close(student(probes.inspect_graph, x, w, b), reference(probes.inspect_graph, x, w, b),
                         name=f"inspect_graph for {dtype} x of shape {(n, k)} and w of shape {(k, m)}")


@pytest.mark.points(3)
def test_scaled_grads_random(student, reference, probes, rng):
    """scaled_grads agrees with the reference for random scales, shapes and dtypes"""
    for n, k, m in SHAPES:
        for dtype in (torch.float32, torch.float64):
            x, w, b = _layer_inputs(rng, n, k, m, dtype)
            scale = float(torch.empty(()).uniform_(-3.0, 3.0, generator=rng))
            assert_close(student(probes.scaled_grads, x, w, b, scale), reference(probes.scaled_grads, x, w, b, scale),
                         name=f"scaled_grads for {dtype} x of shape {(n, k)} and w of shape {(k, m)}")
