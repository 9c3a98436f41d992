import pytest
import torch

from autograder.judge.checks import assert_equal, assert_tensor


@pytest.mark.points(4)
@pytest.mark.hint("Create the column of ones from X itself (X.new_ones, torch.ones_like, or dtype=/device= "
                  "taken from X) so it has X's dtype and device, then concatenate along the last dimension.")
def test_add_bias_column_small(student, probes):
    """add_bias_column on a small float32, float64 and 'meta' input"""
    X = torch.tensor([[1.0, 2.0], [3.0, 4.0]])
    got = student(probes.add_bias_column, X, "cpu")
    assert_tensor(got.get("value"), torch.tensor([[1.0, 1.0, 2.0], [1.0, 3.0, 4.0]]), name="add_bias_column(X)")
    got = student(probes.add_bias_column, X, "cpu", torch.float64)
    assert_equal(got.get("dtype"), torch.float64, name="the dtype of add_bias_column(X) for a float64 X")
    got = student(probes.add_bias_column, X, "meta")
    assert_equal(got.get("device"), "meta", name="the device of add_bias_column(X) for X on 'meta'")
    assert_equal(got.get("shape"), [2, 3], name="the shape of add_bias_column(X)")
