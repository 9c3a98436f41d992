import pytest
import torch

from autograder.judge.checks import assert_equal, assert_true


@pytest.mark.points(4)
@pytest.mark.hint("torch.cuda.is_available() decides the default; an explicit `prefer` wins unless it asks for "
                  "CUDA that is not there; return a torch.device object, not a string.")
def test_pick_device_basics(student, probes):
    """pick_device: default with and without CUDA, and forcing the CPU"""
    assert_equal(student(probes.pick_device, None, False), torch.device("cpu"),
                 name="pick_device() on a machine without CUDA")
    got = student(probes.pick_device, None, True)
    assert_true(type(got) is torch.device and got.type == "cuda",
                f"pick_device() on a machine with CUDA should be a CUDA torch.device, but it is {got!r}.")
    assert_equal(student(probes.pick_device, "cpu", True), torch.device("cpu"),
                 name='pick_device("cpu") on a machine with CUDA')
