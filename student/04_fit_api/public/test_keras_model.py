import pytest
import torch

from autograder.judge.checks import assert_close, assert_equal, assert_tensor


@pytest.mark.points(1)
@pytest.mark.hint("Keep what you are given as attributes (net, loss_fn, metrics_dict, optimizer, lr_scheduler, "
                  "clip_grad_norm), store the device as a torch.device, and make compile() return the model.")
def test_constructor_and_compile(student, probes):
    """KerasModel(net, loss_fn, ...) and KerasModel(net).compile(loss_fn, ...) keep what they are given"""
    for how in ("init", "compile"):
        got = student(probes.construct, how)
        expected = {"net_is_net": True, "loss_is_loss": True, "optimizer_type": "SGD", "optimizer_is_given": True,
                    "optimizer_lr": 0.05, "optimizer_on_net": [True, True], "scheduler_is_given": True,
                    "scheduler_is_none": False, "metrics_keys": ["pmean"], "device": torch.device("cpu"),
                    "param_device": "cpu", "clip": 0.5, "compile_returns_model": True if how == "compile" else None}
        assert_close(got, expected, name=f"the attributes of a model built with {how!r}")


def _tanh_state():
    # output = tanh(x1) + tanh(x2) (the dropout layer must be off in predict)
    return {"0.weight": torch.tensor([[1.0, 0.0], [0.0, 1.0], [0.0, 0.0]]), "0.bias": torch.zeros(3),
            "2.weight": torch.ones(1, 3), "2.bias": torch.zeros(1)}


@pytest.mark.points(1)
@pytest.mark.hint("predict: eval mode (dropout off), no gradients, concatenate the batch outputs along dim 0, "
                  "return them on the CPU; a batch may be a tensor or a list whose first item is the features.")
def test_predict_known(student, probes):
    """predict of a small net with dropout, for three kinds of batches"""
    X = torch.linspace(-2.0, 2.0, 14).reshape(7, 2)
    expected = torch.tanh(X).sum(dim=1, keepdim=True)
    for form in ("x_loader", "xy_loader", "tensors"):
        got = student(probes.predict, _tanh_state(), X, 3, form)
        assert_tensor(got.get("out"), expected, name=f"predict(...) with batches of the kind {form!r}")
        assert_equal(got.get("device"), "cpu", name="the device of predict's result")
        assert_equal(got.get("requires_grad"), False, name="whether predict's result requires grad")


@pytest.mark.points(1)
@pytest.mark.hint("evaluate returns {'val_loss': ..., 'val_<m>': ...} from one evaluation pass with fresh metrics.")
def test_evaluate_known(student, probes):
    """evaluate of a net that outputs 0.5 everywhere"""
    state = {"0.weight": torch.zeros(3, 2), "0.bias": torch.zeros(3),
             "2.weight": torch.ones(1, 3), "2.bias": torch.tensor([0.5])}
    got = student(probes.evaluate, state, torch.linspace(-1.0, 1.0, 18).reshape(9, 2), torch.zeros(9, 1), 4)
    expected = {"val_loss": 0.25, "val_pmean": 0.5, "val_amean": 0.5}
    assert_close(got["first"], expected, name="evaluate(...)")
    assert_close(got["second"], expected, name="a second evaluate(...) on the same data")
    assert_equal(list(got["first"]), list(expected), name="the keys of evaluate's result, in order")


@pytest.mark.points(1)
@pytest.mark.hint("One row per net.named_parameters() entry: name, shape (tuple), numel, trainable (requires_grad).")
def test_summary_known(student, probes):
    """summary of a small net"""
    got = student(probes.summary, False)
    assert_equal(got["type"], "DataFrame", name="the type of summary()'s result")
    assert_close(got["table"], {
        "name": ["0.weight", "0.bias", "1.weight", "1.bias", "3.weight"],
        "shape": [(5, 3), (5,), (5,), (5,), (2, 5)],
        "numel": [15, 5, 5, 5, 10],
        "trainable": [True, True, True, True, True],
    }, name="the summary table")
    assert_equal(got["printed"].strip().splitlines()[-1:], ["total parameters: 40 (trainable: 40)"],
                 name="the last line printed by summary()")
