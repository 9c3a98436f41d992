import numpy as np
import pytest

from autograder.judge.checks import assert_close, assert_equal, assert_true, tf_device


@pytest.mark.points(2)
@pytest.mark.hint("Create both variables inside `with tf.device(device):`: tf.Variable(tf.zeros([2, 1])) and "
                  "tf.Variable(tf.zeros([1])).")
def test_make_linear_small(student, probes):
    """make_linear('/CPU:1'): two zero float32 variables of shapes [2, 1] and [1] on CPU:1"""
    got = student(probes.make_linear, "/CPU:1")
    assert_true(isinstance(got, list) and len(got) == 2, "make_linear(device) should return a pair (w, b).")
    for name, v, shape in (("w", got[0], [2, 1]), ("b", got[1], [1])):
        assert_true(v.get("type") == "Variable", f"{name} should be a tf.Variable, but it is a {v.get('type')}.")
        assert_equal(v["shape"], shape, name=f"the shape of {name}")
        assert_equal(v["dtype"], "float32", name=f"the dtype of {name}")
        assert_close(v["value"], np.zeros(shape, np.float32), name=f"the starting value of {name}")
        assert_equal(tf_device(v["device"]), "/device:CPU:1", name=f"the device of {name} made by make_linear('/CPU:1')")


@pytest.mark.points(3)
@pytest.mark.hint("Loss: tf.reduce_mean((y - (X @ w + b)) ** 2) / 2 under a tf.GradientTape, all inside "
                  "`with tf.device(device):`; then w.assign_sub(lr * dw) and b.assign_sub(lr * db).")
def test_linreg_step_small(student, probes):
    """two steps of linreg_step on 4 points, on /device:CPU:2"""
    X = np.array([[1.0, 2.0], [-1.0, 0.5], [0.0, 0.0], [2.0, -1.0]], np.float32)
    y = np.array([[-1.0], [3.0], [3.0], [10.0]], np.float32)
    w, b = np.array([[0.5], [0.0]], np.float32), np.array([1.0], np.float32)
    got = student(probes.linreg_steps, X, y, w, b, 0.1, "/device:CPU:2", 2)
    for step in range(2):
        err = X @ w + b - y
        loss = np.mean(err ** 2) / 2
        w, b = w - 0.1 * X.T @ err / len(X), b - 0.1 * err.mean(axis=0)
        out = got["losses"][step]
        assert_true(out.get("type") == "Tensor" and out["shape"] == [],
                    f"linreg_step should return the loss as a scalar tf.Tensor, but it returned {out.get('type')} "
                    f"of shape {out.get('shape')}.")
        assert_close(out["value"], np.array(loss, np.float32), name=f"the loss of step {step + 1}")
        assert_equal(tf_device(out["device"]), "/device:CPU:2", name=f"the device of the loss of linreg_step(..., '/device:CPU:2')")
    assert_close(got["w"]["value"], w, name="w after two steps (updated in place)")
    assert_close(got["b"]["value"], b, name="b after two steps (updated in place)")
