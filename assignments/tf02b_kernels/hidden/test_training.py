import math

import pytest
import torch

from autograder.judge.checks import assert_close, assert_true


@pytest.mark.points(3)
def test_losses_random(student, probes, rng, helpers):
    """logcosh_loss and ring_loss equal their formulas on random batches, residuals far from 0 included"""
    for _ in range(2):
        n = helpers.randint(rng, 1, 30)
        yp, yt = torch.randn(n, 1, generator=rng) * 30, torch.randn(n, 1, generator=rng) * 30
        r = (yp - yt).double()
        want = (r.abs() + torch.log1p(torch.exp(-2 * r.abs())) - math.log(2.0)).mean().float()
        assert_close(student(probes.logcosh_loss, yp, yt), want, name=f"logcosh_loss on a batch of {n}", rtol=1e-4, atol=1e-4)
        logits, labels = torch.randn(n, 2, generator=rng) * 20, torch.randint(0, 2, (n,), generator=rng)
        want = torch.nn.functional.cross_entropy(logits, labels)
        assert_close(student(probes.ring_loss, logits, labels), want, name=f"ring_loss on a batch of {n}", rtol=1e-4, atol=1e-4)


@pytest.mark.points(4)
def test_linreg_steps_random(student, reference, probes, rng, helpers):
    """five linreg_train_step calls agree with the reference on fresh data and start"""
    data = (helpers.randint(rng, 50, 150), helpers.randint(rng, 0, 10_000))
    w, b = torch.randn(2, 1, generator=rng), torch.randn(1, 1, generator=rng)
    args = (data, w, b, 0.01, 5)
    assert_close(student(probes.linreg_steps, *args), reference(probes.linreg_steps, *args),
                 name=f"five SGD(learning_rate=0.01) steps of linreg_train_step on {data[0]} fresh points", rtol=1e-4, atol=1e-4)


@pytest.mark.points(4)
def test_fit_rings_random(student, probes, rng, helpers):
    """fit_rings classifies fresh rings with at least 90 % accuracy"""
    # judged on 20000 fresh points: the rings overlap (radius 5 and 8, sd 1: at best 93.3 % right), a correct model's
    # accuracy is 0.91-0.93, and 20000 points measure it within 0.2 points (sd), where 400 spread it by 1.3; a run under
    # the bar trains again on a second, independent draw (docs/writing-tests.md, "False failures")
    labels = torch.cat([torch.ones(10000, dtype=torch.int32), torch.zeros(10000, dtype=torch.int32)])
    for attempt in range(2):
        data = (helpers.randint(rng, 150, 250), helpers.randint(rng, 150, 250), helpers.randint(rng, 0, 10_000))
        pred = student(probes.rings_fit, data, (10000, 10000, data[2] + 1), helpers.randint(rng, 0, 1000))
        assert_true(type(pred) is torch.Tensor and pred.shape == labels.shape,
                    f"fit_rings' model should give two logits per point: its argmax has shape {getattr(pred, 'shape', pred)!r}.")
        acc = float((pred == labels).float().mean())
        if acc >= 0.9:
            return
    assert_true(acc >= 0.9, f"fit_rings' model classifies {acc:.1%} of 20000 fresh ring points right (at least 90 % expected), "
                            "on two independent draws.")
