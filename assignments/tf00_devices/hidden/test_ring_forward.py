import pytest
import torch

from autograder.judge.checks import assert_close, assert_equal, assert_true, tf_device

TARGET = {"cpu": "/device:CPU:1", "cuda": "/device:GPU:0"}  # the `device` variant's device; CPU:1 is a logical CPU
SHAPES = {"w1": (2, 4), "b1": (4,), "w2": (4, 8), "b2": (8,), "w3": (8, 1), "b3": (1,)}


def _rings(rng, n):
    """n points per ring: radius 5 + N(0, 1) and 8 + N(0, 1), uniform angles."""
    r = torch.cat([5 + torch.randn(n, generator=rng), 8 + torch.randn(n, generator=rng)])
    theta = torch.rand(2 * n, generator=rng) * 6.283185
    return torch.stack([r * torch.cos(theta), r * torch.sin(theta)], dim=1)


def _params(rng):
    return {k: torch.randn(*s, generator=rng) * (0.6 if k[0] == "w" else 0.3) for k, s in SHAPES.items()}


def _check(got, exp, call):
    assert_true(got.get("type") == "Tensor", f"{call} should return a tf.Tensor, but it returned a {got.get('type')}.")
    assert_equal(got["shape"], exp["shape"], name=f"the shape of {call}")
    assert_equal(got["dtype"], exp["dtype"], name=f"the dtype of {call}")
    assert_close(got["value"], exp["value"], name=f"the probabilities of {call}", rtol=1e-4, atol=1e-5)
    assert_equal(tf_device(got["device"]), tf_device(exp["device"]), name=f"the device of {call}")


@pytest.mark.points(4)
def test_matches_reference(student, reference, probes, rng):
    """random parameters and points on the logical CPUs, as tensors and as numpy arrays"""
    for where, as_arrays in (("/device:CPU:2", False), ("CPU:1", True), ("/device:CPU:0", False)):
        params, X = _params(rng), _rings(rng, int(torch.randint(3, 30, (1,), generator=rng)))
        call = f"ring_forward(params, X of {X.shape[0]} points, {where!r})"
        _check(student(probes.ring_forward, params, X, where, "/device:CPU:0", as_arrays),
               reference(probes.ring_forward, params, X, where, "/device:CPU:0", as_arrays), call)


@pytest.mark.points(3)
def test_on_device(student, reference, probes, rng, device):
    """the forward pass runs on the device of this variant, the parameters and points living on another CPU"""
    where = TARGET[device]
    params, X = _params(rng), _rings(rng, 10)
    call = f"ring_forward(params on CPU:2, X on CPU:2, {where!r})"
    _check(student(probes.ring_forward, params, X, where, "/device:CPU:2"),
           reference(probes.ring_forward, params, X, where, "/device:CPU:2"), call)


@pytest.mark.points(3)
def test_saturated_logits(student, reference, probes, rng):
    """large weights: probabilities near 0 and 1 stay finite and agree"""
    params = {k: v * 20 for k, v in _params(rng).items()}
    X = _rings(rng, 6)
    _check(student(probes.ring_forward, params, X, "/device:CPU:1"),
           reference(probes.ring_forward, params, X, "/device:CPU:1"), "ring_forward(params with large weights, X, '/device:CPU:1')")


@pytest.mark.points(2)
def test_work_runs_on_the_device(student, reference, probes, rng):
    """the products and activations of the forward pass run on the device (TensorFlow's record of the devices its
    ops ran on), not elsewhere with the result copied there"""
    for where in ("/device:CPU:1", "/device:CPU:2"):
        params, X = _params(rng), _rings(rng, 8)
        call = f"ring_forward(params, X on CPU:0, {where!r})"
        got, exp = student(probes.ring_forward, params, X, where), reference(probes.ring_forward, params, X, where)
        _check(got, exp, call)
        assert_equal(got["ran_on"], exp["ran_on"], name=f"the devices the products and activations of {call} ran on")
