import pytest
import torch
import torch.nn.functional as F

from autograder.judge.checks import assert_equal, assert_tensor


def _state():
    w1 = torch.linspace(-1.0, 1.0, 16 * 4).reshape(16, 4)
    b1 = torch.linspace(-0.5, 0.5, 16)
    w2 = torch.linspace(1.0, -1.0, 16).reshape(1, 16)
    b2 = torch.tensor([0.25])
    return {"0.weight": w1, "0.bias": b1, "3.weight": w2, "3.bias": b2}


@pytest.mark.points(4)
@pytest.mark.hint("Move the model once, switch it to evaluation mode (dropout off), run every batch under "
                  "torch.no_grad(), concatenate the outputs and bring them back to the CPU.")
def test_predict_small(student, probes):
    """predict on a small model with dropout, in 3 uneven batches"""
    s = _state()
    X = torch.arange(40.0).reshape(10, 4) / 10 - 2
    y = torch.zeros(10, 1)
    expected = F.linear(F.relu(F.linear(X, s["0.weight"], s["0.bias"])), s["3.weight"], s["3.bias"])
    got = student(probes.predict, s, X, y, 4, "cpu")
    assert_tensor(got.get("value"), expected, name="predict(model, loader, 'cpu')")
    assert_equal(got.get("requires_grad"), False, name="whether the predictions require grad")
    assert_equal(got.get("training"), False, name="model.training after predict")
