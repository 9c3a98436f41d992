import pytest
import torch

from autograder.judge.checks import assert_close, assert_tensor


@pytest.mark.points(1)
@pytest.mark.hint("permute reorders dimensions; reshape to the same shape keeps the element order and scrambles the channels.")
def test_to_channels_last_known(student, probes):
    """to_channels_last moves the channel dimension last"""
    x = torch.arange(12).view(1, 3, 2, 2)
    want = torch.tensor([[[[0, 4, 8], [1, 5, 9]], [[2, 6, 10], [3, 7, 11]]]])
    assert_tensor(student(probes.to_channels_last, x), want, name="to_channels_last(arange(12).view(1, 3, 2, 2))")


@pytest.mark.points(1)
@pytest.mark.hint("cat joins along an existing dimension (here dim=1); split with sizes [d, 1] keeps y 2-d.")
def test_bias_and_split_known(student, probes):
    """add_bias_column appends ones; split_xy separates the last column"""
    X = torch.tensor([[1.0, 2.0], [3.0, 4.0]])
    assert_tensor(student(probes.add_bias_column, X), torch.tensor([[1.0, 2.0, 1.0], [3.0, 4.0, 1.0]]), name="add_bias_column([[1, 2], [3, 4]])")
    data = torch.tensor([[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]])
    assert_close(student(probes.split_xy, data), (torch.tensor([[1.0, 2.0], [4.0, 5.0]]), torch.tensor([[3.0], [6.0]])),
                 name="split_xy([[1, 2, 3], [4, 5, 6]])")


@pytest.mark.points(1)
@pytest.mark.hint("stack adds a new dimension; squeeze(d) removes only dimension d.")
def test_stack_and_squeeze_known(student, probes):
    """stack_images adds a batch dimension; squeeze_last keeps it"""
    imgs = [torch.zeros(1, 2, 2), torch.ones(1, 2, 2)]
    assert_tensor(student(probes.stack_images, imgs), torch.stack([torch.zeros(1, 2, 2), torch.ones(1, 2, 2)]),
                  name="stack_images of two [1, 2, 2] images")
    assert_tensor(student(probes.squeeze_last, torch.tensor([[0.5], [2.0]])), torch.tensor([0.5, 2.0]), name="squeeze_last([[0.5], [2.0]])")
    assert_tensor(student(probes.squeeze_last, torch.tensor([[0.5]])), torch.tensor([0.5]), name="squeeze_last([[0.5]])")
