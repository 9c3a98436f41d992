import pytest
import torch

from autograder.judge.checks import assert_equal, assert_tensor


@pytest.mark.points(1)
@pytest.mark.hint("[N, d] @ [d, 1] is [N, 1]; adding b of shape [1] broadcasts over the rows.")
def test_linear_known(student, probes):
    """linear on a small example"""
    X = torch.tensor([[1.0, 2.0], [3.0, 4.0], [0.0, 0.0]])
    got = student(probes.linear, X, torch.tensor([[2.0], [-3.0]]), torch.tensor([10.0]))
    assert_tensor(got, torch.tensor([[6.0], [4.0], [10.0]]), name="linear(X, [[2], [-3]], [10])")


@pytest.mark.points(1)
@pytest.mark.hint("An einsum index that is missing from the output is summed over; n stays, i and j go.")
def test_bilinear_known(student, probes):
    """bilinear on a small example"""
    x = torch.tensor([[1.0, 0.0], [1.0, 2.0]])
    W = torch.tensor([[1.0, 2.0, 0.0], [0.0, 1.0, 1.0]])
    y = torch.tensor([[1.0, 1.0, 1.0], [0.0, 1.0, 2.0]])
    assert_tensor(student(probes.bilinear, x, W, y), torch.tensor([3.0, 8.0]), name="bilinear(x, W, y)")


@pytest.mark.points(1)
@pytest.mark.hint("Align the shapes on the right; pad the shorter one with 1s; sizes must match or be 1. "
                  "Apply the rules yourself, on the tuples: torch.broadcast_shapes would answer, and teach you nothing.")
def test_broadcast_shape_known(student, probes):
    """broadcast_shape on a few pairs of shapes"""
    cases = [((5, 1, 3), (4, 1), {"out": (5, 4, 3)}), ((3,), (2, 3), {"out": (2, 3)}),
             ((3, 4), (3,), {"error": "ValueError"})]
    for (a, b, want), got in zip(cases, student.map(probes.broadcast_shape, [(a, b) for a, b, _ in cases])):
        assert_equal(got, want, name=f"broadcast_shape({a}, {b})")
