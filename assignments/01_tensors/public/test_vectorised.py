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
    """pairwise_distances does the same amount of work for 2 and for 60 points, with the right distances"""
    small = (torch.tensor([[0.0, 0.0], [3.0, 4.0]]), torch.tensor([[0.0, 0.0], [0.0, 4.0], [3.0, 0.0]]))
    line = torch.arange(60.0)
    large = (torch.stack([line, torch.zeros(60)], 1), torch.stack([line, torch.zeros(60)], 1))  # points on the x axis
    a, b = student(probes.cost, "pairwise_distances", small), student(probes.cost, "pairwise_distances", large)
    assert_tensor(a["out"], torch.tensor([[0.0, 4.0, 3.0], [5.0, 3.0, 4.0]]), name="pairwise_distances(A, B) on a 3-4-5 triangle")
    assert_tensor(b["out"], (line[:, None] - line[None, :]).abs(),
                  name="pairwise_distances of the points (0, 0), (1, 0), ..., (59, 0) with themselves (expected |i - j|)")
    assert_true(b["torch_calls"] <= a["torch_calls"] + 2 and b["python_lines"] <= a["python_lines"] + 2,
                f"pairwise_distances ran {a['torch_calls']} torch operations and {a['python_lines']} lines of your code for 2 points, "
                f"but {b['torch_calls']} operations and {b['python_lines']} lines for 60: it loops in Python.")
