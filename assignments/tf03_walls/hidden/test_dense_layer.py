import numpy as np
import pytest

from autograder.judge.checks import assert_close, assert_equal

ACTIVATIONS = [None, "relu", "tanh", "sigmoid"]


def dense(x, kernel, bias, activation):
    y = x.astype("float64") @ kernel + bias
    if activation == "relu":
        y = np.maximum(y, 0)
    elif activation == "tanh":
        y = np.tanh(y)
    elif activation == "sigmoid":
        y = 1 / (1 + np.exp(-y))
    return y.astype("float32")


@pytest.mark.points(4)
def test_dense_random(student, probes, np_rng):
    """MyDense with every activation on inputs of random width and rank, with random weights"""
    for k, activation in enumerate(ACTIVATIONS):
        units, width = int(np_rng.integers(1, 7)), int(np_rng.integers(1, 8))
        lead = [int(np_rng.integers(1, 6))] + ([int(np_rng.integers(1, 4))] if k % 2 else [])
        x = np_rng.normal(size=lead + [width]).astype("float32")
        kernel = np_rng.normal(size=(width, units)).astype("float32")
        bias = np_rng.normal(size=(units,)).astype("float32")
        got = student(probes.dense_run, units, activation, x, kernel, bias)
        what = f"MyDense({units}, activation={activation!r}) on a {lead + [width]} input"
        assert_equal(got["weights"], [["kernel", [width, units], True], ["bias", [units], True]],
                     name=f"the weights of {what} ([name, shape, trainable])")
        assert_close(got["out"], dense(x, kernel, bias, activation), name=what)


@pytest.mark.points(2)
def test_initial_weights_like_reference(student, reference, probes, np_rng):
    """a new layer's initial weights under a fixed seed: the same draws as the reference's"""
    units, width, seed = int(np_rng.integers(2, 7)), int(np_rng.integers(2, 8)), int(np_rng.integers(0, 2**31))
    x = np.ones((3, width), "float32")
    got = student(probes.dense_run, units, None, x, seed=seed)
    want = reference(probes.dense_run, units, None, x, seed=seed)
    assert_close(got["init"], want["init"], name=f"the initial kernel and bias of MyDense({units}) built on a width-{width} input")


@pytest.mark.points(1)
def test_config_round_trip_random(student, probes, np_rng):
    """MyDense(units, "tanh").get_config() and from_config on random weights"""
    units, width = int(np_rng.integers(1, 9)), int(np_rng.integers(1, 6))
    x = np_rng.normal(size=(4, width)).astype("float32")
    kernel, bias = np_rng.normal(size=(width, units)).astype("float32"), np_rng.normal(size=(units,)).astype("float32")
    got = student(probes.dense_run, units, "tanh", x, kernel, bias)
    assert_equal(got["config"], {"units": units, "activation": "tanh"}, name="the layer's config")
    assert_close(got["clone_out"], dense(x, kernel, bias, "tanh"), name="the layer made from the config, with the same weights")


@pytest.mark.points(1)
def test_config_keeps_the_base_config(student, reference, probes, np_rng):
    """get_config() holds the base Layer's config (name, trainable, dtype, ...) beside units and activation: the
    same keys as the reference's, and from_config keeps the layer's name"""
    units, width = int(np_rng.integers(1, 9)), int(np_rng.integers(1, 6))
    x = np_rng.normal(size=(2, width)).astype("float32")
    got, want = student(probes.dense_run, units, "relu", x), reference(probes.dense_run, units, "relu", x)
    assert_equal(got["config_keys"], want["config_keys"], name="the keys of get_config() (start from super().get_config())")
    assert_equal(got["clone_name_kept"], True, name="MyDense.from_config(layer.get_config()).name == layer.name")
