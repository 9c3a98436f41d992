import pytest
import torch

from autograder.judge.checks import assert_close, assert_tensor


@pytest.mark.points(1)
@pytest.mark.hint("index_select(dim, idx) (or X[idx]) picks whole rows, in the order of idx.")
def test_get_batch_known(student, probes):
    """get_batch picks the requested rows of X and Y"""
    X = torch.arange(10.0).view(5, 2)
    Y = torch.arange(5.0).view(5, 1)
    got = student(probes.get_batch, X, Y, torch.tensor([3, 0, 3]))
    assert_close(got, (torch.tensor([[6.0, 7.0], [0.0, 1.0], [6.0, 7.0]]), torch.tensor([[3.0], [0.0], [3.0]])),
                 name="get_batch(X, Y, [3, 0, 3])")


@pytest.mark.points(1)
@pytest.mark.hint("Slicing a:b stops before b; the offset is (H - size) // 2.")
def test_crop_center_known(student, probes):
    """crop_center takes the middle square"""
    img = torch.arange(30).view(5, 6)
    assert_tensor(student(probes.crop_center, img, 3), torch.tensor([[7, 8, 9], [13, 14, 15], [19, 20, 21]]),
                  name="crop_center(arange(30).view(5, 6), 3)")
    img = torch.arange(32).view(2, 4, 4)
    assert_tensor(student(probes.crop_center, img, 2), torch.tensor([[[5, 6], [9, 10]], [[21, 22], [25, 26]]]),
                  name="crop_center(arange(32).view(2, 4, 4), 2)")


@pytest.mark.points(1)
@pytest.mark.hint("masked_select returns a 1-d tensor; torch.where(cond, a, b) picks elementwise without changing the input.")
def test_masks_known(student, probes):
    """positive_values and fill_missing on small examples"""
    x = torch.tensor([[1.0, -2.0, 0.0], [3.0, 0.5, -1.0]])
    assert_tensor(student(probes.positive_values, x), torch.tensor([1.0, 3.0, 0.5]), name="positive_values([[1, -2, 0], [3, 0.5, -1]])")
    nan = float("nan")
    got = student(probes.fill_missing, torch.tensor([1.0, nan, 3.0, nan]), -1.0)
    assert_tensor(got["out"], torch.tensor([1.0, -1.0, 3.0, -1.0]), name="fill_missing([1, nan, 3, nan], -1)")
    assert_tensor(got["input_after"], torch.tensor([1.0, nan, 3.0, nan]), name="the input of fill_missing after the call", equal_nan=True)
