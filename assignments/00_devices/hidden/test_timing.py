import pytest
import torch

from autograder.judge.checks import assert_equal, assert_scalar, assert_true


def _timed_window(events):
    """Indices of the first and last clock reads."""
    clocks = [i for i, e in enumerate(events) if e == "clock"]
    return (clocks[0], clocks[-1]) if len(clocks) >= 2 else (None, None)


def _check_trace(got, repeats, step, name):
    events = got["events"]
    r = 3 if repeats is None else repeats
    assert_equal(events.count("fn"), r + 1, name=f"the number of calls of fn by {name} (warm-up included)")
    first, last = _timed_window(events)
    assert_true(first is not None, f"{name} should read time.perf_counter() before and after the timed calls.")
    assert_true(events.index("fn") < first, f"{name} should call fn once (warm-up) before starting the clock.")
    assert_equal(events[first:last].count("fn"), r, name=f"the number of timed calls of fn by {name}")
    assert_scalar(got["result"], step, rtol=1e-9, kind=float,
                  name=f"{name} for an fn that takes {step} s per call on the test's clock (time.perf_counter, "
                       "time.time, time.monotonic or timeit.default_timer; a clock of your own is not seen)")
    return events, first, last


@pytest.mark.points(4)
def test_time_it_synchronises_on_cuda(student, probes):
    """time_it synchronises after the warm-up and after the timed calls on CUDA"""
    for device, repeats, step in [("cuda", 3, 0.25), (torch.device("cuda", 0), 5, 0.5), ("cuda", None, 0.125)]:
        name = f"time_it(fn, {str(device)!r}, {repeats})" if repeats else f"time_it(fn, {str(device)!r})"
        events, first, last = _check_trace(student(probes.time_it_trace, device, repeats, step), repeats, step, name)
        last_fn = max(i for i, e in enumerate(events) if e == "fn")
        assert_true("sync" in events[last_fn:last],
                    f"{name} reads the clock before torch.cuda.synchronize(): the GPU may still be working.")
        warm = events.index("fn")
        assert_true("sync" in events[warm:first],
                    f"{name} starts the clock without synchronising after the warm-up.")


@pytest.mark.points(3)
def test_time_it_cpu(student, probes):
    """time_it on the CPU: average over `repeats` timed calls, no CUDA calls"""
    for repeats, step in [(1, 0.5), (2, 0.25), (6, 1.0), (None, 0.75)]:
        name = f"time_it(fn, 'cpu', {repeats})" if repeats else "time_it(fn, 'cpu')"
        events, _, _ = _check_trace(student(probes.time_it_trace, "cpu", repeats, step), repeats, step, name)
        assert_true("sync" not in events,
                    f"{name} calls torch.cuda.synchronize(), which raises on a machine without CUDA.")


def _check_matmul(got, n, repeats, device, name):
    r = 3 if repeats is None else repeats
    res = got["result"]
    assert_true(type(res) is float and res >= 0, f"{name} should return seconds as a Python float, but returned {res!r}.")
    mms = [m for m in got["matmuls"] if len(m["shapes"]) >= 2 and all(s == [n, n] for s in m["shapes"][-2:])]
    assert_equal(len(mms), r + 1, name=f"the number of {n}x{n} matmuls run by {name} (warm-up included)")
    for m in mms:
        assert_equal(sorted({d.split(":")[0] for d in m["devices"]}), [torch.device(device).type],
                     name=f"the device of the matrices multiplied by {name}")
        assert_equal(m["dtypes"][-1], torch.float32, name=f"the dtype of the matrices multiplied by {name}")
    assert_true(got["cuda_calls"] == 0, f"{name} calls .cuda(); create the matrices with device=device.")


@pytest.mark.points(4)
def test_time_matmul(student, probes, device):
    """time_matmul multiplies n x n float32 matrices on the device, warm-up included"""
    for n, repeats in [(64, 2), (100, None), (32, 4)]:
        name = f"time_matmul({n}, {device!r}{', ' + str(repeats) if repeats else ''})"
        got = student(probes.time_matmul, n, device, repeats)
        _check_matmul(got, n, repeats, device, name)
        if device == "cuda":
            assert_true(got["syncs"] >= 2, f"{name} should call torch.cuda.synchronize() after the warm-up and after the timed calls.")
        else:
            assert_equal(got["syncs"], 0, name=f"the number of torch.cuda.synchronize() calls by {name}")


@pytest.mark.points(2)
def test_time_matmul_keeps_device(student, probes):
    """time_matmul creates its matrices on the requested device, not on the CPU followed by a copy (checked on 'meta')"""
    for n, repeats in [(128, 2), (48, None)]:
        name = f"time_matmul({n}, 'meta'{', ' + str(repeats) if repeats else ''})"
        got = student(probes.time_matmul, n, "meta", repeats)
        _check_matmul(got, n, repeats, "meta", name)
        copied = [s for s in got["uploads"] if s == [n, n]]
        assert_true(not copied, f"{name} made {len(copied)} {n}x{n} matrices on the CPU and copied them to the device: "
                                "create them there directly (torch.randn(n, n, device=device)), a copy costs time.")
