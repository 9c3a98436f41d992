import numpy as np
import pytest

from autograder.judge.checks import assert_close, assert_equal, assert_true, tf_device


@pytest.mark.points(2)
@pytest.mark.hint("x.device is the full name; tf.DeviceSpec.from_string(x.device) gives its device_type and "
                  "device_index: build '/device:TYPE:INDEX' from them.")
def test_device_of_small(student, probes):
    """device_of on tensors and a variable on the logical CPUs"""
    for where, variable, expected in (("/device:CPU:2", False, "/device:CPU:2"), ("/CPU:1", False, "/device:CPU:1"),
                                      ("/device:CPU:1", True, "/device:CPU:1")):
        got = student(probes.device_of, [1.0, 2.0], where, None, variable)
        what = "a variable" if variable else "a tensor"
        assert_equal(got["got"], expected, name=f"device_of({what} made under tf.device({where!r}))")


@pytest.mark.points(3)
@pytest.mark.hint("tf.device(...) decides where operations run; it does not move an existing tensor. Inside "
                  "`with tf.device(device):` make a new tensor with tf.identity(x).")
def test_copy_to_small(student, probes):
    """copy_to from /device:CPU:2 to /CPU:1: a new tensor there, same values and dtype"""
    x = np.array([[1.5, -2.0], [3.0, 4.25]], dtype=np.float32)
    got = student(probes.copy_to, x, "/device:CPU:2", "/CPU:1")
    out = got["out"]
    assert_true(out.get("type") == "Tensor", f"copy_to should return a tf.Tensor, but it returned a {out.get('type')}.")
    assert_equal(tf_device(out["device"]), "/device:CPU:1", name="the device of copy_to(x on CPU:2, '/CPU:1')")
    assert_equal(out["dtype"], "float32", name="the dtype of the copy")
    assert_close(out["value"], x, name="the values of the copy")
    assert_equal(tf_device(got["input_device"]), "/device:CPU:2", name="the device of x after copy_to")
