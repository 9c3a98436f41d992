import pytest
import torch

from autograder.judge.checks import assert_equal, assert_true


def _pair(got, function):
    assert_true(got["returned"] == "pair",
                f"{function}(train_data, val_data) should return the pair (model, history), but returned a {got['returned']}.")


@pytest.mark.points(1)
@pytest.mark.hint("Train nn.Linear(2, 1) with MSELoss and the 'mae' metric through your KerasModel until the "
                  "weights approach the true ones (2, -3) and bias 10.")
def test_linear_regression(student, probes, rng):
    """train_linreg on 280 fresh points (validation: 120) and the history it returns"""
    (Xtr, Ytr), (Xva, Yva) = probes.linreg_data(rng, 280), probes.linreg_data(rng, 120)
    got = student(probes.book_task, "train_linreg", Xtr, Ytr, Xva, Yva, 20, torch.zeros(1, 2))
    _pair(got, "train_linreg")
    assert_equal(got["model_type"], "KerasModel", name="the type of the model train_linreg returns")
    assert_equal(got["modules"], ["Linear"], name="the layers of the model's net")
    assert_equal(got["columns"], ["epoch", "train_loss", "train_mae", "lr", "val_loss", "val_mae"],
                 name="the columns of the history train_linreg returns")
    w, b = got["state"]["weight"], got["state"]["bias"]
    assert_true(bool((w - torch.tensor([[2.0, -3.0]])).abs().max() <= 0.25),
                f"the learned weights {w.tolist()} should be within 0.25 of [[2, -3]].")
    assert_true(bool((b - 10.0).abs().max() <= 1.0), f"the learned bias {b.tolist()} should be within 1.0 of 10.")


@pytest.mark.points(2)
@pytest.mark.hint("The 2-4-8-1 ReLU net outputs logits (no sigmoid): use BCEWithLogitsLoss and BinaryAccuracy "
                  "under the name 'acc'.")
def test_two_rings(student, probes, rng):
    """train_rings on 2800 fresh ring points (validation: 1200): architecture, history, and four easy points"""
    (Xtr, Ytr), (Xva, Yva) = probes.ring_data(rng, 1400), probes.ring_data(rng, 600)
    X = torch.tensor([[0.0, 5.0], [-5.0, 0.0], [8.0, 0.0], [0.0, -8.0]])  # two inner (1), two outer (0)
    got = student(probes.book_task, "train_rings", Xtr, Ytr, Xva, Yva, 100, X)
    _pair(got, "train_rings")
    assert_equal(got["model_type"], "KerasModel", name="the type of the model train_rings returns")
    assert_equal(got["modules"], ["Linear", "ReLU", "Linear", "ReLU", "Linear"], name="the layers of the model's net")
    assert_equal(got["shapes"], {"0.weight": [4, 2], "0.bias": [4], "2.weight": [8, 4], "2.bias": [8],
                                 "4.weight": [1, 8], "4.bias": [1]}, name="the parameter shapes of the model's net")
    assert_equal(got["loss_type"], "BCEWithLogitsLoss", name="the loss of the model train_rings returns")
    assert_equal(got["columns"], ["epoch", "train_loss", "train_acc", "lr", "val_loss", "val_acc"],
                 name="the columns of the history train_rings returns")
    logits = got["outputs"].reshape(-1)
    assert_true(bool(logits[0] > 0 and logits[1] > 0 and logits[2] < 0 and logits[3] < 0),
                f"the trained net should give positive logits at the first two points (radius 5) and negative ones at "
                f"the last two (radius 8), but gave {[round(float(v), 3) for v in logits]}.")
