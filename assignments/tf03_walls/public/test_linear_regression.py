import numpy as np
import pytest

from autograder.judge.checks import assert_equal, assert_true


def book_data(n=400, seed=0):
    """The notebook's make_linear_data."""
    rng = np.random.default_rng(seed)
    X = rng.uniform(-5.0, 5.0, size=(n, 2))
    y = X @ np.array([[2.0], [-3.0]]) + 10.0 + rng.normal(0.0, 2.0, size=(n, 1))
    return X.astype("float32"), y.astype("float32")


@pytest.mark.points(4)
@pytest.mark.hint("Each batch of make_dataset: loss = MeanSquaredError()(y, model(x)) under a GradientTape, then "
                  "optimizer.apply_gradients(zip(tape.gradient(loss, model.trainable_variables), model.trainable_variables)); "
                  "every epoch, every batch.")
def test_fits_book_data(student, probes):
    """train_linear_regression on the book's data ends near w = (2, -3), b = 10"""
    X, y = book_data()
    got = student(probes.linear_regression_run, X, y, {})
    assert_equal(got["classes"][0], "keras.src.layers.core.dense.Dense", name="the class of what it returns")
    shapes = [list(w.shape) if hasattr(w, "shape") else None for w in got["weights"]]
    assert_equal(shapes, [[2, 1], [1]], name="the shapes of the Dense layer's weights (kernel, bias)")
    w, b = got["weights"][0].ravel().astype("float64"), float(got["weights"][1][0])
    assert_true(abs(w[0] - 2) < 0.4 and abs(w[1] + 3) < 0.4, f"the weights ({w[0]:.3f}, {w[1]:.3f}) are not close to (2, -3)")
    assert_true(abs(b - 10) < 0.5, f"the bias {b:.3f} is not close to 10")
