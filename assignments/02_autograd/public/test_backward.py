import pytest
import torch

from autograder.judge.checks import advise, assert_tensor


@pytest.mark.points(2)
@pytest.mark.hint("For a scalar output, y.backward() stores dy/dx in the .grad of a leaf that requires grad.")
def test_grad_at_known_values(student, probes):
    """grad_at of sum(x**2) at a small vector"""
    got = student(probes.grad_at, torch.tensor([1.0, 2.0, 3.0]), "square_sum")
    assert_tensor(got["grad"], torch.tensor([2.0, 4.0, 6.0]), name="grad_at(sum of squares) at [1, 2, 3]")


@pytest.mark.points(2)
@pytest.mark.hint("For a non-scalar output y, y.backward(gradient=v) computes the gradient of sum(v * y).")
def test_vjp_known_values(student, probes):
    """vjp of x**2 with a given vector v"""
    x = torch.tensor([1.0, 2.0, 3.0])
    v = torch.tensor([1.0, 0.5, -1.0])
    got = student(probes.vjp, x, v, "square")
    assert_tensor(got["grad"], torch.tensor([2.0, 2.0, -6.0]), name="vjp(x**2) at [1, 2, 3] with v = [1, 0.5, -1]")


@pytest.mark.points(0)
def test_advice_backward(student, probes):
    """advice: grad_at and vjp call f once and use y.backward"""
    x = torch.tensor([1.0, 2.0, 3.0])
    for got, what in ((student(probes.grad_at, x, "square_sum"), "grad_at"), (student(probes.vjp, x, x, "square"), "vjp")):
        advise(got["calls"] == 1, f"{what} called f {got['calls']} times: one forward pass builds the graph that backward needs.")
        advise(got["backward_calls"] >= 1, f"{what} should use y.backward(...) (the exercise's contract), not torch.autograd.grad.")
