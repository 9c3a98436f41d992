import pytest
import torch

from autograder.judge.checks import assert_equal, assert_state_dict, assert_tensor


@pytest.mark.points(1)
@pytest.mark.hint("Parameters are nn.Parameter attributes; buffers are registered with register_buffer, in the order the contract gives.")
def test_parameters_and_buffers(student, probes):
    """RunningNorm registers weight/bias as parameters and the running statistics as buffers"""
    got = student(probes.running_norm_fresh, 3)
    assert_equal(got["parameters"], ["weight", "bias"], name="the parameter names")
    assert_equal(got["buffers"], ["running_mean", "running_var", "num_batches_tracked"], name="the buffer names")
    assert_state_dict(got["state"], {
        "weight": torch.ones(3), "bias": torch.zeros(3), "running_mean": torch.zeros(3),
        "running_var": torch.ones(3), "num_batches_tracked": torch.tensor(0),
    }, name="a fresh RunningNorm's state_dict")


@pytest.mark.points(2)
@pytest.mark.hint("Training mode normalises with the batch statistics (biased variance) and updates the running "
                  "statistics with the unbiased variance; eval mode uses the running statistics.")
def test_train_then_eval(student, probes):
    """one training batch then one eval batch on a small known input"""
    x = torch.tensor([[1.0, 2.0], [3.0, 6.0], [5.0, 7.0]])
    up = torch.ones(3, 2)
    got = student(probes.running_norm_run, 2, torch.tensor([2.0, 1.0]), torch.tensor([0.5, -1.0]),
                  [x, x], ["train", "eval"], [up, up])
    s_train, s_eval = got["steps"]
    assert_tensor(s_train["out"], torch.tensor([[-1.9494852, -2.3887286], [0.5, -0.5370905], [2.9494848, -0.0741809]]),
                  name="the output in training mode", rtol=1e-4, atol=1e-4)
    assert_tensor(s_train["state"]["running_mean"], torch.tensor([0.3, 0.5]), name="running_mean after one batch")
    assert_tensor(s_train["state"]["running_var"], torch.tensor([1.3, 1.6]), name="running_var after one batch", rtol=1e-5)
    assert_tensor(s_train["state"]["num_batches_tracked"], torch.tensor(1), name="num_batches_tracked after one batch")
    expected_eval = (x - torch.tensor([0.3, 0.5])) / torch.sqrt(torch.tensor([1.3, 1.6]) + 1e-5) * torch.tensor([2.0, 1.0]) + torch.tensor([0.5, -1.0])
    assert_tensor(s_eval["out"], expected_eval, name="the output in eval mode", rtol=1e-5)
    assert_tensor(s_eval["state"]["num_batches_tracked"], torch.tensor(1), name="num_batches_tracked after an eval batch")
