import pytest
import torch

from autograder.judge.checks import assert_close, assert_true

CASES = [((7,), "c"), ((3, 4), "c"), ((2, 3, 4), "c"), ((4, 3), "t"), ((3, 8), "s")]


@pytest.mark.points(3)
def test_straight_through_random(student, reference, probes, rng, laid_out):
    """straight_through_round: rounded values, identity gradient, on random shapes, layouts and dtypes"""
    for shape, layout in CASES:
        for dtype in (torch.float32, torch.float64):
            x = torch.randn(shape, generator=rng, dtype=dtype) * 4
            v = torch.randn(laid_out(x, layout).shape, generator=rng, dtype=dtype)
            assert_close(student(probes.straight_through, x, v, layout), reference(probes.straight_through, x, v, layout),
                         name=f"straight_through_round on a {layout}-layout {dtype} tensor of shape {shape}")


@pytest.mark.points(1)
def test_predict_random(student, reference, probes, rng):
    """predict agrees with the reference, records no graph and stays on the inputs' device"""
    for n, k, m in [(5, 3, 1), (2, 4, 3)]:
        for dtype in (torch.float32, torch.float64):
            w = torch.randn(k, m, generator=rng, dtype=dtype)
            x = torch.randn(n, k, generator=rng, dtype=dtype)
            assert_close(student(probes.predict, w, x), reference(probes.predict, w, x),
                         name=f"predict for {dtype} w of shape {(k, m)}")
            assert_close(student(probes.predict, w, x, "meta"), reference(probes.predict, w, x, "meta"),
                         name=f"predict for {dtype} w of shape {(k, m)} on 'meta' (a stand-in GPU): shape, dtype, device")


@pytest.mark.points(2)
def test_backward_twice_random(student, reference, probes, rng):
    """backward_twice agrees with the reference"""
    for name in ("poly", "logsumexp", "sin_mean"):
        for shape in [(5,), (3, 4)]:
            for dtype in (torch.float32, torch.float64):
                x = torch.randn(shape, generator=rng, dtype=dtype)
                got, want = student(probes.backward_twice, x, name), reference(probes.backward_twice, x, name)
                assert_close(got["grad"], want["grad"], name=f"backward_twice({name}) for a {dtype} tensor of shape {shape}")


WORK = 1  # units of fixed work f does per call (0.03-0.05 s each), as bench/once_ratio.py measured it (docs/performance.md)
PASS, FAIL, SPLIT = 1.35, 1.65, 1.5  # backward_twice's CPU over one f's: about 1 for f once, 2 for twice
FIRST, LAST = 2, 4  # tries pooled before a verdict, at the least and at the most


def once_or_more(got: float, once: float, tries: int) -> bool | None:
    """Whether backward_twice evaluated f once (True) or more (False), or not told yet (None), from `tries` tries'
    CPU seconds pooled: backward_twice's (`got`) and one f's measured beside it (`once`).  Never from one try: a
    slow moment of the machine (one try in a hundred and fifty reads 1.5 for f once, 1.25 for twice) is diluted
    by the next, and a pooled ratio in between is measured again rather than decided, so that it costs a correct
    notebook nothing and gives an f run twice no free point."""
    ratio = got / once
    if tries < FIRST:
        return None
    if ratio <= PASS:
        return True
    if ratio >= FAIL:
        return False
    return None if tries < LAST else ratio < SPLIT


@pytest.mark.points(1)
def test_backward_twice_runs_f_once(student, reference, probes, rng):
    """backward_twice evaluates f once: the CPU time the grader measures, with an f that costs a fixed amount of work per call"""
    x = torch.randn(3, 4, generator=rng, dtype=torch.float64)
    want = reference(probes.backward_twice_costly, x, "poly", 0)  # the same gradient: the master's CPU is not measured
    spent = once = 0.0
    for tries in range(1, LAST + 1):
        # one evaluation of f (and a backward), measured in the same worker right before and after: the yardstick
        before = student.cost(probes.costly_once, x, "poly", WORK)
        got = student.cost(probes.backward_twice_costly, x, "poly", WORK)
        after = student.cost(probes.costly_once, x, "poly", WORK)
        assert_close(got.value, want, name="backward_twice(poly) for a float64 tensor of shape (3, 4)")
        if got.cpu is None or before.cpu is None or after.cpu is None:  # the master's own answers: nothing to measure
            return
        spent, once = spent + got.cpu, once + (before.cpu + after.cpu) / 2
        verdict = once_or_more(spent, once, tries)
        if verdict is not None:
            break
    assert_true(verdict, f"backward_twice took {spent / tries:.3f} s of CPU time with an f that costs {once / tries:.3f} s "
                         "per call (and its backward): it calls f more than once. Keep the graph with retain_graph=True "
                         "instead of building it again.")
