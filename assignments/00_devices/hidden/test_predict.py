import pytest
import torch

from autograder.judge.checks import assert_equal, assert_tensor, assert_true

CONFIGS = [(30, 4, 7), (16, 3, 16), (9, 5, 1), (25, 2, 10)]  # n, features, batch size


def _data(rng, n, d):
    state = {
        "0.weight": torch.randn(16, d, generator=rng) * 0.5,
        "0.bias": torch.randn(16, generator=rng) * 0.1,
        "3.weight": torch.randn(1, 16, generator=rng) * 0.5,
        "3.bias": torch.randn(1, generator=rng),
    }
    return state, torch.randn(n, d, generator=rng) * 2, torch.randn(n, 1, generator=rng)


def _tol(device):
    return {} if device in ("cpu", "meta") else {"rtol": 1e-4, "atol": 1e-5}


def _check(got, exp, device, name):
    assert_true(got.get("type") == "Tensor", f"{name} should return a torch.Tensor, but it returned a {got.get('type')}.")
    assert_equal(got["device"], "cpu", name=f"the device of the predictions of {name}")
    assert_equal(got["requires_grad"], False, name=f"whether the predictions of {name} require grad")
    assert_tensor(got["value"], exp["value"], name=f"the predictions of {name}", **_tol(device))


@pytest.mark.points(5)
def test_matches_reference(student, reference, probes, rng, device):
    """predict over a DataLoader agrees with the reference, on every device"""
    for n, d, bs in CONFIGS:
        state, X, y = _data(rng, n, d)
        _check(student(probes.predict, state, X, y, bs, device),
               reference(probes.predict, state, X, y, bs, "cpu"), device, f"predict on {device}")


@pytest.mark.points(2)
def test_list_of_batches(student, reference, probes, rng, device):
    """predict also accepts a plain list of (X, y) batches"""
    state, X, y = _data(rng, 12, 3)
    _check(student(probes.predict, state, X, y, 5, device, False),
           reference(probes.predict, state, X, y, 5, "cpu", False), device, f"predict on a list of batches on {device}")


@pytest.mark.points(3)
def test_eval_mode(student, reference, probes, rng):
    """the model is left in evaluation mode and no graph is kept"""
    state, X, y = _data(rng, 20, 4)
    got = student(probes.predict, state, X, y, 6, "cpu")
    _check(got, reference(probes.predict, state, X, y, 6, "cpu"), "cpu", "predict")
    assert_equal(got.get("training"), False, name="model.training after predict")
    assert_equal(got.get("requires_grad"), False, name="whether the predictions require grad")


@pytest.mark.points(2)
def test_model_on_device(student, reference, probes, rng, device):
    """the model and every batch are moved to the device; the predictions come back to the CPU (also checked on
    'meta', which stands in for a second GPU, cuda:1: a missed move, or .cuda() in place of .to(device), shows there)"""
    state, X, y = _data(rng, 8, 4)
    for where in (device, "meta"):
        got = student(probes.predict, state, X, y, 4, where)
        _check(got, reference(probes.predict, state, X, y, 4, "cpu" if where == device else where), where,
               f"predict on {where}")
        assert_equal(sorted({d.split(":")[0] for d in got["param_devices"]}), [torch.device(where).type],
                     name=f"the device of the model's parameters after predict(..., {where!r})")
