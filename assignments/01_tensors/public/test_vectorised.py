import pytest
import torch

from autograder.judge.checks import assert_tensor, assert_true


@pytest.mark.points(1)
@pytest.mark.hint("A[:, None, :] - B[None, :, :] is [n, m, d]; square, sum over the last dimension, take the square root.")
def test_pairwise_distances_known(student, probes):
    """pairwise_distances on a 3-4-5 triangle"""
    A = torch.tensor([[0.0, 0.0], [3.0, 4.0]])
    B = torch.tensor([[0.0, 0.0], [0.0, 4.0], [3.0, 0.0]])
    got = student(probes.pairwise_distances, A, B)
    assert_tensor(got["out"], torch.tensor([[0.0, 4.0, 3.0], [5.0, 3.0, 4.0]]), name="pairwise_distances(A, B)")


@pytest.mark.points(1)
@pytest.mark.hint("The closest row of B for each row of A: reduce the distance matrix along the right dimension.")
def test_nearest_neighbor_known(student, probes):
    """nearest_neighbor on a small example"""
    A = torch.tensor([[0.0, 0.0], [3.0, 4.0], [0.1, 3.0]])
    B = torch.tensor([[0.0, 0.0], [0.0, 4.0], [3.0, 5.0]])
    assert_tensor(student(probes.nearest_neighbor, A, B), torch.tensor([0, 2, 1]), name="nearest_neighbor(A, B)")


@pytest.mark.points(1)
@pytest.mark.hint("No for/while loops or comprehensions: broadcasting computes all n*m distances at once.")
def test_pairwise_distances_no_loops(student, probes):
    """pairwise_distances does the same amount of work for 3 and for 60 points"""
    g = torch.Generator().manual_seed(0)
    small = (torch.randn(3, 2, generator=g), torch.randn(3, 2, generator=g))
    large = (torch.randn(60, 2, generator=g), torch.randn(60, 2, generator=g))
    a, b = student(probes.cost, "pairwise_distances", small), student(probes.cost, "pairwise_distances", large)
    assert_true(b["torch_calls"] <= a["torch_calls"] + 2 and b["python_lines"] <= a["python_lines"] + 2,
                f"pairwise_distances ran {a['torch_calls']} torch operations and {a['python_lines']} lines of your code for 3 points, "
                f"but {b['torch_calls']} operations and {b['python_lines']} lines for 60: it loops in Python.")
