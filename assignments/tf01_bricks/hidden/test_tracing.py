import pytest
import torch

from autograder.judge.checks import assert_close

FUNCS = ["double", "square", "plus_one"]


def _calls(rng, k):
    """k arguments: float32/float64/int32 tensors of a few lengths (repeats included) and Python numbers."""
    calls = []
    for _ in range(k):
        kind = int(torch.randint(0, 4, (), generator=rng))
        n = int(torch.randint(1, 4, (), generator=rng))
        if kind == 0:
            calls.append(("float", float(torch.randint(0, 3, (), generator=rng))))
        elif kind == 1:
            calls.append(("int", int(torch.randint(0, 3, (), generator=rng))))
        else:
            dtype = ["float32", "float64", "int32"][int(torch.randint(0, 3, (), generator=rng))]
            calls.append(("tensor", torch.randint(-5, 5, (n,), generator=rng).tolist(), dtype))
    return calls


def _shape(rng):
    rank = int(torch.randint(1, 3, (), generator=rng))
    return tuple(int(s) for s in torch.randint(1, 4, (rank,), generator=rng))


@pytest.mark.points(4)
def test_make_traced_random_calls(student, reference, probes, rng):
    """make_traced: the outputs and trace counts of random call sequences agree with the reference"""
    for name in FUNCS:
        calls = _calls(rng, 12)
        got, want = student(probes.traced, name, calls), reference(probes.traced, name, calls)
        assert_close(got, want, name=f"make_traced({name}) over a sequence of 12 calls (its results and len(traces))")


@pytest.mark.points(4)
def test_call_counter_random(student, reference, probes, rng):
    """CallCounter: outputs and counts agree with the reference over calls of new and repeated shapes"""
    for k in (3, 8):
        xs = [torch.randn(_shape(rng), generator=rng) for _ in range(k)]
        got, want = student(probes.call_counter, xs), reference(probes.call_counter, xs)
        assert_close(got, want, name=f"a fresh CallCounter over {k} calls (results, calls after each)", rtol=1e-5, atol=1e-6)
