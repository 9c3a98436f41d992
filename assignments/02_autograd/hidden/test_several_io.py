import pytest
import torch

from autograder.judge.checks import assert_close

SHAPES = [((5,), (5,)), ((3, 4), (4,)), ((2, 3), (2, 3)), ((4, 1), (1, 3))]


@pytest.mark.points(5)
def test_multi_grads_random(student, reference, probes, rng):
    """multi_grads agrees with the reference on random and broadcastable inputs"""
    for name in ("prod_square", "mixed"):
        for sa, sb in SHAPES:
            for dtype in (torch.float32, torch.float64):
                a = torch.randn(sa, generator=rng, dtype=dtype)
                b = torch.randn(sb, generator=rng, dtype=dtype)
                got, want = student(probes.multi_grads, a, b, name), reference(probes.multi_grads, a, b, name)
                assert_close(got["result"], want["result"],
                             name=f"multi_grads({name}) for {dtype} inputs of shapes {sa} and {sb}")


@pytest.mark.points(2)
def test_unused_input_gives_zeros(student, reference, probes, rng):
    """an output that does not depend on an input gets a zero gradient of that input's shape"""
    for sa, sb in SHAPES[1:]:
        for dtype in (torch.float32, torch.float64):
            a = torch.randn(sa, generator=rng, dtype=dtype)
            b = torch.randn(sb, generator=rng, dtype=dtype)
            got, want = student(probes.multi_grads, a, b, "only_b"), reference(probes.multi_grads, a, b, "only_b")
            assert_close(got["result"], want["result"],
                         name=f"multi_grads when u does not use a ({dtype}, shapes {sa} and {sb})")
