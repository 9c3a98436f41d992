import numpy as np
import pytest
import torch

from autograder.execute.wire import Unsupported
from autograder.judge import checks
from autograder.judge.checks import CheckFailed


def fails(fn, *a, **k) -> str:
    with pytest.raises(CheckFailed) as e:
        fn(*a, **k)
    return str(e.value)


def test_tensor_type_dtype_shape_values_in_that_order():
    e = torch.arange(6.0).reshape(2, 3)
    assert "should be a torch.Tensor" in fails(checks.assert_tensor, e.numpy(), e)
    assert "a Sneaky" in fails(checks.assert_tensor, Unsupported("Sneaky"), e)
    assert "dtype torch.float64, expected torch.float32" in fails(checks.assert_tensor, e.double(), e)
    assert "shape (3, 2), expected (2, 3)" in fails(checks.assert_tensor, e.T.contiguous(), e)
    g = e.clone()
    g[1, 2] += 0.5
    msg = fails(checks.assert_tensor, g, e)
    assert "1 of 6 values differ" in msg and "[1, 2]" in msg and "largest absolute error 0.5" in msg


def test_default_tolerances_follow_dtype():
    e = torch.ones(3)
    checks.assert_tensor(e + 5e-6, e)  # within float32 atol
    fails(checks.assert_tensor, e.double() + 5e-6, e.double())  # outside float64 tolerance
    fails(checks.assert_tensor, torch.tensor([1, 2]), torch.tensor([1, 3]))  # ints are exact


def test_nan_and_inf():
    e = torch.tensor([float("inf"), 1.0])
    checks.assert_tensor(e.clone(), e)
    assert "values differ" in fails(checks.assert_tensor, torch.tensor([float("nan"), 1.0]), e)
    checks.assert_tensor(torch.tensor([float("nan")]), torch.tensor([float("nan")]), equal_nan=True)
    nan = torch.tensor([float("nan"), 1.0])
    assert "values differ" in fails(checks.assert_tensor, nan, nan)  # the same object: NaN is still not a value
    checks.assert_tensor(torch.tensor([-0.0, float("-inf")]), torch.tensor([0.0, float("-inf")]))


def test_scalar_checks():
    checks.assert_scalar(1.0, 1.0 + 1e-9)
    assert ".item()" in fails(checks.assert_scalar, torch.tensor(1.0), 1.0)
    assert "expected 2" in fails(checks.assert_scalar, 3, 2)
    fails(checks.assert_scalar, True, 1)


def test_nested_state_dict_grads_history():
    sd = {"w": torch.ones(2, 2), "b": torch.zeros(2)}
    checks.assert_state_dict({"w": torch.ones(2, 2), "b": torch.zeros(2)}, sd)
    assert "keys" in fails(checks.assert_state_dict, {"b": torch.zeros(2), "w": torch.ones(2, 2)}, sd)
    checks.assert_close({"a": [torch.ones(1), 2.0]}, {"a": [torch.ones(1), 2.0]})
    assert "has no value for b" in fails(checks.assert_close, {"a": 1}, {"a": 1, "b": 2})
    assert "no gradient" in fails(checks.assert_grads, {"w": None}, {"w": torch.ones(1)})
    checks.assert_history({"epoch": [1, 2], "loss": [0.5, 0.25]}, {"epoch": [1, 2], "loss": [0.5, 0.25]})
    assert "in that order" in fails(checks.assert_history, {"loss": [1.0], "epoch": [1]}, {"epoch": [1], "loss": [1.0]})
    # exactly numbers: float() would take a numeric string, a 0-dim tensor (a loss kept without .item()) or a bool
    for bad, says in (("0.25", "a str"), (torch.tensor(0.25), "use .item()"), (True, "a bool"), (None, "None")):
        assert says in fails(
            checks.assert_history, {"epoch": [1, 2], "loss": [0.5, bad]}, {"epoch": [1, 2], "loss": [0.5, 0.25]}
        )
    np_e = np.arange(3.0)
    checks.assert_close(np_e.copy(), np_e)
