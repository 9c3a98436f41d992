import pytest
import torch

from autograder.judge.checks import assert_equal, assert_grads, assert_state_dict, assert_true


CASES = [("seq", (3, 5, 2), ["0."]), ("nested", (4, 6, 3), ["encoder.fc1", "head.bias"]),
         ("nested", (2, 3, 2), ["encoder."]), ("seq", (5, 2, 4), ["2", "nothing"]), ("nested", (3, 4, 1), [])]


@pytest.mark.points(3)
def test_count_and_freeze(student, reference, probes, rng):
    """count_parameters and freeze agree with the reference on nested modules and several prefixes"""
    for kind, sizes, prefixes in CASES:
        x = torch.randn(6, sizes[0], generator=rng)
        t = torch.randn(6, sizes[2], generator=rng)
        got = student(probes.module_tools_run, kind, sizes, prefixes, x, t)
        exp = reference(probes.module_tools_run, kind, sizes, prefixes, x, t)
        for key in ("count_all", "count_trainable", "frozen", "count_all_after", "count_trainable_after", "requires_grad"):
            assert_equal(got[key], exp[key], name=f"{key} for a {kind} module freezing {prefixes}")
        assert_grads(got["grads"], exp["grads"])


@pytest.mark.points(3)
def test_snapshot_restore(student, reference, probes, rng):
    """snapshots are independent copies in state_dict order (buffers included), restored in place"""
    for kind, sizes, prefixes in CASES:
        x = torch.randn(6, sizes[0], generator=rng)
        t = torch.randn(6, sizes[2], generator=rng) * 4
        got = student(probes.module_tools_run, kind, sizes, prefixes, x, t)
        exp = reference(probes.module_tools_run, kind, sizes, prefixes, x, t)
        assert_state_dict(got["snapshot"], exp["original"], name="the snapshot")
        assert_state_dict(got["snapshot_after_training"], exp["original"], name="the snapshot after training")
        assert_state_dict(got["restored"], exp["original"], name="the state_dict after restore")
        assert_true(all(got["same_objects"]), "restore replaced parameter objects; copy the values into the existing ones.")
