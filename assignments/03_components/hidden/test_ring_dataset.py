import pytest
import torch

from autograder.judge.checks import assert_equal, assert_tensor, assert_true


@pytest.mark.points(3)
def test_ring_dataset_matches_reference(student, reference, probes, rng):
    """RingDataset draws the book's rings in the specified order (several sizes and seeds)"""
    for n_pos, n_neg in [(50, 30), (1, 7), (200, 200)]:
        seed = int(torch.randint(0, 2**31 - 1, (1,), generator=rng))
        idx = torch.randint(0, n_pos + n_neg, (5,), generator=rng).tolist()
        got = student(probes.ring_dataset_run, n_pos, n_neg, seed, idx)
        exp = reference(probes.ring_dataset_run, n_pos, n_neg, seed, idx)
        assert_equal(got["len"], exp["len"], name=f"len(RingDataset({n_pos}, {n_neg}))")
        assert_tensor(got["X"], exp["X"], name=f"X of RingDataset({n_pos}, {n_neg})", rtol=1e-5, atol=1e-5)
        assert_tensor(got["Y"], exp["Y"], name=f"Y of RingDataset({n_pos}, {n_neg})")
        assert_equal(len(got["items"]), len(exp["items"]), name="the number of items fetched")
        for (gx, gy), (ex, ey) in zip(got["items"], exp["items"]):
            assert_tensor(gx, ex, name="an item's point", rtol=1e-5, atol=1e-5)
            assert_tensor(gy, ey, name="an item's label")


@pytest.mark.points(1)
def test_ring_dataset_distribution(student, probes, rng):
    """the rings have the book's radii: about 5 for positives and 8 for negatives, angles all around"""
    seed = int(torch.randint(0, 2**31 - 1, (1,), generator=rng))
    got = student(probes.ring_dataset_run, 2000, 2000, seed, [0])
    X, Y = got["X"].double(), got["Y"].double()
    r = X.norm(dim=1)
    pos, neg = Y[:, 0] == 1, Y[:, 0] == 0
    assert_true(int(pos.sum()) == 2000 and int(neg.sum()) == 2000, "there should be 2000 points of each label")
    assert_true(abs(float(r[pos].mean()) - 5) < 0.15 and abs(float(r[neg].mean()) - 8) < 0.15,
                "the mean radius should be about 5 for the positives and 8 for the negatives")
    assert_true(abs(float(r[pos].std()) - 1) < 0.15, "the radius noise should have standard deviation 1")
    quadrants = torch.stack([(X[:, 0] > 0) & (X[:, 1] > 0), (X[:, 0] < 0) & (X[:, 1] > 0),
                             (X[:, 0] < 0) & (X[:, 1] < 0), (X[:, 0] > 0) & (X[:, 1] < 0)]).sum(dim=1)
    assert_true(bool((quadrants > 800).all()), "the angles should be uniform on [0, 2π): all quadrants get points")
