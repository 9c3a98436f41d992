import pytest
import torch

from autograder.judge.checks import assert_equal, assert_tensor, assert_true


@pytest.mark.points(3)
def test_median_not_mean(student, probes, rng, helpers):
    """time_op reports the median of the timed calls: neither the fastest nor the mean"""
    # five timed calls of d, d, 4 d, 4 d and 20 d (on a fake clock) in a random order: the median is 4 d; the minimum
    # is d, the mean 6 d
    d = helpers.randint(rng, 10, 20) / 1000
    timed = [d, d, 4 * d, 4 * d, 20 * d]
    order = torch.randperm(len(timed), generator=rng).tolist()
    got = student(probes.time_sleeps, [d] + [timed[k] for k in order], len(timed))
    assert_equal(got["calls"], len(timed) + 1, name=f"the number of calls time_op made with repeat={len(timed)}")
    t = got["t"]
    assert_true(type(t) is float and abs(t - 4 * d) < 1e-6,  # a fake clock: exact (up to the rounding of its sums)
                f"time_op returned {t!r} for timed calls of {', '.join(f'{timed[k]:.3f}' for k in order)} s: it "
                "should return their median in seconds (robust to one slow call, unlike the mean; not the fastest).")


@pytest.mark.points(2)
def test_warm_up_not_timed(student, probes, rng, helpers):
    """time_op's first call is a warm-up: not timed, and time_op calls fn exactly repeat + 1 times"""
    # a 0.25 s warm-up (on a fake clock): timing it too puts a repeat=1 median at (0.25 + 0.005) / 2.  With more timed
    # calls a timed warm-up no longer moves the median: that call checks the count.
    for repeat, warm_up in ((1, 0.25), (helpers.randint(rng, 2, 6), 0.005)):
        got = student(probes.time_sleeps, [warm_up] + [0.005] * repeat, repeat)
        assert_equal(got["calls"], repeat + 1, name=f"the number of calls time_op made with repeat={repeat}")
        t = got["t"]
        assert_true(type(t) is float and abs(t - 0.005) < 1e-6,  # a fake clock: exact
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


@pytest.mark.points(1)
def test_time_op_synchronises(student, probes, rng, helpers, kernel_device):
    """on a CUDA input time_op calls torch.cuda.synchronize before and after each timed call (without a GPU: an
    input that says it is on CUDA, with synchronize recorded)"""
    repeat = helpers.randint(rng, 2, 5)
    got = student(probes.time_synchronised, kernel_device, repeat)
    events = got["events"]
    calls = [k for k, e in enumerate(events) if e == "call"]
    assert_equal(len(calls), repeat + 1, name=f"the number of calls time_op made with repeat={repeat}")
    unsynced = [n for n, k in enumerate(calls[1:], 1)
                if k == 0 or events[k - 1] != "sync" or k + 1 >= len(events) or events[k + 1] != "sync"]
    assert_true(not unsynced, f"On a CUDA input, time_op should call torch.cuda.synchronize() right before and right "
                              f"after each timed call (kernels run asynchronously); its calls were: {' '.join(events)}.")
