import pytest
import torch

from autograder.judge.checks import assert_close, assert_equal, assert_true, tf_device

TARGET = {"cpu": "/device:CPU:1", "cuda": "/device:GPU:0"}  # the `device` variant's device; CPU:1 is a logical CPU


@pytest.mark.points(3)
def test_device_of(student, reference, probes, rng):
    """device_of on tensors and variables of several dtypes on each logical CPU"""
    for where, dtype, variable in (("/device:CPU:2", "float32", False), ("/CPU:0", "int32", False),
                                   ("/device:CPU:1", "float64", True), ("CPU:2", "float32", True), ("/cpu:1", "int64", False)):
        x = torch.randn(3, 2, generator=rng) * 10
        got = student(probes.device_of, x, where, dtype, variable)
        exp = reference(probes.device_of, x, where, dtype, variable)
        what = f"a {dtype} {'variable' if variable else 'tensor'} made under tf.device({where!r})"
        assert_equal(got["got"], exp["got"], name=f"device_of({what})")


def _check_copy(got, exp, x_source, target, name):
    out = got["out"]
    assert_true(out.get("type") == "Tensor", f"{name} should return a tf.Tensor, but it returned a {out.get('type')}.")
    assert_equal(tf_device(out["device"]), tf_device(exp["out"]["device"]), name=f"the device of {name}")
    assert_equal(out["dtype"], exp["out"]["dtype"], name=f"the dtype of {name}")
    assert_equal(out["shape"], exp["out"]["shape"], name=f"the shape of {name}")
    assert_close(out["value"], exp["out"]["value"], name=f"the values of {name}")
    assert_equal(tf_device(got["input_device"]), tf_device(exp["input_device"]), name=f"the device of x after {name}")


@pytest.mark.points(4)
def test_copy_between_logical_cpus(student, reference, probes, rng):
    """copy_to between every pair of logical CPUs, in several spellings and dtypes"""
    cases = [("/device:CPU:0", "/device:CPU:2", "float32"), ("/device:CPU:2", "CPU:1", "float64"),
             ("/device:CPU:1", "/cpu:0", "int32"), ("/device:CPU:1", "/device:CPU:1", "float32"),
             ("/device:CPU:2", "/job:localhost/replica:0/task:0/device:CPU:0", "float32")]
    for source, target, dtype in cases:
        x = torch.randn(4, 3, generator=rng) * 5
        name = f"copy_to(x on {source}, {target!r})"
        _check_copy(student(probes.copy_to, x, source, target, dtype), reference(probes.copy_to, x, source, target, dtype),
                    source, target, name)


@pytest.mark.points(3)
def test_copy_to_device(student, reference, probes, rng, device):
    """copy_to onto the device of this variant (a logical CPU, or the GPU where the grader has one)"""
    target = TARGET[device]
    for source in ("/device:CPU:0", "/device:CPU:2"):
        x = torch.randn(2, 5, generator=rng)
        _check_copy(student(probes.copy_to, x, source, target), reference(probes.copy_to, x, source, target),
                    source, target, f"copy_to(x on {source}, {target!r})")
