import pytest
import torch

from autograder.judge.checks import assert_equal, assert_scalar, assert_true


def _check_trace(got, repeats, step, name, cuda=False):
    """The result is right only for a time_it that warms up (the first call of fn is 10 times slower), times
    `repeats` calls and averages them, and on CUDA synchronises after the warm-up and before reading the clock
    again (the fake GPU's work reaches the clock only then): the value is the evidence, not the order of calls."""
    why = ("one untimed warm-up call, then the average of `repeats` timed calls"
           + ("; torch.cuda.synchronize() after the warm-up and before each clock read, since the GPU runs "
              "asynchronously" if cuda else ""))
    assert_scalar(got["result"], step, rtol=1e-9, kind=float,
                  name=f"{name} for an fn that takes {step} s per call, 10 times that the first time, on the test's clock "
                       f"(time.perf_counter, time.time, time.monotonic or timeit.default_timer; a clock of your own is not "
                       f"seen). Expected: {why}")


@pytest.mark.points(4)
def test_time_it_synchronises_on_cuda(student, probes):
    """time_it synchronises after the warm-up and after the timed calls on CUDA (a fake asynchronous GPU)"""
    for device, repeats, step in [("cuda", 3, 0.25), (torch.device("cuda", 0), 5, 0.5), ("cuda", None, 0.125)]:
        name = f"time_it(fn, {str(device)!r}, {repeats})" if repeats else f"time_it(fn, {str(device)!r})"
        _check_trace(student(probes.time_it_trace, device, repeats, step), repeats, step, name, cuda=True)


@pytest.mark.points(3)
def test_time_it_cpu(student, probes):
    """time_it on the CPU: average over `repeats` timed calls after a warm-up, no CUDA calls"""
    for repeats, step in [(1, 0.5), (2, 0.25), (6, 1.0), (None, 0.75)]:
        name = f"time_it(fn, 'cpu', {repeats})" if repeats else "time_it(fn, 'cpu')"
        _check_trace(student(probes.time_it_trace, "cpu", repeats, step), repeats, step, name)


def _check_matmul(got, n, repeats, device, name):
    r = 3 if repeats is None else repeats
    res = got["result"]
    assert_true(type(res) is float and res >= 0, f"{name} should return seconds as a Python float, but returned {res!r}.")
    mms = [m for m in got["matmuls"] if len(m["shapes"]) >= 2 and all(s == [n, n] for s in m["shapes"][-2:])]
    assert_true(len(mms) >= r, f"{name} ran {len(mms)} {n}x{n} matrix products, expected {r} timed ones and a warm-up.")
    for m in mms:
        assert_equal(sorted({d.split(":")[0] for d in m["devices"]}), [torch.device(device).type],
                     name=f"the device of the matrices multiplied by {name}")
        assert_equal(m["dtypes"][-1], torch.float32, name=f"the dtype of the matrices multiplied by {name}")


@pytest.mark.points(4)
def test_time_matmul(student, probes, device):
    """time_matmul multiplies n x n float32 matrices on the device, warm-up included"""
    for n, repeats in [(64, 2), (100, None), (32, 4)]:
        name = f"time_matmul({n}, {device!r}{', ' + str(repeats) if repeats else ''})"
        got = student(probes.time_matmul, n, device, repeats)
        _check_matmul(got, n, repeats, device, name)


@pytest.mark.points(2)
def test_time_matmul_keeps_device(student, probes):
    """time_matmul multiplies its matrices on the requested device (checked on 'meta')"""
    for n, repeats in [(128, 2), (48, None)]:
        name = f"time_matmul({n}, 'meta'{', ' + str(repeats) if repeats else ''})"
        got = student(probes.time_matmul, n, "meta", repeats)
        _check_matmul(got, n, repeats, "meta", name)
