import pytest
import torch

from autograder.judge.checks import assert_tensor, assert_true


@pytest.mark.points(1)
@pytest.mark.hint("Square the differences, then reduce: 'mean' averages over all elements, 'sum' adds them, 'none' keeps them.")
def test_mse_known_values(student, probes):
    """mse_loss on a 2x2 example, all three reductions"""
    a = torch.tensor([[1.0, 2.0], [3.0, 4.0]])
    b = torch.tensor([[0.0, 2.0], [5.0, 1.0]])
    assert_tensor(student(probes.loss_run, "mse_loss", a, b, "mean")["value"], torch.tensor(3.5), name="mse_loss(reduction='mean')")
    assert_tensor(student(probes.loss_run, "mse_loss", a, b, "sum")["value"], torch.tensor(14.0), name="mse_loss(reduction='sum')")
    assert_tensor(student(probes.loss_run, "mse_loss", a, b, "none")["value"], torch.tensor([[1.0, 0.0], [4.0, 9.0]]),
                  name="mse_loss(reduction='none')")
    assert_tensor(student(probes.loss_run, "mse_loss", a, b, "mean")["grad_a"], torch.tensor([[0.5, 0.0], [-1.0, 1.5]]),
                  name="the gradient of the mean MSE")


@pytest.mark.points(2)
@pytest.mark.hint("Use the log-sum-exp form max(z, 0) - z*y + log(1 + exp(-|z|)): it never takes the log of 0 or exp of a large number.")
def test_bce_extreme_logits(student, probes):
    """bce_with_logits stays finite and correct for logits of ±100 and ±1000"""
    z = torch.tensor([-1000.0, -100.0, -2.0, 0.5, 100.0, 1000.0])
    y = torch.tensor([1.0, 0.0, 0.25, 1.0, 0.0, 1.0])
    got = student(probes.loss_run, "bce_with_logits", z, y, "none")
    assert_true(bool(torch.isfinite(got["value"]).all()) if type(got["value"]) is torch.Tensor else False,
                f"bce_with_logits(z, y, reduction='none') for z = {z.tolist()}, y = {y.tolist()} returned {got['value']!r}: "
                "inf or nan (or not a tensor); expected finite values.")
    expected = torch.tensor([1000.0, 0.0, 0.6269280, 0.4740770, 100.0, 0.0])
    assert_tensor(got["value"], expected, name="bce_with_logits(reduction='none')")
    expected_grad = torch.tensor([-1.0, 0.0, -0.1307971, -0.3775407, 1.0, 0.0])
    assert_tensor(got["grad_a"], expected_grad, name="the gradient with respect to the logits")
