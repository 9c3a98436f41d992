import numpy as np
import pytest

from autograder.judge.checks import CheckFailed, advise, assert_close, assert_equal, assert_true

N, BATCH = 23, 5
X = np.stack([np.arange(N, dtype="float64"), np.linspace(-1.0, 1.0, N), np.cos(np.arange(N))], axis=1)
Y = np.arange(N) % 3


def rows(epoch, X, y, batch_size, name):
    """The row indices an epoch's batches hold, in order, after checking each batch's dtype, shape and values."""
    if type(epoch) is not list:
        raise CheckFailed(f"{name}: the dataset should yield (x, y) batches")
    n = len(X)
    sizes = [batch_size] * (n // batch_size) + ([n % batch_size] if n % batch_size else [])
    assert_equal([len(b[1]) if isinstance(b, list) and len(b) == 2 and hasattr(b[1], "shape") else None for b in epoch],
                 sizes, name=f"{name}: the sizes of the (x, y) batches")
    order = []
    for i, (xb, yb) in enumerate(epoch):
        for what, got in (("x", xb), ("y", yb)):
            assert_true(got.dtype == np.float32, f"{name}: batch {i}'s {what} has dtype {got.dtype}, expected float32 "
                                                 "(map each element through tf.cast)")
        assert_true(xb.shape == (len(yb), X.shape[1]), f"{name}: batch {i}'s x has shape {list(xb.shape)}, "
                                                       f"expected {[len(yb), X.shape[1]]}")
        idx = [int(v) if float(v).is_integer() and 0 <= v < n else -1 for v in xb[:, 0]]
        assert_true(-1 not in idx, f"{name}: batch {i} holds rows that are not rows of X")
        assert_close(xb, X[idx].astype("float32"), name=f"{name}: batch {i}'s x")
        assert_close(yb, y[idx].astype("float32"), name=f"{name}: batch {i}'s y (each row keeps its own label)")
        order += idx
    assert_true(sorted(order) == list(range(n)), f"{name}: an epoch should hold every row of X exactly once")
    return order


@pytest.mark.points(3)
@pytest.mark.hint("from_tensor_slices((X, y)) gives one element per row; map casts x and y to float32; batch(batch_size) "
                  "keeps the last, smaller batch; without shuffle the rows keep their order.")
def test_batches_in_order_without_shuffle(student, probes):
    """make_dataset(X, y, batch_size=5, shuffle=False) on 23 rows: two epochs, rows in order"""
    got = student(probes.pipeline_run, X, Y, BATCH, False, 0)
    for e, epoch in enumerate(got["epochs"]):
        order = rows(epoch, X, Y, BATCH, f"epoch {e + 1} without shuffle")
        assert_equal(order, list(range(N)), name=f"the order of the rows in epoch {e + 1} without shuffle")


@pytest.mark.points(5)
@pytest.mark.hint("shuffle(buffer_size=len(X), seed=seed, reshuffle_each_iteration=True) before batch: the same seed gives "
                  "the same orders, each epoch gets a new order, and rows (not whole batches) are shuffled.")
def test_seeded_shuffle(student, probes):
    """make_dataset(X, y, batch_size=5, seed=3): shuffled rows, a new order each epoch, reproducible from the seed"""
    got = student(probes.pipeline_run, X, Y, BATCH, True, 3)
    first, second = (rows(epoch, X, Y, BATCH, f"epoch {e + 1} with shuffle") for e, epoch in enumerate(got["epochs"]))
    assert_true(first != list(range(N)), "with shuffle=True the first epoch's rows are still in order")
    runs = [b for b in range(0, N, BATCH) if first[b:b + BATCH] == list(range(first[b], first[b] + len(first[b:b + BATCH])))]
    assert_true(len(runs) < 2, "the batches hold consecutive rows: shuffle the rows before batching, not the batches")
    assert_true(second != first, "two epochs came in the same order: each epoch should be shuffled anew "
                                 "(reshuffle_each_iteration=True)")
    again = rows(got["again"], X, Y, BATCH, "a second dataset made with the same seed")
    assert_equal(again, first, name="the first epoch of a second dataset made with the same seed (a seeded shuffle "
                                    "gives the same order)")
    other = rows(got["other_seed"], X, Y, BATCH, "a dataset made with another seed")
    assert_true(other != first, "a dataset made with seed 4 came in the same order as one with seed 3: pass the seed "
                                "to shuffle")


@pytest.mark.points(0)
def test_advice_prefetch(student, probes):
    """Advice: the pipeline ends with prefetch"""
    got = student(probes.pipeline_run, X, Y, BATCH, False, 0)
    advise(got["kind"] == "_PrefetchDataset", f"make_dataset returns a {got['kind']}: end the pipeline with "
                                              "prefetch(tf.data.AUTOTUNE), so the next batch is ready while one trains.")
