import pytest
import torch

from autograder.execute.backend import ProbeError
from autograder.judge.checks import CheckFailed, assert_close


@pytest.mark.points(1)
def test_linreg_loss_random(student, reference, probes, rng):
    """linreg_loss agrees with the reference on random batches"""
    for n in (1, 7, 50):
        yp, yt = torch.randn(n, 1, generator=rng) * 5, torch.randn(n, 1, generator=rng) * 5
        assert_close(student(probes.linreg_loss, yp, yt), reference(probes.linreg_loss, yp, yt),
                     name=f"linreg_loss on a batch of {n}", rtol=1e-5)


@pytest.mark.points(2)
def test_linreg_steps_random(student, reference, probes, rng):
    """three linreg_train_step calls agree with the reference (SGD and Adam, eagerly and in a graph)"""
    for opt, lr, graph in [("sgd", 0.01, False), ("adam", 0.1, False), ("sgd", 0.02, True), ("adam", 0.05, True)]:
        n = int(torch.randint(5, 40, (), generator=rng))
        X = torch.rand(n, 2, generator=rng) * 20 - 10
        Y = X @ torch.tensor([[2.0], [-3.0]]) + 3 + torch.randn(n, 1, generator=rng)
        w, b = torch.randn(2, 1, generator=rng), torch.randn(1, 1, generator=rng)
        args = (X, Y, w, b, opt, lr, 3, graph)
        got, want = student(probes.linreg_steps, *args), reference(probes.linreg_steps, *args)
        how = "inside tf.function" if graph else "eagerly"
        assert_close(got, want, name=f"three steps with {opt}(learning_rate={lr}) run {how} on a batch of {n}",
                     rtol=1e-5, atol=1e-5)


# The two fits of fit_linreg, each read by both fit tests (`student.once`): the configuration, then fresh data, start
# and batch order from `shared_rng`, through the optimizer that sees how often Python runs (probes._paced_optimizer),
# which trains as the plain one when the fit is traced once; only a fit it trains otherwise needs a plain run.
FITS = [("sgd", 0.01, 3, 25), ("adam", 0.1, 2, 30)]


def _paced_fit(student, reference, probes, shared_rng, opt, lr, epochs, batch_size):
    rng = shared_rng(f"fit_linreg:{opt}")
    data = (int(rng.integers(100, 200)), int(rng.integers(0, 10_000)))
    w, b = (torch.from_numpy(rng.standard_normal(s).astype("float32")) for s in ((2, 1), (1, 1)))
    args = (data, w, b, opt, lr, epochs, batch_size, int(rng.integers(0, 1000)))
    return args, student.once(probes.linreg_fit, *args, True), reference.once(probes.linreg_fit, *args, True)


@pytest.mark.points(3)
def test_fit_linreg_random(student, reference, probes, shared_rng):
    """fit_linreg agrees with the reference on fresh data, start and batch order (SGD and Adam)"""
    for opt, lr, epochs, bs in FITS:
        args, got, want = _paced_fit(student, reference, probes, shared_rng, opt, lr, epochs, bs)
        try:
            assert_close(got, want, rtol=1e-4, atol=1e-4)
            continue  # the paced run is the plain training when the fit is traced once
        except (CheckFailed, ProbeError):
            pass  # trained otherwise under the paced optimizer: the values are judged on the plain one
        got, want = student(probes.linreg_fit, *args), reference(probes.linreg_fit, *args)
        assert_close(got, want, name=f"fit_linreg with {opt}(learning_rate={lr}), {epochs} epochs of batches of {bs} "
                                     f"on {args[0][0]} fresh points (history, w, b)", rtol=1e-4, atol=1e-4)


@pytest.mark.points(2)
def test_fit_linreg_one_function_per_fit(student, reference, probes, shared_rng):
    """fit_linreg steps through one tf.function traced for the fit: with an optimizer whose Python body sets the
    learning rate each time it runs (once per trace in a graph, once per step eagerly), the same training as the
    reference's"""
    for opt, lr, epochs, bs in FITS:
        _, got, want = _paced_fit(student, reference, probes, shared_rng, opt, lr, epochs, bs)
        assert_close(got, want, rtol=1e-4, atol=1e-4,
                     name=f"fit_linreg with {opt}: {epochs} epochs (history, w, b) with an optimizer that sees how often "
                          "Python runs; make one tf.function(linreg_train_step) before the epochs and call it for every batch")
