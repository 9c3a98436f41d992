import pytest

from autograder.judge.checks import assert_equal, assert_true


@pytest.mark.points(2)
@pytest.mark.hint("Call fn once untimed (warm-up), then time `repeat` calls one by one with time.perf_counter() around the call "
                  "and its .numpy(), and return statistics.median of those durations.")
def test_time_op_counts_and_median(student, probes):
    """time_op warms up once, calls fn repeat more times and returns the median duration"""
    got = student(probes.time_sleeps, [0.3, 0.01, 0.05, 0.2], 3)  # on a fake clock: exact, whatever the load
    assert_true(type(got) is dict and {"calls", "t"} <= set(got), f"time_op gave no answer ({type(got).__name__}).")
    assert_equal(got["calls"], 4, name="the number of calls time_op made with repeat=3")
    t = got["t"]
    assert_true(type(t) is float and abs(t - 0.05) < 1e-6,
                f"time_op returned {t!r}; with a 0.3 s warm-up and timed calls of 0.01, 0.05 and 0.2 s (a fake clock) the "
                "median of the timed calls is 0.05 s (with the warm-up in it: 0.125 s; the mean: 0.0867 s).")


@pytest.mark.points(1)
@pytest.mark.hint("Read every result with .numpy() inside the timed region (a GPU op returns before it finishes).")
def test_time_op_reads_results(student, probes):
    """time_op reads each result before the next call"""
    assert_equal(student(probes.time_result_used, 2), ["call", "read"] * 3, name="the order of calls and reads with repeat=2")
