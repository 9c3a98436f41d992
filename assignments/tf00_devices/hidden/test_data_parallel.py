import numpy as np
import pytest
import torch

from autograder.judge.checks import assert_close, assert_equal, assert_true, tf_device

TARGET = {"cpu": "/device:CPU:1", "cuda": "/device:GPU:0"}  # the `device` variant's device; CPU:1 is a logical CPU
CPUS = ["/device:CPU:0", "/device:CPU:1", "/device:CPU:2"]


def _sizes(n, k):
    return [n // k + (1 if i < n % k else 0) for i in range(k)]


def _check(got, exp, whole, first, rest, want, devices, call):
    assert_true(first in got, f"{call} should return a pair (result, list of the per-device pieces), but it "
                              f"returned {got.get('shape_of_result')}.")
    pieces = got[rest]
    assert_true(isinstance(pieces, list) and len(pieces) == len(devices)
                and all(isinstance(p, dict) and p.get("type") == "Tensor" for p in pieces),
                f"{call}: the pieces should be a list of {len(devices)} tf.Tensors, one per device, in the order of the devices.")
    for i, (p, e) in enumerate(zip(pieces, exp[rest])):
        assert_equal(p["shape"], e["shape"], name=f"the shape of {rest}[{i}] of {call}")
        assert_close(p["value"], e["value"], name=f"{rest}[{i}] of {call}", rtol=1e-5, atol=1e-4)
        assert_equal(tf_device(p["device"]), tf_device(e["device"]), name=f"the device of {rest}[{i}] of {call}")
    result = got[first]
    assert_true(result.get("type") == "Tensor", f"{call}: {first} should be a tf.Tensor, but it is a {result.get('type')}.")
    assert_equal(result["shape"], exp[first]["shape"], name=f"the shape of {first} of {call}")
    assert_close(result["value"], want, name=f"{first} of {call} (what one device computes)", rtol=1e-4, atol=1e-3,
                 check_dtype=False)
    assert_close(result["value"], exp[first]["value"], name=f"{first} of {call}", rtol=1e-5, atol=1e-4)
    assert_equal(tf_device(result["device"]), tf_device(exp[first]["device"]), name=f"the device of {first} of {call}")


def _draws(rng):
    """(n rows, devices): uneven splits, each logical CPU first in turn, two and three devices, one device."""
    return [(10, [CPUS[1], CPUS[2], CPUS[0]]), (int(torch.randint(7, 40, (1,), generator=rng)), [CPUS[2], CPUS[0], CPUS[1]]),
            (int(torch.randint(3, 20, (1,), generator=rng)) * 2 + 1, [CPUS[2], CPUS[1]]), (5, [CPUS[1]]),
            (int(torch.randint(3, 30, (1,), generator=rng)), [CPUS[0], CPUS[2], CPUS[1]])]


@pytest.mark.points(5)
def test_parallel_sum(student, reference, probes, rng):
    """parallel_sum over logical CPUs: each partial on its device, the total on the first, equal to one device's sum"""
    for n, devices in _draws(rng):
        x = torch.randn(n, 4, generator=rng) * 3
        call = f"parallel_sum(x of {n} rows, {devices})"
        _check(student(probes.parallel_sum, x, devices), reference(probes.parallel_sum, x, devices),
               x, "total", "partials", x.numpy().astype(np.float64).sum(axis=0), devices, call)


@pytest.mark.points(4)
def test_parallel_matmul(student, reference, probes, rng):
    """parallel_matmul over logical CPUs: each part on its device, C on the first, equal to A @ B"""
    for n, devices in _draws(rng):
        A, B = torch.randn(n, 6, generator=rng), torch.randn(6, 3, generator=rng)
        call = f"parallel_matmul(A of {n} rows, B, {devices})"
        _check(student(probes.parallel_matmul, A, B, devices), reference(probes.parallel_matmul, A, B, devices),
               A, "C", "parts", A.numpy().astype(np.float64) @ B.numpy().astype(np.float64), devices, call)


@pytest.mark.points(4)
def test_on_device(student, reference, probes, rng, device):
    """the device of this variant (a logical CPU, or the GPU where the grader has one) first, the CPUs after it"""
    devices = [TARGET[device], "/device:CPU:2", "/device:CPU:0"]
    x, A, B = torch.randn(11, 3, generator=rng), torch.randn(8, 5, generator=rng), torch.randn(5, 2, generator=rng)
    _check(student(probes.parallel_sum, x, devices), reference(probes.parallel_sum, x, devices), x, "total", "partials",
           x.numpy().astype(np.float64).sum(axis=0), devices, f"parallel_sum(x of 11 rows, {devices})")
    _check(student(probes.parallel_matmul, A, B, devices), reference(probes.parallel_matmul, A, B, devices), A, "C",
           "parts", A.numpy().astype(np.float64) @ B.numpy().astype(np.float64), devices, f"parallel_matmul(A of 8 rows, B, {devices})")


@pytest.mark.points(3)
def test_inputs_elsewhere(student, reference, probes, rng):
    """inputs living on another logical CPU than any of the devices: the work still runs where it is told"""
    devices = ["/device:CPU:1", "/device:CPU:0"]
    x = torch.randn(9, 2, generator=rng)
    _check(student(probes.parallel_sum, x, devices, "/device:CPU:2"), reference(probes.parallel_sum, x, devices, "/device:CPU:2"),
           x, "total", "partials", x.numpy().astype(np.float64).sum(axis=0), devices, f"parallel_sum(x of 9 rows on CPU:2, {devices})")


@pytest.mark.points(3)
def test_work_runs_on_the_devices(student, reference, probes, rng):
    """each chunk's reduction and product are computed on their devices (TensorFlow's record of the devices its ops
    ran on), not computed elsewhere and copied there"""
    for devices in ([CPUS[1], CPUS[2]], [CPUS[2], CPUS[1]]):
        x, A, B = torch.randn(9, 3, generator=rng), torch.randn(7, 4, generator=rng), torch.randn(4, 2, generator=rng)
        sums = x.numpy().astype(np.float64).sum(axis=0)
        products = A.numpy().astype(np.float64) @ B.numpy().astype(np.float64)
        for probe, args, call, keys in (
                (probes.parallel_sum, (x, devices), f"parallel_sum(x of 9 rows, {devices})", (x, "total", "partials", sums)),
                (probes.parallel_matmul, (A, B, devices), f"parallel_matmul(A of 7 rows, B, {devices})", (A, "C", "parts", products))):
            got, exp = student(probe, *args), reference(probe, *args)
            _check(got, exp, *keys, devices, call)  # the values and where they live first: no points for "how" alone
            assert_equal(got["ran_on"], exp["ran_on"],
                         name=f"the devices the sums and products of {call} ran on (compute each piece inside "
                              "`with tf.device(devices[i]):`, not elsewhere with a copy to it afterwards)")
