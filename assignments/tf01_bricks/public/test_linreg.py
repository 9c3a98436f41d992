import pytest

from autograder.judge.checks import assert_close, assert_true


@pytest.mark.points(1)
@pytest.mark.hint("The book's loss is the mean over the batch of (prediction - target)**2 / 2.")
def test_linreg_loss_known_values(student, probes):
    """linreg_loss on a two-row example"""
    got = student(probes.linreg_loss, [[1.0], [2.0]], [[0.0], [0.0]])
    assert_close(got, probes.tf_value(1.25), name="linreg_loss([[1], [2]], [[0], [0]])")


@pytest.mark.points(2)
@pytest.mark.hint("Record the forward pass and the loss under tf.GradientTape, take tape.gradient(loss, [w, b]) and "
                  "hand optimizer.apply_gradients the pairs zip(grads, [w, b]): each gradient beside its variable.")
def test_linreg_two_steps_known_values(student, probes):
    """two linreg_train_step calls with SGD(0.5) on a tiny batch, eagerly and inside a tf.function"""
    X, Y = [[1.0, 0.0], [0.0, 1.0]], [[1.0], [2.0]]
    for graph in (False, True):
        how = "inside tf.function" if graph else "eagerly"
        got = student(probes.linreg_steps, X, Y, [[0.0], [0.0]], [[0.0]], "sgd", 0.5, 2, graph)
        assert_close(got["losses"], [probes.tf_value(1.25), probes.tf_value(0.140625)],
                     name=f"the losses returned by two steps run {how}")
        assert_close(got["w"], probes.tf_value([[0.25], [0.6875]]), name=f"w after two steps run {how}")
        assert_close(got["b"], probes.tf_value([[0.9375]]), name=f"b after two steps run {how}")


@pytest.mark.points(1)
@pytest.mark.hint("One tf.function(linreg_train_step) per fit, every batch of batches(X, Y, batch_size, seed + e) "
                  "in epoch e, and one float per epoch: the mean of its step losses.")
def test_fit_linreg_recovers_the_line(student, probes):
    """fit_linreg on the book's data (SGD 0.03, 10 epochs of batches of 40) finds w near (2, -3) and b near 3"""
    got = student(probes.linreg_fit, (400, 0), [[0.0], [0.0]], [[0.0]], "sgd", 0.03, 10, 40, 0)
    hist = got["history"]
    assert_true(type(hist) is list and len(hist) == 10 and all(type(h) is float for h in hist),
                "fit_linreg should return a list of 10 Python floats (one per epoch).")
    assert_true(hist[-1] < hist[0], f"the epoch losses should go down; they went from {hist[0]:.3f} to {hist[-1]:.3f}.")
    w, b = got["w"].values.flatten().tolist(), got["b"].values.flatten().tolist()
    # the master ends at w = (1.968, -3.042), b = 2.945: the same data, start and batch order for everyone
    assert_true(abs(w[0] - 2) < 0.2 and abs(w[1] + 3) < 0.2 and abs(b[0] - 3) < 0.5,
                f"after 10 epochs w = ({w[0]:.3f}, {w[1]:.3f}) and b = {b[0]:.3f}; the data were made with w = (2, -3), b = 3.")
