import pytest
import torch

from autograder.judge.checks import assert_equal, assert_true


@pytest.mark.points(1)
@pytest.mark.hint("Train nn.Linear(2, 1) with MSELoss and the 'mae' metric through your KerasModel until the "
                  "weights approach the true ones (2, -3) and bias 10.")
def test_linear_regression(student, probes):
    """the linear regression model and its history"""
    got = student(probes.book_model, "linreg_model", "linreg_history", torch.zeros(1, 2))
    assert_equal(got["model_type"], "KerasModel", name="the type of linreg_model")
    assert_equal(got["modules"], ["Linear"], name="the layers of linreg_model.net")
    assert_equal(got["columns"], ["epoch", "train_loss", "train_mae", "lr", "val_loss", "val_mae"],
                 name="the columns of linreg_history")
    w, b = got["state"]["weight"], got["state"]["bias"]
    assert_true(bool((w - torch.tensor([[2.0, -3.0]])).abs().max() <= 0.25),
                f"the learned weights {w.tolist()} should be within 0.25 of [[2, -3]].")
    assert_true(bool((b - 10.0).abs().max() <= 1.0), f"the learned bias {b.tolist()} should be within 1.0 of 10.")


@pytest.mark.points(2)
@pytest.mark.hint("The 2-4-8-1 ReLU net outputs logits (no sigmoid): use BCEWithLogitsLoss and BinaryAccuracy "
                  "under the name 'acc'.")
def test_two_rings(student, probes):
    """the two-ring classifier: architecture, history, and four easy points"""
    X = torch.tensor([[0.0, 5.0], [-5.0, 0.0], [8.0, 0.0], [0.0, -8.0]])  # two inner (1), two outer (0)
    got = student(probes.book_model, "ring_model", "ring_history", X)
    assert_equal(got["model_type"], "KerasModel", name="the type of ring_model")
    assert_equal(got["modules"], ["Linear", "ReLU", "Linear", "ReLU", "Linear"], name="the layers of ring_model.net")
    assert_equal(got["shapes"], {"0.weight": [4, 2], "0.bias": [4], "2.weight": [8, 4], "2.bias": [8],
                                 "4.weight": [1, 8], "4.bias": [1]}, name="the parameter shapes of ring_model.net")
    assert_equal(got["loss_type"], "BCEWithLogitsLoss", name="the loss of ring_model")
    assert_equal(got["columns"], ["epoch", "train_loss", "train_acc", "lr", "val_loss", "val_acc"],
                 name="the columns of ring_history")
    logits = got["outputs"].reshape(-1)
    assert_true(bool(logits[0] > 0 and logits[1] > 0 and logits[2] < 0 and logits[3] < 0),
                f"ring_model.net should give positive logits at the first two points (radius 5) and negative ones at the "
                f"last two (radius 8), but gave {[round(float(v), 3) for v in logits]}.")
