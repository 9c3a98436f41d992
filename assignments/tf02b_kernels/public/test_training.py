import math

import pytest
import torch

from autograder.judge.checks import assert_close, assert_true


@pytest.mark.points(1)
@pytest.mark.hint("r = y_pred - y_true; kit_log_sum_exp(tf.stack([r, -r], axis=-1)) - log 2, then the mean. ring_loss: "
                  "kit_log_sum_exp(logits) - tf.gather(logits, labels[:, None], batch_dims=1)[:, 0], then the mean.")
def test_losses_known(student, probes):
    """logcosh_loss and ring_loss on small batches"""
    yp, yt = torch.tensor([[0.0], [1.0], [100.0]]), torch.tensor([[0.0], [0.0], [0.0]])
    want = torch.tensor([0.0, math.log(math.cosh(1.0)), 100.0 - math.log(2.0)]).mean()
    assert_close(student(probes.logcosh_loss, yp, yt), want, name="logcosh_loss of residuals 0, 1 and 100", rtol=1e-5)
    logits, labels = torch.tensor([[2.0, 0.0], [0.0, 50.0]]), torch.tensor([0, 0])
    assert_close(student(probes.ring_loss, logits, labels), torch.nn.functional.cross_entropy(logits, labels),
                 name="ring_loss", rtol=1e-5)


@pytest.mark.points(2)
@pytest.mark.hint("Under a tape: loss = logcosh_loss(X @ w + b, Y); tape.gradient(loss, [w, b]); optimizer.apply_gradients.")
def test_linreg_step_moves(student, probes):
    """linreg_train_step lowers the loss over ten steps"""
    got = student(probes.linreg_steps, (100, 0), torch.zeros(2, 1), torch.zeros(1, 1), 0.01, 10)
    losses = got.get("losses") if type(got) is dict else None
    assert_true(type(losses) is list and len(losses) == 10 and all(type(v) is torch.Tensor for v in losses) and float(losses[-1]) < float(losses[0]), f"the losses of ten steps: {losses}")


@pytest.mark.points(2)
@pytest.mark.hint("Dense(16) -> KitSiluLayer() -> Dense(2), Adam(0.05), 150 full-batch steps of ring_loss in one tf.function.")
def test_fit_rings_accuracy(student, probes):
    """fit_rings classifies fresh rings with at least 90 % accuracy"""
    pred = student(probes.rings_fit, (200, 200, 0), (200, 200, 1), 0)
    labels = torch.cat([torch.ones(200, dtype=torch.int32), torch.zeros(200, dtype=torch.int32)])
    acc = float((pred == labels).float().mean()) if type(pred) is torch.Tensor and pred.shape == labels.shape else 0.0
    assert_true(acc >= 0.9, f"fit_rings' model classifies {acc:.1%} of 400 fresh ring points right (at least 90 %).")
