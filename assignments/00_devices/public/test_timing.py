import pytest

from autograder.judge.checks import advise, assert_scalar, assert_true


@pytest.mark.points(5)
@pytest.mark.hint("One untimed warm-up call, then read time.perf_counter() around `repeats` calls and "
                  "return the average per call in seconds; synchronise only for CUDA devices.")
def test_time_it_and_time_matmul_cpu(student, probes):
    """time_it averages over the timed calls; time_matmul returns seconds"""
    got = student(probes.time_it_trace, "cpu", 4, 0.5)
    assert_scalar(got["result"], 0.5, kind=float,
                  name="time_it(fn, 'cpu', 4) for an fn that takes 0.5 s per call (5 s the first time: the warm-up's job)")
    got = student(probes.time_matmul, 64, "cpu", 2)
    r = got["result"]
    assert_true(type(r) is float and r > 0,
                f"time_matmul(64, 'cpu', 2) should return a positive Python float (seconds), but it returned {r!r}.")


@pytest.mark.points(0)
def test_advice_matrices_made_on_the_device(student, probes):
    """advice: time_matmul creates its matrices on the device, not on the CPU followed by a copy"""
    got = student(probes.time_matmul, 48, "meta", 2)
    copied = [s for s in got["uploads"] if s == [48, 48]]
    advise(not copied, f"time_matmul(48, 'meta', 2) made {len(copied)} matrices on the CPU and copied them to the device: "
                       "create them there directly (torch.randn(n, n, device=device)), a copy costs time.")
    advise(got["cuda_calls"] == 0, "time_matmul calls .cuda(); create the matrices with device=device.")
    mms = [m for m in got["matmuls"] if len(m["shapes"]) >= 2 and all(s == [48, 48] for s in m["shapes"][-2:])]
    advise(len(mms) == 3, f"time_matmul(48, 'meta', 2) ran {len(mms)} matrix products: one warm-up and `repeats` timed ones "
                          "(time them with your time_it).")
