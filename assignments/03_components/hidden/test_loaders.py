import pytest
import torch
from torch.utils.data import random_split

from autograder.judge.checks import assert_equal, assert_tensor, assert_true


def _rows(batches, key):
    return torch.cat([b[key] for b in batches]) if batches else torch.empty(0)


def _sorted_rows(t):
    return t[torch.argsort(t[:, 0])]


@pytest.mark.points(2)
def test_collate(student, probes, rng):
    """collate_rings on random batches of several sizes: x, y and radius"""
    for B in (1, 5, 17):
        xs = [torch.randn(2, generator=rng) * 6 for _ in range(B)]
        ys = [(torch.rand(1, generator=rng) < 0.5).float() for _ in range(B)]
        got = student(probes.collate_run, xs, ys)
        assert_true(type(got) is dict and sorted(got) == ["r", "x", "y"], "collate_rings should return a dict with keys x, y, r")
        X = torch.stack(xs)
        assert_tensor(got["x"], X, name=f"batch['x'] for {B} items")
        assert_tensor(got["y"], torch.stack(ys), name=f"batch['y'] for {B} items")
        assert_tensor(got["r"], X.norm(dim=1, keepdim=True), name=f"batch['r'] for {B} items")


@pytest.mark.points(4)
def test_make_loaders(student, probes, rng):
    """make_loaders: random_split with the seed, a reproducible shuffled training loader, an ordered validation loader"""
    for n, frac, bs in [(50, 0.3, 8), (37, 0.2, 5), (64, 0.5, 64)]:
        seed = int(torch.randint(0, 2**31 - 1, (1,), generator=rng))
        X = torch.randn(n, 2, generator=rng)
        X[:, 0] = torch.randperm(n, generator=rng).float()  # a unique key per row
        Y = (torch.rand(n, 1, generator=rng) < 0.5).float()
        got = student(probes.loaders_run, X, Y, frac, bs, seed)
        n_val = int(n * frac)
        n_train = n - n_val
        train_idx, val_idx = random_split(range(n), [n_train, n_val], generator=torch.Generator().manual_seed(seed))
        train_idx, val_idx = list(train_idx), list(val_idx)
        what = f"{n} points, val_fraction={frac}, batch_size={bs}"
        a, b, c = got["a"], got["b"], got["c"]
        assert_equal((a["train_len"], a["val_len"]), (n_train, n_val), name=f"(training size, validation size) for {what}")
        # validation: the split's indices, in order
        assert_tensor(_rows(a["val"], "x"), X[val_idx], name=f"the validation points, in order ({what})")
        assert_tensor(_rows(a["val"], "y"), Y[val_idx], name=f"the validation labels, in order ({what})")
        exp_sizes = [min(bs, n_val - i) for i in range(0, n_val, bs)]
        assert_equal([v["x"].shape[0] for v in a["val"]], exp_sizes, name=f"the validation batch sizes ({what})")
        # training: every epoch is a permutation of the training split, in full batches with a partial last one
        exp_sizes = [min(bs, n_train - i) for i in range(0, n_train, bs)]
        epochs = a["train"]
        for e, epoch in enumerate(epochs):
            assert_equal([t["x"].shape[0] for t in epoch], exp_sizes, name=f"the training batch sizes in epoch {e + 1} ({what})")
            assert_tensor(_sorted_rows(_rows(epoch, "x")), _sorted_rows(X[train_idx]),
                          name=f"the training points of epoch {e + 1}, as a set ({what})")
            assert_true(bool((_rows(epoch, "r") - _rows(epoch, "x").norm(dim=1, keepdim=True)).abs().max() < 1e-5),
                        "the training loader should use collate_rings")
        first = _rows(epochs[0], "x")[:, 0]
        if n_train > 3:
            assert_true(not torch.equal(first, X[train_idx][:, 0]), f"the training loader does not shuffle ({what})")
            assert_true(not torch.equal(first, _rows(epochs[1], "x")[:, 0]),
                        f"every pass over the training loader should be a new order ({what})")
            assert_true(not torch.equal(first, _rows(c["train"][0], "x")[:, 0]),
                        f"a different seed should give a different training order ({what})")
        assert_true(torch.equal(first, _rows(b["train"][0], "x")[:, 0]),
                    f"the training order changes with the global random seed: give the training DataLoader its own seeded generator ({what})")
