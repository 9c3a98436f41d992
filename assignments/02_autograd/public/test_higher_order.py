import pytest
import torch

from autograder.judge.checks import assert_close


@pytest.mark.points(3)
@pytest.mark.hint("torch.autograd.grad(..., create_graph=True) returns a gradient that can itself be differentiated.")
def test_derivatives_of_cube(student, probes):
    """derivatives of x**3 at a few points"""
    x = torch.tensor([1.0, 2.0, -1.0])
    want = (torch.tensor([1.0, 8.0, -1.0]), torch.tensor([3.0, 12.0, 3.0]), torch.tensor([6.0, 12.0, -6.0]))
    assert_close(student(probes.derivatives, x, "cube"), want, name="derivatives(x**3) at [1, 2, -1]")
