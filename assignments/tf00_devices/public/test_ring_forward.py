import numpy as np
import pytest

from autograder.judge.checks import assert_close, assert_equal, assert_true, tf_device


def _params():
    grid = np.linspace(-1, 1, 64, dtype=np.float32)
    shapes = {"w1": (2, 4), "b1": (4,), "w2": (4, 8), "b2": (8,), "w3": (8, 1), "b3": (1,)}
    out, at = {}, 0
    for k, s in shapes.items():
        size = int(np.prod(s))
        out[k] = np.resize(np.roll(grid, at), size).reshape(s).astype(np.float32)
        at += 7
    return out


def _forward(p, X):
    h1 = np.maximum(X @ p["w1"] + p["b1"], 0)
    h2 = np.maximum(h1 @ p["w2"] + p["b2"], 0)
    return 1 / (1 + np.exp(-(h2 @ p["w3"] + p["b3"])))


@pytest.mark.points(5)
@pytest.mark.hint("Inside `with tf.device(device):` compute relu(X @ w1 + b1), relu(h1 @ w2 + b2) and "
                  "sigmoid(h2 @ w3 + b3) (tf.nn.relu, tf.sigmoid).")
def test_ring_forward_small(student, probes):
    """ring_forward on 5 points of the two rings, on /device:CPU:1"""
    p = _params()
    X = np.array([[5.0, 0.0], [0.0, -8.0], [3.0, 4.0], [-6.0, 5.0], [0.5, 0.5]], np.float32)
    got = student(probes.ring_forward, p, X, "/device:CPU:1")
    assert_true(got.get("type") == "Tensor", f"ring_forward should return a tf.Tensor, but it returned a {got.get('type')}.")
    assert_equal(got["shape"], [5, 1], name="the shape of ring_forward(params, X of 5 points)")
    assert_equal(got["dtype"], "float32", name="the dtype of the probabilities")
    assert_close(got["value"], _forward(p, X).astype(np.float32), name="the probabilities of ring_forward", atol=1e-5)
    assert_equal(tf_device(got["device"]), "/device:CPU:1", name="the device of ring_forward(..., '/device:CPU:1')")
