import pytest
import torch

from autograder.judge.checks import assert_equal, assert_tensor, assert_true


@pytest.mark.points(3)
def test_median_not_mean(student, probes, rng, helpers):
    """time_op reports the median of the timed calls: one slow call among them does not move it"""
    # five timed calls of d and one of them 10 d: the median is d (sleeps only overshoot, and three of
    # the five would have to overshoot by 1.5 d to fail it); the mean is >= 14 d / 5 = 2.8 d
    d = helpers.randint(rng, 10, 20) / 1000
    repeat = 5
    slow = helpers.randint(rng, 1, repeat)
    sleeps = [d] + [10 * d if k == slow else d for k in range(1, repeat + 1)]
    got = student(probes.time_sleeps, sleeps, repeat)
    assert_equal(got["calls"], repeat + 1, name=f"the number of calls time_op made with repeat={repeat}")
    t = got["t"]
    assert_true(type(t) is float and d <= t < 2.5 * d,
                "time_op should return the median of the timed calls in seconds (robust to one slow call).")


@pytest.mark.points(2)
def test_warm_up_not_timed(student, probes, rng, helpers):
    """time_op's first call is a warm-up: not timed, and time_op calls fn exactly repeat + 1 times"""
    # a 0.25 s warm-up: timing it too puts a repeat=1 median at >= (0.25 + 0.005) / 2 > 0.1 (sleeps only
    # overshoot).  With more timed calls a timed warm-up no longer moves the median: that call checks the count.
    for repeat, warm_up in ((1, 0.25), (helpers.randint(rng, 2, 6), 0.005)):
        got = student(probes.time_sleeps, [warm_up] + [0.005] * repeat, repeat)
        assert_equal(got["calls"], repeat + 1, name=f"the number of calls time_op made with repeat={repeat}")
        t = got["t"]
        assert_true(type(t) is float and 0.005 <= t < 0.1,
                    "time_op's result should not include the untimed warm-up call.")


@pytest.mark.points(1)
def test_c_kernel_speed_sanity(student, probes, rng):
    """the C softmax is right and within a generous 50x of torch.softmax (timed by the probe, single-threaded)"""
    x = torch.randn(128, 256, generator=rng)
    got = student(probes.kernel_speed, x)
    assert_tensor(got["y"], torch.softmax(x, -1), name="c_softmax of a 128 x 256 float32 tensor")
    assert_true(got["c"] <= 50 * got["torch"] + 0.02,
                f"c_softmax took {got['c'] * 1e3:.2f} ms against torch.softmax's {got['torch'] * 1e3:.2f} ms "
                "on a 128 x 256 float32 tensor.")
