import pytest
import torch

from autograder.judge.checks import assert_close, assert_equal, assert_tensor, assert_true


def _data(rng, n, w_true, b_true):
    X = 10 * torch.rand(n, 2, generator=rng) - 5.0
    y = X @ w_true.t() + b_true + 2.0 * torch.randn(n, 1, generator=rng)
    return X, y


def _as_floats(history):
    """Loss values whatever their type (the type itself is checked in test_history_and_device)."""
    if not isinstance(history, (list, tuple)):
        return history
    out = []
    for v in history:
        if isinstance(v, dict) and type(v.get("value")) is torch.Tensor and v["value"].numel() == 1:
            v = float(v["value"])
        elif type(v) is int:
            v = float(v)
        out.append(v)
    return out


def _tol(device):
    return {"rtol": 1e-4, "atol": 1e-5} if device == "cpu" else {"rtol": 1e-3, "atol": 1e-4}


@pytest.mark.points(3)
def test_model_structure(student, reference, probes, rng):
    """LinearRegression: parameters w [1, 2] and b [1, 1] (zeros), forward x @ w.T + b"""
    for n in (20, 1, 7):
        X = torch.randn(n, 2, generator=rng) * 3
        w, b = torch.randn(1, 2, generator=rng), torch.randn(1, 1, generator=rng)
        got = student(probes.linear_model, X, w, b)
        exp = reference(probes.linear_model, X, w, b)
        assert_close(got["params"], exp["params"], name="LinearRegression's parameters")
        assert_tensor(got["init_b"], exp["init_b"], name="b right after LinearRegression()")
        assert_close(got["out"], exp["out"], name="LinearRegression's forward pass")


@pytest.mark.points(8)
def test_training_matches_reference(student, reference, probes, rng, device):
    """full-batch training agrees with the reference (losses, w, b), on every device"""
    configs = [
        (20_000, torch.tensor([[2.0, -3.0]]), torch.tensor([[10.0]]), 30, 0.1),
        (5_000, torch.randn(1, 2, generator=rng) * 3, torch.randn(1, 1, generator=rng) * 5, 20, 0.05),
    ]
    for n, w_true, b_true, epochs, lr in configs:
        X, y = _data(rng, n, w_true, b_true)
        w0, b0 = torch.randn(1, 2, generator=rng), torch.zeros(1, 1)
        name = f"train_full_batch(..., {device!r}, epochs={epochs}, lr={lr})"
        got = student(probes.train_regression, X, y, w0, b0, device, epochs, lr)
        exp = reference(probes.train_regression, X, y, w0, b0, "cpu", epochs, lr)
        assert_close(_as_floats(got["history"]), exp["history"], name=f"the losses returned by {name}", **_tol(device))
        assert_tensor(got["w"], exp["w"], name=f"w after {name}", **_tol(device))
        assert_tensor(got["b"], exp["b"], name=f"b after {name}", **_tol(device))


@pytest.mark.points(3)
def test_history_and_device(student, reference, probes, rng, device):
    """the losses are Python floats, the model and the data are on the device (also checked on 'meta', which stands
    in for a second GPU, cuda:1: data left on the CPU, or moved with .cuda(), raises there as on a GPU)"""
    X, y = _data(rng, 1_000, torch.tensor([[2.0, -3.0]]), torch.tensor([[10.0]]))
    w0 = torch.randn(1, 2, generator=rng)
    exp = reference(probes.train_regression, X, y, w0, torch.zeros(1, 1), "cpu", 5, 0.1)
    for where in (device, "meta"):
        got = student(probes.train_regression, X, y, w0, torch.zeros(1, 1), where, 5, 0.1)
        hist = got["history"]
        assert_true(isinstance(hist, (list, tuple)) and len(hist) == 5,
                    f"train_full_batch(..., {where!r}, epochs=5) should return a list of 5 losses.")
        assert_true(all(type(v) is float for v in hist),
                    "the losses should be Python floats (loss.item()), not tensors: a list of loss tensors keeps them alive.")
        if where != "meta":  # meta tensors hold no values
            assert_close(hist, exp["history"], name=f"the losses of train_full_batch(..., {where!r}, epochs=5)", **_tol(where))
            assert_tensor(got["w"], exp["w"], name=f"w after train_full_batch(..., {where!r}, epochs=5)", **_tol(where))
        assert_equal(sorted({d.split(":")[0] for d in got["param_devices"]}), [torch.device(where).type],
                     name=f"the device of the model's parameters after train_full_batch(..., {where!r})")


@pytest.mark.points(3)
def test_recovers_true_parameters(student, probes, rng):
    """a longer run on the book's data recovers w = (2, -3), b = 10"""
    X, y = _data(rng, 10_000, torch.tensor([[2.0, -3.0]]), torch.tensor([[10.0]]))
    got = student(probes.train_regression, X, y, torch.randn(1, 2, generator=rng), torch.zeros(1, 1), "cpu", 300, 0.1)
    w, b = got["w"], got["b"]
    assert_true(type(w) is torch.Tensor and type(b) is torch.Tensor and w.shape == (1, 2) and b.shape == (1, 1),
                "after training, model.w and model.b should be tensors of shapes [1, 2] and [1, 1].")
    assert_true(float((w - torch.tensor([[2.0, -3.0]])).abs().max()) < 0.1 and abs(float(b) - 10.0) < 0.3,
                "after 300 Adam steps with lr=0.1 the fit should be close to w = (2, -3), b = 10; "
                "check the loss (mean squared error), the optimizer and the order zero_grad / backward / step.")
    hist = _as_floats(got["history"])
    assert_true(isinstance(hist, (list, tuple)) and len(hist) == 300 and all(type(v) is float for v in hist)
                and hist[-1] < hist[0], "train_full_batch should return the 300 losses, and they should go down.")
