import statistics

import pytest
import torch

from autograder.judge.checks import assert_equal, assert_true


@pytest.mark.points(3)
def test_time_op_warm_up_and_median(student, probes, rng, helpers):
    """time_op warms up once, then returns the median of `repeat` timed calls, on a fake clock (exact, whatever the
    load): the warm-up and one slow timed call are left out by the median alone, so a median with the warm-up in
    it, a mean, or a single call's time differ from it"""
    repeat = helpers.randint(rng, 3, 6)
    # distinct durations on a 0.01 s grid with one slow call (0.5 s) among them and a slower warm-up (1 s): with the
    # warm-up in, the median moves to another pair of values (>= 5 ms away); the mean is >= 0.108 s, above every
    # median (<= 0.09 s)
    fast = [0.01 * (1 + int(i)) for i in torch.randperm(9, generator=rng)[:repeat - 1]]
    timed = fast[:]
    timed.insert(helpers.randint(rng, 0, repeat - 1), 0.5)
    sleeps = [1.0] + timed
    want = statistics.median(timed)
    got = student(probes.time_sleeps, sleeps, repeat)
    assert_true(type(got) is dict and {"calls", "t"} <= set(got), f"time_op gave no answer ({type(got).__name__}).")
    assert_equal(got["calls"], repeat + 1, name=f"the number of calls time_op made with repeat={repeat}")
    t = got["t"]
    assert_true(type(t) is float and abs(t - want) < 1e-6,
                f"time_op returned {t!r}, not the median of the {repeat} timed calls (on a fake clock, where the warm-up "
                "and one timed call are slow): leave the warm-up out, and take the median (statistics.median), not the mean.")


@pytest.mark.points(2)
def test_time_op_reads_every_result(student, probes, rng, helpers):
    """time_op reads each call's result (.numpy()) before the next call, the warm-up's too"""
    repeat = helpers.randint(rng, 2, 5)
    assert_equal(student(probes.time_result_used, repeat), ["call", "read"] * (repeat + 1),
                 name=f"the order of time_op's calls of fn and reads of their results with repeat={repeat}")
