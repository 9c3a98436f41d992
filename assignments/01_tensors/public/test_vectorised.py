import pytest
import torch

from autograder.judge.checks import assert_loop_free, assert_tensor


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
    """pairwise_distances of 200000 points takes the CPU time of vectorised code, with the right distances"""
    line = torch.arange(200_000.0)
    A = torch.stack([line, torch.zeros_like(line)], 1)  # points on the x axis
    B = torch.tensor([[0.0, 0.0], [1.0, 0.0], [5.0, 0.0]])
    got = assert_loop_free(student, probes.timed, "pairwise_distances", (A, B), name="pairwise_distances of 200000 points",
                           advice="it loops in Python (a for/while loop or a comprehension).")
    assert_tensor(got["out"], (line[:, None] - B[None, :, 0]).abs(),
                  name="pairwise_distances of the points (0, 0), (1, 0), ..., (199999, 0) with (0, 0), (1, 0), (5, 0) (expected |i - j|)")
