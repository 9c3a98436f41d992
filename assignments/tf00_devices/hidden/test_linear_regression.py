import numpy as np
import pytest
import torch

from autograder.judge.checks import assert_close, assert_equal, assert_true, tf_device

TARGET = {"cpu": "/device:CPU:1", "cuda": "/device:GPU:0"}  # the `device` variant's device; CPU:1 is a logical CPU


def _data(rng, n):
    """The book's data: X uniform on [-10, 10), y = X @ (2, -3) + 3 + N(0, 2)."""
    X = torch.rand(n, 2, generator=rng) * 20 - 10
    y = X @ torch.tensor([[2.0], [-3.0]]) + 3.0 + torch.randn(n, 1, generator=rng) * 2
    return X, y


def _variables(got, exp, call):
    assert_true(isinstance(got, list) and len(got) == 2, f"{call} should return a pair (w, b).")
    for name, v, e in (("w", got[0], exp[0]), ("b", got[1], exp[1])):
        assert_true(isinstance(v, dict) and v.get("type") == "Variable",
                    f"{name} of {call} should be a tf.Variable, but it is a {v.get('type') if isinstance(v, dict) else v}.")
        assert_equal(v["shape"], e["shape"], name=f"the shape of {name} of {call}")
        assert_equal(v["dtype"], e["dtype"], name=f"the dtype of {name} of {call}")
        assert_close(v["value"], e["value"], name=f"the starting value of {name} of {call}")
        assert_equal(tf_device(v["device"]), tf_device(e["device"]), name=f"the device of {name} of {call}")


@pytest.mark.points(3)
def test_make_linear(student, reference, probes, device):
    """make_linear on each logical CPU and on the device of this variant"""
    for where in ("/device:CPU:2", "cpu:0", TARGET[device]):
        _variables(student(probes.make_linear, where), reference(probes.make_linear, where), f"make_linear({where!r})")


def _steps(got, exp, call, steps):
    losses = got["losses"]
    for i in range(steps):
        out, e = losses[i], exp["losses"][i]
        assert_true(out.get("type") == "Tensor", f"{call} should return the loss as a tf.Tensor, but step {i + 1} "
                                                 f"returned a {out.get('type')}.")
        assert_equal(out["shape"], e["shape"], name=f"the shape of the loss of {call}")
        assert_close(out["value"], e["value"], name=f"the loss of step {i + 1} of {call}", rtol=1e-4, atol=1e-5)
        assert_equal(tf_device(out["device"]), tf_device(e["device"]), name=f"the device of the loss of {call}")
    for name in ("w", "b"):
        assert_close(got[name]["value"], exp[name]["value"], name=f"{name} after {steps} steps of {call}", rtol=1e-4, atol=1e-5)


@pytest.mark.points(3)
def test_steps_match_reference(student, reference, probes, rng):
    """several steps from a random start on the book's data, on the logical CPUs, agree with the reference"""
    for where, lr, steps in (("/device:CPU:2", 0.01, 3), ("/device:CPU:1", 0.003, 2), ("CPU:0", 0.02, 1)):
        X, y = _data(rng, int(torch.randint(20, 200, (1,), generator=rng)))
        w0, b0 = torch.randn(2, 1, generator=rng), torch.randn(1, generator=rng)
        call = f"linreg_step(w, b, X, y, {lr}, {where!r})"
        _steps(student(probes.linreg_steps, X, y, w0, b0, lr, where, steps),
               reference(probes.linreg_steps, X, y, w0, b0, lr, where, steps), call, steps)


@pytest.mark.points(3)
def test_step_on_device(student, reference, probes, rng, device):
    """steps on the device of this variant, the variables made elsewhere: the loss is computed there"""
    X, y = _data(rng, 64)
    w0, b0 = torch.randn(2, 1, generator=rng), torch.randn(1, generator=rng)
    where = TARGET[device]
    call = f"linreg_step(w, b, X, y, 0.01, {where!r})"
    _steps(student(probes.linreg_steps, X, y, w0, b0, 0.01, where, 2, "/device:CPU:2"),
           reference(probes.linreg_steps, X, y, w0, b0, 0.01, where, 2, "/device:CPU:2"), call, 2)


@pytest.mark.points(2)
def test_converges(student, probes, rng):
    """300 steps of lr 0.01 from zeros on the book's data reach the least-squares w, and b moves towards 3"""
    X, y = _data(rng, 400)
    got = student(probes.linreg_steps, X, y, torch.zeros(2, 1), torch.zeros(1), 0.01, "/device:CPU:1", 300)
    w, b = got["w"].get("value"), got["b"].get("value")
    assert_true(isinstance(w, np.ndarray) and w.shape == (2, 1) and isinstance(b, np.ndarray) and b.shape == (1,),
                "after the steps, w and b should have shapes [2, 1] and [1].")
    # the least-squares fit of this draw (w within 0.006 of it after 300 steps over 300 draws, |b - 3| up to 0.41;
    # the true w = (2, -3) is up to 0.054 away from it: the noise)
    design = torch.cat([X, torch.ones(len(X), 1)], dim=1).double()
    best = torch.linalg.lstsq(design, y.double()).solution[:2].numpy()
    assert_true(float(np.abs(w - best).max()) < 0.03 and abs(float(b[0]) - 3.0) < 1.0,
                "300 steps of lr 0.01 from zeros should bring w to the least-squares fit of the data (close to "
                "(2, -3)) and b towards 3; check the loss, the sign of the update and that the variables are "
                "updated in place.")


@pytest.mark.points(2)
def test_step_work_runs_on_the_device(student, reference, probes, rng):
    """the step's products and reductions (loss and gradients) run on the device (TensorFlow's record of the devices
    its ops ran on), not elsewhere with the loss copied there"""
    X, y = _data(rng, 32)
    w0, b0 = torch.randn(2, 1, generator=rng), torch.randn(1, generator=rng)
    for where in ("/device:CPU:1", "/device:CPU:2"):
        call = f"linreg_step(w, b, X on CPU:0, y, 0.01, {where!r})"
        got = student(probes.linreg_steps, X, y, w0, b0, 0.01, where, 1)
        exp = reference(probes.linreg_steps, X, y, w0, b0, 0.01, where, 1)
        _steps(got, exp, call, 1)
        assert_equal(got["ran_on"], exp["ran_on"], name=f"the devices the loss and gradients of {call} ran on "
                                                          "(compute them inside `with tf.device(device):`)")
