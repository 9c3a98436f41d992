import numpy as np
import pytest

from autograder.judge.checks import assert_true

# Each task is trained twice per student, once after each of two global seeds, and the two runs are judged by
# every test of the task (`student.once`: a later test reads the kept runs): the error or accuracy on fresh
# data of the first run, the logits of its net, and whether the second run repeats the first.  The inputs come
# from `shared_rng`, the same in every test of one submission and different for every student.
LINREG_N, LINREG_TEST = 300, 2000  # 2000 test points: noise alone moves a 100-point mean squared error by 0.6
RINGS_N, RINGS_TEST = 300, 1000  # per ring


def _runs(student, probes, shared_rng, function):
    rng = shared_rng(function)
    data, n, n_test = ((probes.linreg_data, LINREG_N, LINREG_TEST) if function == "train_linreg"
                       else (probes.rings_data, RINGS_N, RINGS_TEST))
    x, y = data(rng, n)
    x_test, y_test = data(rng, n_test)
    ambient = [int(s) for s in rng.integers(0, 2**31, size=2)]
    runs = student.once(probes.book_runs, function, x, y, x_test, ambient)
    assert_true(type(runs) is list and len(runs) == 2 and all(type(r) is dict for r in runs),
                f"{function} should return a trained HouseModel each time it is called.")
    return runs, y_test


def _predictions(got, n, what):
    assert_true(got.get("is_house") is True, f"{what} should return a HouseModel.")
    p = got.get("predict")
    assert_true(type(p) is np.ndarray and p.shape == (n, 1), f"its predict(x) should be an array of shape ({n}, 1).")
    return p.astype("float64")


def _rings_accuracy(p, y_test):
    """The share of points whose probability is on the right side of 0.5 (above: the inner ring)."""
    assert_true(bool(((p >= 0) & (p <= 1)).all()), "predict should give probabilities (between 0 and 1), not logits.")
    return float(((p > 0.5) == (y_test > 0.5)).mean())


@pytest.mark.points(6)
def test_linear_regression_fresh_data(student, probes, shared_rng):
    """train_linreg on 300 fresh points from the book's distribution predicts 2000 others with MSE <= 5 (noise: 4)"""
    runs, y_test = _runs(student, probes, shared_rng, "train_linreg")
    p = _predictions(runs[0], LINREG_TEST, "train_linreg")
    mse = float(((p - y_test) ** 2).mean())
    assert_true(mse <= 5.0, f"the mean squared error on fresh data is {mse:.3f}; it should be at most 5.0.")


@pytest.mark.points(7)
def test_two_rings_fresh_data(student, probes, shared_rng, np_rng):
    """train_rings on 300 + 300 fresh points: probabilities, >= 85% accurate on 2000 others (a second draw if not)"""
    runs, y_test = _runs(student, probes, shared_rng, "train_rings")
    accs = [_rings_accuracy(_predictions(runs[0], 2 * RINGS_TEST, "train_rings"), y_test)]
    if accs[0] >= 0.85:
        return
    # a tiny net sometimes starts stuck: a failing run gets one more, independent draw
    x, y = probes.rings_data(np_rng, RINGS_N)
    x_test, y_test = probes.rings_data(np_rng, RINGS_TEST)
    p = _predictions(student(probes.book_task, "train_rings", x, y, x_test), 2 * RINGS_TEST, "train_rings")
    accs.append(_rings_accuracy(p, y_test))
    assert_true(accs[1] >= 0.85, f"the accuracy on fresh data is {accs[0]:.3f}, then {accs[1]:.3f} on another draw; "
                                 "it should be at least 0.85.")


@pytest.mark.points(3)
def test_rings_net_gives_logits(student, probes, shared_rng):
    """train_rings' net produces logits: predict(x) is the sigmoid of the model's raw output model(x)"""
    runs, _ = _runs(student, probes, shared_rng, "train_rings")
    n = 2 * RINGS_TEST
    p = _predictions(runs[0], n, "train_rings")
    raw = runs[0].get("raw")
    assert_true(type(raw) is np.ndarray and raw.shape == (n, 1), f"model(x) should give one raw output per point ({n}, 1).")
    sig = 1.0 / (1.0 + np.exp(-raw.astype("float64")))
    assert_true(bool(np.allclose(p, sig, rtol=1e-4, atol=1e-5)),
                "predict(x) should be the sigmoid of model(x): the net ends with Dense(1) producing logits (no "
                "sigmoid), trained with BinaryCrossentropy(from_logits=True), and output_activation='sigmoid'.")


@pytest.mark.points(3)
def test_seeded_reproducible(student, probes, shared_rng):
    """train_linreg and train_rings seed themselves: the same predictions whatever global seed was set before the call"""
    for function in ("train_linreg", "train_rings"):
        runs, y_test = _runs(student, probes, shared_rng, function)
        preds = [_predictions(r, len(y_test), function) for r in runs]
        if function == "train_linreg":  # a constant model is reproducible too: it must also have learnt the data
            mse = float(((preds[0] - y_test) ** 2).mean())
            assert_true(mse <= 5.0, f"train_linreg: the mean squared error on fresh data is {mse:.3f}; it should be at most 5.0.")
        assert_true(bool(np.allclose(preds[0], preds[1], rtol=1e-5, atol=1e-6)),
                    f"{function} trained twice on the same data gives other predictions when another global seed was set "
                    "before it: seed it yourself (keras.utils.set_random_seed) so that its result is reproducible.")
