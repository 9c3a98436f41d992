import pytest
import torch

from autograder.judge.checks import assert_tensor


@pytest.mark.points(1)
@pytest.mark.hint("A mean, not a sum, of the squared errors, halved; the result is a 0-d tensor.")
def test_half_mse_known(student, probes):
    """half_mse on a small example"""
    got = student(probes.half_mse, torch.tensor([[1.0], [2.0], [4.0]]), torch.tensor([[0.0], [2.0], [1.0]]))
    assert_tensor(got, torch.tensor(10.0 / 6.0), name="half_mse([1, 2, 4], [0, 2, 1])")


@pytest.mark.points(1)
@pytest.mark.hint("Reduce over the rows (dim=0) to get one mean and one std per column; torch's std is unbiased.")
def test_standardize_known(student, probes):
    """standardize on a small example"""
    X = torch.tensor([[1.0, 10.0], [2.0, 20.0], [3.0, 60.0]])
    want = torch.tensor([[-1.0, -0.7559289], [0.0, -0.3779645], [1.0, 1.1338934]])
    assert_tensor(student(probes.standardize, X), want, name="standardize([[1, 10], [2, 20], [3, 60]])")


@pytest.mark.points(1)
@pytest.mark.hint("topk works along a dimension you choose and returns (values, indices); sort by one column, then index whole rows.")
def test_topk_and_sort_known(student, probes):
    """top_k_rows and sort_by_column on small examples"""
    scores = torch.tensor([[0.1, 0.5, 0.3, 0.9], [0.8, 0.2, 0.7, 0.1]])
    assert_tensor(student(probes.top_k_rows, scores, 2), torch.tensor([[3, 1], [0, 2]]), name="top_k_rows(scores, 2)")
    X = torch.tensor([[3.0, 0.0], [1.0, 2.0], [2.0, 1.0]])
    assert_tensor(student(probes.sort_by_column, X, 1), torch.tensor([[3.0, 0.0], [2.0, 1.0], [1.0, 2.0]]), name="sort_by_column(X, 1)")
