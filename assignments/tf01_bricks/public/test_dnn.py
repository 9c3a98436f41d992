import pytest
import torch

from autograder.judge.checks import assert_close, assert_equal, assert_true

def book_state(shapes, seed):
    """The book's start: truncated-normal weights (within 2 standard deviations), zero biases."""
    g = torch.Generator().manual_seed(seed)
    return {n: torch.zeros(s) if n[0] == "b" else torch.nn.init.trunc_normal_(torch.empty(s), a=-2.0, b=2.0, generator=g)
            for n, s in shapes.items()}


@pytest.mark.points(1)
@pytest.mark.hint("A tf.Module collects the tf.Variables you assign as attributes in __init__: w1, b1, w2, b2, w3, b3.")
def test_dnn_structure(student, probes):
    """DNNModel is a tf.Module holding the six float32 variables"""
    got = student(probes.dnn_structure)
    assert_equal(got["is_module"], True, name="whether DNNModel() is a tf.Module")
    assert_equal(got["params"], [[n, s, "float32", True] for n, s in probes.DNN_SHAPES.items()],
                 name="DNNModel's variables as [name, shape, dtype, is a tf.Variable]")
    assert_equal(got["n_trainable"], 6, name="the number of DNNModel().trainable_variables")


@pytest.mark.points(1)
@pytest.mark.hint("__call__: relu(x @ w1 + b1), then relu(. @ w2 + b2), then sigmoid(. @ w3 + b3).")
def test_dnn_forward_known_values(student, probes):
    """DNNModel's forward on hand-picked variables"""
    state = {"w1": [[1.0, 0.0, 0.0, 0.0], [0.0, 1.0, 0.0, 0.0]], "b1": [[0.0] * 4],
             "w2": [[0.5] * 8] * 4, "b2": [[0.0] * 8], "w3": [[0.25]] * 8, "b3": [[0.0]]}
    got = student(probes.dnn_forward, state, [[1.0, -2.0], [-1.0, 3.0]], [[1.0], [1.0]])
    assert_close(got["y"], probes.tf_value([[0.7310586], [0.9525741]]), name="the predictions for two points")


@pytest.mark.points(1)
@pytest.mark.hint("Clip the predictions into [eps, 1 - eps] with tf.clip_by_value before the logs; predictions "
                  "come first, labels second.")
def test_bce_known_values(student, probes):
    """bce_loss on ordinary and on saturated predictions"""
    got = student(probes.bce, [[0.5], [0.9]], [[1.0], [0.0]])
    assert_close(got, probes.tf_value(0.5 * (0.6931472 + 2.3025851)), name="bce_loss([[0.5], [0.9]], [[1], [0]])")
    got = student(probes.bce, [[0.0], [1.0]], [[1.0], [0.0]])
    # clipped to 1e-7 and to 1 - 1e-7, which float32 rounds to 0.99999988: the mean of -log(1e-7) and -log(1.19e-7)
    assert_close(got, probes.tf_value((16.118095 + 15.942385) / 2), rtol=1e-4,
                 name="bce_loss of predictions 0 and 1 that are both wrong (label 1, then label 0)")


@pytest.mark.points(1)
@pytest.mark.hint("dnn_train_step: loss under a tape, grads = tape.gradient(loss, model.trainable_variables), "
                  "optimizer.apply_gradients(zip(grads, model.trainable_variables)).")
def test_fit_dnn_separates_the_rings(student, probes):
    """fit_dnn (Adam 0.05, 5 epochs of batches of 100 on 2000 points) separates fresh rings (accuracy >= 0.85)"""
    got = student(probes.dnn_fit, book_state(probes.DNN_SHAPES, 0), (1000, 1000, 0), "adam", 0.05, 5, 100, 0, (500, 500, 1))
    hist, pred = got["history"], got["pred"]
    assert_true(type(hist) is list and len(hist) == 5 and all(type(h) is float for h in hist),
                "fit_dnn should return a list of 5 Python floats (one per epoch).")
    assert_true(getattr(pred, "shape", None) == (1000, 1), "after fit_dnn the model should predict one probability per point.")
    labels = torch.cat([torch.ones(500), torch.zeros(500)])
    acc = float(((pred.values[:, 0] > 0.5).float() == labels).float().mean())
    # the master reaches 0.916 here: the same data, start and batch order for everyone (a broken fit stays near 0.5)
    assert_true(acc >= 0.85, f"after 5 epochs the accuracy on fresh rings is {acc:.3f}; it should reach 0.85.")
