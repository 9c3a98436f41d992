import pytest

from autograder.judge.checks import assert_equal, assert_true


@pytest.mark.points(3)
@pytest.mark.hint("Call fn once untimed (warm-up), then time repeat calls one by one with time.perf_counter() "
                  "and return the median of those durations in seconds (not the minimum, not the mean).")
def test_time_op_counts_and_median(student, probes):
    """time_op warms up once, calls fn repeat more times and returns the median duration"""
    # a total over all four calls, or the warm-up's own time, is >= 0.1 s; the fastest timed call 0.01 s;
    # the mean of the timed calls 0.037 s; their median 0.05 s
    got = student(probes.time_sleeps, [0.1, 0.01, 0.05, 0.05], 3)
    assert_equal(got["calls"], 4, name="the number of calls time_op made with repeat=3")
    t = got["t"]
    assert_true(type(t) is float and 0.05 <= t < 0.08,
                f"time_op returned {t!r}; with a 0.1 s warm-up call and timed calls of 0.01, 0.05 and 0.05 s the "
                "median of the timed calls is about 0.05 s.")
