import pytest
import torch

from autograder.judge.checks import assert_close, assert_equal


@pytest.mark.points(1)
@pytest.mark.hint("rank = t.dim(); shape = tuple(t.shape); bytes depend on the dtype (t.element_size()).")
def test_describe_known(student, probes):
    """describe reports rank, shape, numel and bytes"""
    got = student(probes.describe, torch.zeros(2, 3, dtype=torch.float64))
    assert_close(got, {"rank": 2, "shape": (2, 3), "numel": 6, "nbytes": 48}, name="describe of a float64 [2, 3] tensor")
    got = student(probes.describe, torch.tensor(7))
    assert_close(got, {"rank": 0, "shape": (), "numel": 1, "nbytes": 8}, name="describe of the scalar tensor(7)")


@pytest.mark.points(1)
@pytest.mark.hint("A batch dimension of size 1 goes in front (unsqueeze); other ranks are an error.")
def test_ensure_batch_known(student, probes):
    """ensure_batch adds a leading batch dimension to an image"""
    got = student(probes.ensure_batch, torch.zeros(3, 4, 5))
    assert_equal(tuple(got["out"].shape) if "out" in got else got, (1, 3, 4, 5), name="the shape of ensure_batch of a [3, 4, 5] image")
    got = student(probes.ensure_batch, torch.zeros(2, 3, 4, 5))
    assert_equal(tuple(got["out"].shape) if "out" in got else got, (2, 3, 4, 5), name="the shape of ensure_batch of a [2, 3, 4, 5] batch")
    assert_equal(student(probes.ensure_batch, torch.zeros(4, 5)), {"error": "ValueError"}, name="ensure_batch of a 2-d tensor")
