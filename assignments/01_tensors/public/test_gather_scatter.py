import pytest
import torch

from autograder.judge.checks import assert_equal, assert_tensor


@pytest.mark.points(1)
@pytest.mark.hint("gather(1, index) needs an index of the same rank as scores: [N] -> [N, 1] and back.")
def test_pick_known(student, probes):
    """pick reads the score of each row's label"""
    scores = torch.tensor([[0.1, 0.7, 0.2], [0.5, 0.3, 0.2]])
    assert_tensor(student(probes.pick, scores, torch.tensor([1, 0])), torch.tensor([0.7, 0.5]), name="pick(scores, [1, 0])")


@pytest.mark.points(1)
@pytest.mark.hint("Start from zeros of the right dtype and device, then scatter_ ones along dim 1.")
def test_one_hot_known(student, probes):
    """one_hot encodes labels as float32 rows"""
    got = student(probes.one_hot, torch.tensor([2, 0, 2]), 4)
    assert_tensor(got["out"], torch.tensor([[0.0, 0, 1, 0], [1, 0, 0, 0], [0, 0, 1, 0]]), name="one_hot([2, 0, 2], 4)")
    assert_equal(got["device"], "cpu", name="the device of one_hot of a cpu tensor")


@pytest.mark.points(1)
@pytest.mark.hint("scatter_ overwrites when an index repeats; scatter_add_ accumulates.")
def test_scatter_sum_known(student, probes):
    """scatter_sum adds values into bins"""
    got = student(probes.scatter_sum, torch.tensor([1.0, 2.0, 3.0, 4.0]), torch.tensor([0, 2, 0, 2]), 4)
    assert_tensor(got, torch.tensor([4.0, 0.0, 6.0, 0.0]), name="scatter_sum([1, 2, 3, 4], [0, 2, 0, 2], 4)")
