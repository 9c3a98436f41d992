import pytest
import torch

from autograder.judge.checks import advise, assert_close, assert_equal, assert_tensor


@pytest.mark.points(1)
@pytest.mark.hint("x + (something - x).detach() has the value of something but the gradient of x.")
def test_straight_through_known_values(student, probes):
    """straight_through_round rounds forward and passes the gradient through unchanged"""
    x, v = torch.tensor([0.4, 1.6, -2.3]), torch.tensor([1.0, 2.0, 3.0])
    got = student(probes.straight_through, x, v)
    assert_tensor(got["y"], torch.tensor([0.0, 2.0, -2.0]), name="straight_through_round([0.4, 1.6, -2.3])")
    assert_equal(got["requires_grad"], True, name="whether the result requires grad")
    assert_tensor(got["grad"], v, name="the gradient that reaches x")


@pytest.mark.points(1)
@pytest.mark.hint("Inside `with torch.no_grad():` no graph is recorded; .detach() also cuts a tensor out of the graph.")
def test_predict_known_values(student, probes):
    """predict computes x @ w without recording a graph"""
    w, x = torch.tensor([[1.0], [2.0]]), torch.tensor([[1.0, 1.0], [2.0, 0.0]])
    assert_close(student(probes.predict, w, x), {"out": torch.tensor([[3.0], [2.0]]), "requires_grad": False},
                 name="predict(w, x)")


@pytest.mark.points(1)
@pytest.mark.hint("A graph is freed by backward; the first pass needs retain_graph=True to allow a second one.")
def test_backward_twice_known_values(student, probes):
    """backward_twice of sum(x**2) accumulates two gradients"""
    got = student(probes.backward_twice, torch.tensor([1.0, -2.0]), "square_sum")
    assert_tensor(got["grad"], torch.tensor([4.0, -8.0]), name="backward_twice(sum of squares) at [1, -2]")


@pytest.mark.points(0)
def test_advice_backward_twice(student, probes):
    """advice: backward_twice calls f once"""
    got = student(probes.backward_twice, torch.tensor([1.0, -2.0]), "square_sum")
    advise(got["calls"] == 1, f"backward_twice called f {got['calls']} times: keep the graph with retain_graph=True instead.")
