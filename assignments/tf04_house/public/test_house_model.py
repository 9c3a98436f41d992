import numpy as np
import pytest
import torch

from autograder.judge.checks import assert_close, assert_equal

X = np.array([[1.0, 2.0], [-1.0, 0.5], [0.0, -3.0], [2.0, 2.0], [0.5, -0.5], [-2.0, 1.0], [1.5, 0.0], [-0.5, -1.5]],
             dtype="float32")
Y = np.array([[3.0], [-1.0], [0.5], [2.0], [0.0], [-2.5], [1.0], [-1.0]], dtype="float32")
LINEAR = [np.array([[0.5], [-0.25]], dtype="float32"), np.array([0.1], dtype="float32")]
MLP = [np.array([[0.3, -0.2, 0.5], [0.1, 0.4, -0.3]], dtype="float32"), np.array([0.0, 0.1, -0.1], dtype="float32"),
       np.array([[0.7], [-0.4], [0.2]], dtype="float32"), np.array([0.05], dtype="float32")]


def _t(a):
    return torch.from_numpy(np.asarray(a)).double()


def _mlp(weights, x):
    w1, b1, w2, b2 = map(_t, weights)
    return torch.tanh(_t(x) @ w1 + b1) @ w2 + b2


def _f32(t):
    return t.float().numpy()


@pytest.mark.points(2)
@pytest.mark.hint("call returns the net's raw output (the logits); predict_step returns "
                  "self.output_activation(self(x, training=False)), so a classifier's predict gives probabilities.")
def test_predict_applies_the_output_activation(student, probes):
    """a linear classifier: model(x) gives the logits, predict the sigmoid of them"""
    got = student(probes.house_predict, LINEAR, X, "binary")
    logits = _t(X) @ _t(LINEAR[0]) + _t(LINEAR[1])
    assert_close(got["call"], _f32(logits), rtol=1e-5, atol=1e-6, name="model(x) (the logits)")
    assert_close(got["predict"], _f32(torch.sigmoid(logits)), rtol=1e-5, atol=1e-6, name="model.predict(x)")


@pytest.mark.points(2)
@pytest.mark.hint("Inference runs with training=False: pass `training` on to the net in call, and use "
                  "training=False in test_step and predict_step, so Dropout is off when evaluating and predicting.")
def test_no_dropout_at_inference(student, probes):
    """a net with Dropout(0.5): predict and evaluate see the whole net, no dropout"""
    want = _mlp(MLP, X)
    got = student(probes.house_predict, MLP, X, "regression", 0.5)
    assert_close(got["predict"], _f32(want), rtol=1e-5, atol=1e-6, name="model.predict(x) with Dropout(0.5) in the net")
    ev = student(probes.house_evaluate, MLP, X, Y, 4, "regression", 0.5)
    err = want - _t(Y)
    expected = {"loss": float((err ** 2).mean()), "mae": float(err.abs().mean())}
    assert_close(ev["first"], expected, rtol=1e-5, atol=1e-6, name="model.evaluate(x, y, return_dict=True)")


@pytest.mark.points(1)
@pytest.mark.hint("test_step computes the loss and updates the metrics without a GradientTape and without touching "
                  "the optimizer: evaluate never changes a weight.")
def test_evaluate_changes_no_weight(student, probes):
    """evaluate leaves the weights as they were"""
    got = student(probes.house_evaluate, LINEAR, X, Y, 4)
    assert_close(got["weights"], LINEAR, rtol=0, atol=0, name="the weights after evaluate")


@pytest.mark.points(3)
@pytest.mark.hint("train_step: under a GradientTape compute y_pred = self(x, training=True) and "
                  "self.compute_loss(...), apply the gradients with self.optimizer, update every metric of "
                  "self.metrics (the one named 'loss' with the loss) and return {m.name: m.result()}.")
def test_two_epochs_of_sgd(student, probes):
    """fit 2 epochs of SGD(0.1), batches of 4: the History (loss, mae, val_loss, val_mae) and the final weights"""
    got = student(probes.house_fit, LINEAR, X, Y, X[:4], Y[:4], 4, 2, 0.1)
    w = _t(LINEAR[0]).requires_grad_(True)
    b = _t(LINEAR[1]).requires_grad_(True)
    hist = {"loss": [], "mae": [], "val_loss": [], "val_mae": []}
    for _ in range(2):
        losses, abs_err = [], []
        for i in (0, 4):
            err = _t(X[i:i + 4]) @ w + b - _t(Y[i:i + 4])
            loss = (err ** 2).mean()
            losses.append(float(loss.detach()))
            abs_err.append(err.detach().abs())
            gw, gb = torch.autograd.grad(loss, [w, b])
            with torch.no_grad():
                w -= 0.1 * gw
                b -= 0.1 * gb
        hist["loss"].append(sum(losses) / 2)
        hist["mae"].append(float(torch.cat(abs_err).mean()))
        with torch.no_grad():
            err = _t(X[:4]) @ w + b - _t(Y[:4])
        hist["val_loss"].append(float((err ** 2).mean()))
        hist["val_mae"].append(float(err.abs().mean()))
    assert_equal(sorted(got["history"]), sorted(hist), name="the keys of history.history")
    assert_close(got["history"], hist, rtol=1e-4, atol=1e-5, name="history.history")
    assert_close(got["weights"], [_f32(w.detach()), _f32(b.detach())], rtol=1e-4, atol=1e-5, name="the weights after fit")
