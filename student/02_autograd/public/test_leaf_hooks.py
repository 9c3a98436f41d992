import pytest
import torch

from autograder.judge.checks import assert_close


@pytest.mark.points(2)
@pytest.mark.hint("Only leaves that require grad get .grad from backward; call retain_grad() on an intermediate "
                  "tensor before backward to keep its gradient. A leaf has grad_fn None.")
def test_inspect_graph_known_values(student, probes):
    """inspect_graph on a one-row example"""
    x, w, b = torch.tensor([[1.0, 2.0]]), torch.tensor([[1.0], [1.0]]), torch.tensor([0.5])
    want = {
        "is_leaf": [True, True, True, False, False],
        "requires_grad": [False, True, True, True, True],
        "grad_fn": [None, None, None, "AddBackward0", "MeanBackward0"],
        "z_grad": torch.tensor([[7.0]]), "w_grad": torch.tensor([[7.0], [14.0]]), "b_grad": torch.tensor([7.0]),
    }
    assert_close(student(probes.inspect_graph, x, w, b), want, name="inspect_graph on x = [[1, 2]], w = [[1], [1]], b = [0.5]")


@pytest.mark.points(1)
@pytest.mark.hint("A hook registered with z.register_hook(fn) receives the gradient of z; what it returns replaces it.")
def test_scaled_grads_known_values(student, probes):
    """scaled_grads halves the gradient flowing through z"""
    x, w, b = torch.tensor([[1.0, 2.0]]), torch.tensor([[1.0], [1.0]]), torch.tensor([0.5])
    want = (torch.tensor([[3.5], [7.0]]), torch.tensor([3.5]))
    assert_close(student(probes.scaled_grads, x, w, b, 0.5), want, name="scaled_grads with scale 0.5 on the one-row example")
