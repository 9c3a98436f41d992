import pytest
import torch

from autograder.judge.checks import advise, assert_close, assert_equal, assert_true


@pytest.mark.points(2)
@pytest.mark.hint("The epoch loss is the plain mean of the batch losses (loss.item() per batch), "
                  "whatever the batch sizes; return Python floats in a dict.")
def test_epoch_loss_is_mean_of_batch_losses(student, probes):
    """the epoch loss of two uneven batches is the unweighted mean of their losses"""
    weight, bias = torch.tensor([[1.0]]), torch.tensor([0.0])        # the net is the identity
    batches = [(torch.ones(4, 1), torch.zeros(4, 1)),                  # MSE 1.0 over 4 samples
               (torch.full((1, 1), 2.0), torch.zeros(1, 1))]           # MSE 4.0 over 1 sample
    got = student(probes.run_epoch_batches, weight, bias, batches)
    assert_close(got, {"loss": 2.5}, name="run_epoch's result without metrics")


@pytest.mark.points(2)
@pytest.mark.hint("Without an optimizer run_epoch evaluates: net.eval(), torch.no_grad(), no parameter changes; "
                  "metrics are reset at the start of every pass.")
def test_evaluation_pass(student, probes):
    """an evaluation pass: eval mode, no gradients, weights unchanged, metrics reset per pass"""
    state = {"0.weight": torch.zeros(3, 2), "0.bias": torch.zeros(3),
             "2.weight": torch.ones(1, 3), "2.bias": torch.tensor([0.5])}   # outputs 0.5 everywhere
    X, Y = torch.linspace(-1.0, 1.0, 20).reshape(10, 2), torch.zeros(10, 1)
    got = student(probes.run_epoch_eval, state, X, Y, 4)
    expected = {"loss": 0.25, "pmean": 0.5, "score": 0.5}
    assert_close(got["results"], [expected, expected], name="the results of two evaluation passes")
    assert_equal([[t, b] for t, _, b in got["calls"]], [[False, 4], [False, 4], [False, 2]] * 2,
                 name="(net.training, batch size) seen by the net at each forward")
    assert_true(not any(got["grads"]), "an evaluation pass must not compute gradients (a parameter has a .grad).")
    assert_close(got["state"], state, name="the weights after evaluation")


@pytest.mark.points(0)
def test_advice_no_grad_in_evaluation(student, probes):
    """advice: an evaluation pass runs under torch.no_grad()"""
    state = {"0.weight": torch.zeros(3, 2), "0.bias": torch.zeros(3), "2.weight": torch.ones(1, 3), "2.bias": torch.tensor([0.5])}
    got = student(probes.run_epoch_eval, state, torch.linspace(-1.0, 1.0, 20).reshape(10, 2), torch.zeros(10, 1), 4)
    advise(not any(g for _, g, _ in got["calls"]), "run_epoch evaluates with gradients enabled: wrap the evaluation in "
                                                   "torch.no_grad() (or torch.set_grad_enabled(False)), which saves memory and time.")
