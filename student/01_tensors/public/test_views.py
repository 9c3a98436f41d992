import pytest
import torch

from autograder.judge.checks import assert_equal, assert_tensor, assert_true


@pytest.mark.points(1)
@pytest.mark.hint("view never copies and fails on many non-contiguous tensors; reshape views when it can and copies when it must.")
def test_flatten_rows_known(student, probes):
    """flatten_rows flattens a contiguous tensor without copying, and also works on a transposed one"""
    x = torch.arange(24.0).view(2, 3, 4)
    got = student(probes.flatten_rows, x)
    assert_tensor(got["out"], torch.arange(24.0).view(2, 12), name="flatten_rows of arange(24).view(2, 3, 4)")
    assert_true(got["shares_memory"] is True, "flatten_rows copied a contiguous tensor: the result should share its memory.")
    got = student(probes.flatten_rows, x, "transposed")
    want = torch.tensor([[0.0, 4, 8, 1, 5, 9, 2, 6, 10, 3, 7, 11], [12, 16, 20, 13, 17, 21, 14, 18, 22, 15, 19, 23]])
    assert_tensor(got["out"], want, name="flatten_rows of arange(24).view(2, 3, 4).transpose(-2, -1)")


@pytest.mark.points(1)
@pytest.mark.hint("Try the view and catch the RuntimeError it raises; is_contiguous() alone does not decide it.")
def test_can_view_known(student, probes):
    """can_view tells which views work"""
    m = torch.arange(6).view(2, 3)
    assert_equal(student(probes.can_view, m, "contiguous", (3, 2)), True, name="can_view(arange(6).view(2, 3), (3, 2))")
    assert_equal(student(probes.can_view, m, "transposed", (6,)), False, name="can_view(arange(6).view(2, 3).t(), (6,))")
    assert_equal(student(probes.can_view, m, "transposed", (3, 2)), True, name="can_view(arange(6).view(2, 3).t(), (3, 2))")
    assert_equal(student(probes.can_view, m, "contiguous", (4, 2)), False, name="can_view(arange(6).view(2, 3), (4, 2))")


@pytest.mark.points(1)
@pytest.mark.hint("transpose only changes strides; .contiguous() lays the data out again.")
def test_swap_last_two_known(student, probes):
    """swap_last_two transposes and returns a contiguous tensor"""
    got = student(probes.swap_last_two, torch.arange(6).view(2, 3))
    assert_tensor(got["out"], torch.tensor([[0, 3], [1, 4], [2, 5]]), name="swap_last_two(arange(6).view(2, 3))")
    assert_equal(got["contiguous"], True, name="whether the result of swap_last_two is contiguous")
