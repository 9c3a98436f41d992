import pytest

from autograder.judge.checks import assert_equal, assert_scalar, assert_true


@pytest.mark.points(5)
@pytest.mark.hint("One untimed warm-up call, then read time.perf_counter() around `repeats` calls and "
                  "return the average per call in seconds; synchronise only for CUDA devices.")
def test_time_it_and_time_matmul_cpu(student, probes):
    """time_it averages over the timed calls; time_matmul returns seconds"""
    got = student(probes.time_it_trace, "cpu", 4, 0.5)
    assert_equal(got["events"].count("fn"), 5, name="the number of calls of fn by time_it(fn, 'cpu', repeats=4)")
    assert_scalar(got["result"], 0.5, name="time_it(fn, 'cpu', 4) for an fn that takes 0.5 s per call", kind=float)
    got = student(probes.time_matmul, 64, "cpu", 2)
    r = got["result"]
    assert_true(type(r) is float and r > 0,
                f"time_matmul(64, 'cpu', 2) should return a positive Python float (seconds), but it returned {r!r}.")
