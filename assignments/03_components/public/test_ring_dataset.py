import pytest
import torch

from autograder.judge.checks import assert_equal, assert_tensor, assert_true


@pytest.mark.points(2)
@pytest.mark.hint("Draw r_pos, theta_pos, r_neg, theta_neg in that order from one seeded torch.Generator; "
                  "a point is (r cos θ, r sin θ); positives first.")
def test_small_ring_dataset(student, probes):
    """RingDataset(3, 2, seed=0): length, points, labels and items"""
    got = student(probes.ring_dataset_run, 3, 2, 0, [0, 4])
    assert_true(got["is_dataset"], "RingDataset should subclass torch.utils.data.Dataset.")
    assert_equal(got["len"], 5, name="len(RingDataset(3, 2))")
    X = torch.tensor([[-6.2884288, 1.8000810], [-3.1718161, -3.4772682], [-1.6423575, 2.2938812],
                      [-8.5104733, -0.9949105], [-2.6511736, -7.7701392]])
    Y = torch.tensor([[1.0], [1.0], [1.0], [0.0], [0.0]])
    assert_tensor(got["X"], X, name="the points X", rtol=1e-5, atol=1e-5)
    assert_tensor(got["Y"], Y, name="the labels Y")
    assert_equal(len(got["items"]), 2, name="the number of items fetched")
    x4, y4 = got["items"][1]
    assert_tensor(x4, X[4], name="ds[4]'s point", rtol=1e-5, atol=1e-5)
    assert_tensor(y4, Y[4], name="ds[4]'s label")
