import pytest

from autograder.judge.checks import assert_equal, assert_true


@pytest.mark.points(3)
@pytest.mark.hint("Call fn once untimed (warm-up), then time repeat calls one by one with time.perf_counter() "
                  "and return the median of those durations in seconds (not the minimum, not the mean).")
def test_time_op_counts_and_median(student, probes):
    """time_op warms up once, calls fn repeat more times and returns the median duration"""
    # on a fake clock (exact, whatever the load): the median of the timed calls 0.05 s; with the warm-up in it 0.125 s,
    # their mean 0.0867 s, the fastest 0.01 s, a total over all four calls 0.56 s
    got = student(probes.time_sleeps, [0.3, 0.01, 0.05, 0.2], 3)
    assert_equal(got["calls"], 4, name="the number of calls time_op made with repeat=3")
    t = got["t"]
    assert_true(type(t) is float and abs(t - 0.05) < 1e-6,
                f"time_op returned {t!r}; with a 0.3 s warm-up call and timed calls of 0.01, 0.05 and 0.2 s (a fake "
                "clock) the median of the timed calls is 0.05 s (with the warm-up in it: 0.125 s; the mean: 0.0867 s).")
