import pytest
import torch

from autograder.judge.checks import assert_equal, assert_tensor, assert_true


@pytest.mark.points(1)
@pytest.mark.hint("A collate_fn gets a list of (x, y) items; stack them along a new first dimension.")
def test_collate(student, probes):
    """collate_rings stacks two items and adds their radius"""
    xs = [torch.tensor([3.0, 4.0]), torch.tensor([0.0, -2.0])]
    ys = [torch.tensor([1.0]), torch.tensor([0.0])]
    got = student(probes.collate_run, xs, ys)
    assert_true(type(got) is dict, f"collate_rings on two items ([3, 4] with label 1, [0, -2] with label 0) should "
                                   f"return a dict, but returned a {type(got).__name__}")
    assert_equal(sorted(got), ["r", "x", "y"], name="the batch's keys")
    assert_tensor(got["x"], torch.tensor([[3.0, 4.0], [0.0, -2.0]]), name="batch['x']")
    assert_tensor(got["y"], torch.tensor([[1.0], [0.0]]), name="batch['y']")
    assert_tensor(got["r"], torch.tensor([[5.0], [2.0]]), name="batch['r']")


@pytest.mark.points(1)
@pytest.mark.hint("random_split with a seeded generator; a DataLoader with its own seeded generator shuffles reproducibly.")
def test_split_sizes_and_reproducible(student, probes):
    """make_loaders on 10 points: split sizes, batch sizes, and the same batches for the same seed"""
    X = torch.arange(20.0).reshape(10, 2)
    Y = torch.arange(10.0).reshape(10, 1)
    got = student(probes.loaders_run, X, Y, 0.3, 4, 0)
    a, b = got["a"], got["b"]
    assert_equal((a["train_len"], a["val_len"]), (7, 3), name="(training size, validation size)")
    assert_equal([batch["x"].shape[0] for batch in a["train"][0]], [4, 3], name="the training batch sizes")
    assert_equal([batch["x"].shape[0] for batch in a["val"]], [3], name="the validation batch sizes")
    assert_tensor(a["val"][0]["y"], torch.tensor([[8.0], [6.0], [2.0]]), name="the validation labels")
    for i, (ba, bb) in enumerate(zip(a["train"][0], b["train"][0])):
        assert_tensor(ba["y"], bb["y"], name=f"training batch {i + 1} under another global seed")
