import pytest
import torch

from autograder.judge.checks import assert_close, assert_tensor, assert_true


@pytest.mark.points(1)
@pytest.mark.hint("The book's loss is the mean over the batch of (prediction - target)**2 / 2.")
def test_linreg_loss_known_values(student, probes):
    """linreg_loss on a two-row example"""
    got = student(probes.linreg_loss, torch.tensor([[1.0], [2.0]]), torch.tensor([[0.0], [0.0]]))
    assert_tensor(got["loss"], torch.tensor(1.25), name="linreg_loss([[1], [2]], [[0], [0]])")


@pytest.mark.points(2)
@pytest.mark.hint("Update w and b in place under torch.no_grad(), then zero their .grad so the next step starts "
                  "fresh; return loss.item() computed before the update.")
def test_linreg_two_steps_known_values(student, probes):
    """two linreg_step calls on a tiny batch"""
    X, Y = torch.tensor([[1.0, 0.0], [0.0, 1.0]]), torch.tensor([[1.0], [2.0]])
    got = student(probes.linreg_steps, X, Y, torch.zeros(2, 1), torch.zeros(1, 1), 0.5)
    assert_close(got["losses"], [1.25, 0.140625], name="the losses returned by two steps")
    assert_tensor(got["w"], torch.tensor([[0.25], [0.6875]]), name="w after two steps")
    assert_tensor(got["b"], torch.tensor([[0.9375]]), name="b after two steps")
    for k in ("w_grad", "b_grad"):
        g = got[k]
        assert_true(g is None or (type(g) is torch.Tensor and not bool(g.abs().sum())),
                    f"{k[0]}.grad should be zero (or None) after a step, so the next step does not accumulate into it.")
