import numpy as np
import pytest

from autograder.judge.checks import advise, assert_close, assert_equal, assert_true

X = np.array([[1.0, -2.0, 0.5, 3.0, 0.0], [0.0, 1.0, -1.0, 2.0, -0.5], [2.0, 0.0, 1.0, -1.0, 1.5],
              [-1.0, 1.0, 1.0, 1.0, 1.0]], dtype="float32")
KERNEL = (np.arange(15, dtype="float32").reshape(5, 3) - 7.0) / 10.0
BIAS = np.array([0.5, -0.25, 0.0], dtype="float32")


def dense(x, kernel, bias, activation=None):
    """What keras.layers.Dense computes, in numpy (float32 like the layer)."""
    y = (x.astype("float64") @ kernel.astype("float64") + bias).astype("float32")
    return np.maximum(y, 0) if activation == "relu" else y


@pytest.mark.points(3)
@pytest.mark.hint("build(input_shape) creates kernel (input_shape[-1], units) then bias (units,) with self.add_weight; "
                  "call computes inputs @ kernel + bias over the last axis.")
def test_dense_values_on_inputs_of_any_width(student, probes):
    """MyDense(3) on inputs 5 wide, then 2 wide and a 3-D input: weights' shapes and outputs"""
    got = student(probes.dense_run, 3, None, X, KERNEL, BIAS)
    assert_equal(got["weights"], [["kernel", [5, 3], True], ["bias", [3], True]],
                 name="the layer's weights after its first call on a [4, 5] input ([name, shape, trainable])")
    assert_close(got["out"], dense(X, KERNEL, BIAS), name="MyDense(3) on a [4, 5] input")
    narrow = X[:, :2]
    got = student(probes.dense_run, 3, None, narrow, KERNEL[:2], BIAS)
    assert_close(got["out"], dense(narrow, KERNEL[:2], BIAS),
                 name="MyDense(3) on a [4, 2] input (the layer must take its width from the input, in build)")
    deep = X.reshape(2, 2, 5)
    got = student(probes.dense_run, 3, None, deep, KERNEL, BIAS)
    assert_close(got["out"], dense(deep, KERNEL, BIAS), name="MyDense(3) on a [2, 2, 5] input")


@pytest.mark.points(2)
@pytest.mark.hint("Apply self.activation to the result; get_config returns super().get_config() updated with units "
                  "and keras.activations.serialize(self.activation).")
def test_relu_and_config_round_trip(student, probes):
    """MyDense(3, "relu"): its output, its config, and MyDense.from_config(config) on the same weights"""
    got = student(probes.dense_run, 3, "relu", X, KERNEL, BIAS)
    assert_close(got["out"], dense(X, KERNEL, BIAS, "relu"), name='MyDense(3, activation="relu") on a [4, 5] input')
    assert_equal(got["config"], {"units": 3, "activation": "relu"}, name="the layer's config")
    assert_close(got["clone_out"], got["out"], name="the layer made from the config, with the same weights")


@pytest.mark.points(1)
@pytest.mark.hint('Pass initializer="glorot_uniform" for the kernel and initializer="zeros" for the bias to add_weight.')
def test_initial_weights(student, probes):
    """a new MyDense(4) built on an input 6 wide: kernel uniform within the Glorot bound, bias zeros"""
    got = student(probes.dense_run, 4, None, np.ones((2, 6), "float32"))
    kernel, bias = got["init"]
    bound = np.sqrt(6.0 / (6 + 4))
    assert_true(type(kernel) is np.ndarray and kernel.shape == (6, 4) and bool(np.all(np.abs(kernel) <= bound))
                and float(kernel.std()) > bound / 4,
                f"the kernel's initial values should be drawn uniformly from [-{bound:.3f}, {bound:.3f}] (Glorot uniform)")
    assert_close(bias, np.zeros(4, "float32"), name="the bias's initial value")


@pytest.mark.points(0)
def test_advice_no_weights_before_the_first_call(student, probes):
    """Advice: the weights are made in build, when the layer first sees an input"""
    got = student(probes.dense_run, 3, None, X, KERNEL, BIAS)
    advise(got["weights_before_call"] == 0,
           f"a new MyDense has {got['weights_before_call']} weights before its first call: make them in build(), "
           "from the input's shape, not in __init__.")
