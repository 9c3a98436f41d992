import pytest
import torch

from autograder.judge.checks import assert_equal, assert_state_dict, assert_true


@pytest.mark.points(1)
@pytest.mark.hint("named_parameters() yields (name, parameter) pairs; a parameter's numel() is its number of values; "
                  "requires_grad_(False) freezes it.")
def test_count_and_freeze(student, probes):
    """count_parameters and freeze on nn.Sequential(Linear(2, 3), ReLU(), Linear(3, 1, bias=False))"""
    got = student(probes.module_tools_run, "seq", (2, 3, 1), ["0."], torch.ones(4, 2), torch.zeros(4, 1))
    assert_equal(got["count_all"], 12, name="count_parameters(net)")
    assert_equal(got["count_trainable"], 12, name="count_parameters(net, trainable_only=True)")
    assert_equal(got["frozen"], ["0.weight", "0.bias"], name="freeze(net, ['0.'])")
    assert_equal(got["count_trainable_after"], 3, name="count_parameters(net, trainable_only=True) after freezing")
    assert_equal(got["count_all_after"], 12, name="count_parameters(net) after freezing")


@pytest.mark.points(1)
@pytest.mark.hint("state_dict() returns the module's live tensors, not copies; restoring copies values back into them.")
def test_snapshot_restore(student, probes):
    """a snapshot survives training, and restore brings the weights back"""
    got = student(probes.module_tools_run, "seq", (2, 3, 1), [], torch.ones(4, 2), torch.full((4, 1), 5.0))
    assert_state_dict(got["snapshot_after_training"], got["original"], name="the snapshot after two training steps")
    assert_state_dict(got["restored"], got["original"], name="the state_dict after restore")
    assert_true(all(got["same_objects"]), "restore replaced parameter objects; copy the values into the existing ones.")
