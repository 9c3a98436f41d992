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
    shown = ([round(float(v), 4) if type(v) is torch.Tensor and v.numel() == 1 else type(v).__name__ for v in losses]
             if type(losses) is list else type(losses).__name__)
    assert_true(type(losses) is list and len(losses) == 10 and all(type(v) is torch.Tensor and v.numel() == 1 for v in losses)
                and float(losses[-1]) < float(losses[0]),
                f"linreg_train_step should return each step's loss (a 0-d tf.Tensor) and lower it over ten steps; "
                f"the ten losses: {shown}")


@pytest.mark.points(2)
@pytest.mark.hint("Dense(16) -> KitSiluLayer() -> Dense(2), Adam(0.05), 150 full-batch steps of ring_loss in one tf.function.")
def test_fit_rings_accuracy(student, probes):
    """fit_rings classifies fresh rings with at least 90 % accuracy"""
    # scored on 20000 fresh points: a correct model's accuracy is 0.91-0.93 (the rings overlap: at best 93.3 %), and on
    # 400 points it spread by 1.3 points, below 90 % for 7 of 10 training seeds on one draw; a run under the bar trains
    # again with seed 1 (docs/writing-tests.md, "False failures")
    labels = torch.cat([torch.ones(10000, dtype=torch.int32), torch.zeros(10000, dtype=torch.int32)])
    for seed in (0, 1):
        pred = student(probes.rings_fit, (200, 200, 0), (10000, 10000, 1), seed)
        acc = float((pred == labels).float().mean()) if type(pred) is torch.Tensor and pred.shape == labels.shape else 0.0
        if acc >= 0.9:
            return
    assert_true(acc >= 0.9, f"fit_rings' model classifies {acc:.1%} of 20000 fresh ring points right (at least 90 %), "
                            "trained with seeds 0 and 1.")
