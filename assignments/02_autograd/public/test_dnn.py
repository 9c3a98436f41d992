import pytest
import torch

from autograder.judge.checks import assert_equal, assert_tensor

NAMES = ["w1", "b1", "w2", "b2", "w3", "b3"]
SHAPES = [[2, 4], [1, 4], [4, 8], [1, 8], [8, 1], [1, 1]]


@pytest.mark.points(1)
@pytest.mark.hint("Assign nn.Parameter attributes in __init__ in the order w1, b1, w2, b2, w3, b3; no nn.Linear.")
def test_dnn_structure(student, probes):
    """DNNModel holds exactly the six float32 parameters, in order, and no sub-modules"""
    got = student(probes.dnn_structure)
    assert_equal(got["is_module"], True, name="whether DNNModel() is an nn.Module")
    assert_equal(got["params"], [[n, s, "float32", "Parameter"] for n, s in zip(NAMES, SHAPES)],
                 name="DNNModel's parameters as [name, shape, dtype, type]")
    assert_equal(got["submodules"], [], name="DNNModel's sub-modules")


@pytest.mark.points(2)
@pytest.mark.hint("forward: relu(x @ w1 + b1), then relu(. @ w2 + b2), then sigmoid(. @ w3 + b3).")
def test_dnn_forward_known_values(student, probes):
    """DNNModel's forward on hand-picked parameters"""
    state = {"w1": torch.tensor([[1.0, 0.0, 0.0, 0.0], [0.0, 1.0, 0.0, 0.0]]), "b1": torch.zeros(1, 4),
             "w2": torch.full((4, 8), 0.5), "b2": torch.zeros(1, 8),
             "w3": torch.full((8, 1), 0.25), "b3": torch.zeros(1, 1)}
    X = torch.tensor([[1.0, -2.0], [-1.0, 3.0]])
    got = student(probes.dnn_forward, state, X, torch.ones(2, 1))
    assert_tensor(got["y"], torch.tensor([[0.7310586], [0.9525741]]), name="the predictions for two points")
