import pytest
import torch

from autograder.judge.checks import advise, assert_close


@pytest.mark.points(3)
@pytest.mark.hint("torch.autograd.grad takes lists of outputs and inputs; retain_graph keeps the graph for "
                  "another pass; an input that an output does not use needs allow_unused/materialize_grads.")
def test_multi_grads_known_values(student, probes):
    """multi_grads of u = sum(a*b), w = sum(a**2) at small vectors"""
    a, b = torch.tensor([1.0, 2.0]), torch.tensor([3.0, 4.0])
    got = student(probes.multi_grads, a, b, "prod_square")
    want = {"u": (torch.tensor([3.0, 4.0]), torch.tensor([1.0, 2.0])),
            "w": (torch.tensor([2.0, 4.0]), torch.tensor([0.0, 0.0])),
            "sum": (torch.tensor([5.0, 8.0]), torch.tensor([1.0, 2.0]))}
    assert_close(got["result"], want, name="multi_grads(u = sum(a*b), w = sum(a**2)) at a = [1, 2], b = [3, 4]")


@pytest.mark.points(0)
def test_advice_multi_grads(student, probes):
    """advice: multi_grads calls f once"""
    got = student(probes.multi_grads, torch.tensor([1.0, 2.0]), torch.tensor([3.0, 4.0]), "prod_square")
    advise(got["calls"] == 1, f"multi_grads called f {got['calls']} times: one forward pass and retain_graph=True serve all three gradients.")
