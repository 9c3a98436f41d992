import pytest

from autograder.judge.checks import assert_equal, assert_true


@pytest.mark.points(3)
def test_time_op_warm_up_and_median(student, probes, rng, helpers):
    """time_op warms up once, then returns the median of `repeat` timed calls (a slow warm-up and one slow call ignored)"""
    repeat = helpers.randint(rng, 3, 4)
    fast, mid = 0.01, 0.04
    sleeps = [0.15] + [fast] + [mid] * (repeat - 1)  # warm-up, then one fast call and the rest at `mid`
    got = student(probes.time_sleeps, sleeps, repeat)
    assert_true(type(got) is dict and {"calls", "t"} <= set(got), f"time_op gave no answer ({type(got).__name__}).")
    assert_equal(got["calls"], repeat + 1, name=f"the number of calls time_op made with repeat={repeat}")
    t = got["t"]
    assert_true(type(t) is float and mid <= t < mid + 0.03,
                f"time_op returned {t!r}; with a {sleeps[0]} s warm-up and timed calls of {sleeps[1:]} s the median of the "
                f"timed calls is about {mid} s.")


@pytest.mark.points(2)
def test_time_op_reads_every_result(student, probes, rng, helpers):
    """time_op reads each call's result (.numpy()) before the next call, the warm-up's too"""
    repeat = helpers.randint(rng, 2, 5)
    assert_equal(student(probes.time_result_used, repeat), ["call", "read"] * (repeat + 1),
                 name=f"the order of time_op's calls of fn and reads of their results with repeat={repeat}")
