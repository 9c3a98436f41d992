import pytest
import torch

from autograder.judge.checks import assert_equal, assert_true


@pytest.mark.points(3)
@pytest.mark.hint("Each batch: zero_grad, loss = MSELoss()(model(x), y), backward, step; loop over the DataLoader for every epoch.")
def test_fits_book_data(student, probes):
    """train_linear_regression on the book's data ends near w = (2, -3), b = 10"""
    X, y = probes.linreg_data(torch.Generator().manual_seed(0), 400)
    got = student(probes.linear_regression_run, X, y, {})
    assert_equal(got["classes"][0], "torch.nn.modules.linear.Linear", name="the returned model's class")
    w, b = got["weight"].double(), got["bias"].double()
    assert_true(tuple(w.shape) == (1, 2) and tuple(b.shape) == (1,),
                f"the model should be nn.Linear(2, 1) (weight [1, 2], bias [1]), but its weight is {list(w.shape)} "
                f"and its bias {list(b.shape)}")
    assert_true(abs(float(w[0, 0]) - 2) < 0.2 and abs(float(w[0, 1]) + 3) < 0.2,
                f"the weights ({float(w[0, 0]):.3f}, {float(w[0, 1]):.3f}) are not close to (2, -3)")
    assert_true(abs(float(b[0]) - 10) < 0.5, f"the bias {float(b[0]):.3f} is not close to 10")
