import pytest
import torch

from autograder.judge.checks import CheckFailed, assert_equal

# (prefer, cuda_available, what the case is called in messages)
CASES = [
    (None, True, "pick_device(None) with CUDA"),
    (None, False, "pick_device(None) without CUDA"),
    ("cpu", True, 'pick_device("cpu") with CUDA'),
    ("cpu", False, 'pick_device("cpu") without CUDA'),
    (torch.device("cpu"), True, "pick_device(a CPU torch.device) with CUDA"),
    ("cuda", True, 'pick_device("cuda") with CUDA'),
    ("cuda", False, 'pick_device("cuda") without CUDA'),
    ("cuda:1", True, "pick_device with an explicit CUDA index, with CUDA"),
    ("cuda:1", False, "pick_device with an explicit CUDA index, without CUDA"),
    (torch.device("cuda", 0), True, "pick_device(a CUDA torch.device) with CUDA"),
    (torch.device("cuda"), False, "pick_device(a CUDA torch.device) without CUDA"),
]


def _same_device(got, expected, name):
    if type(got) is not torch.device:
        raise CheckFailed(f"{name} should return a torch.device, but it returned {got!r}.")
    if expected.index is None:
        assert_equal(got.type, expected.type, name=f"the device type of {name}")
    else:
        assert_equal(got, expected, name=name)


@pytest.mark.points(4)
def test_prefer_and_fallback(student, reference, probes):
    """an explicit preference wins; CUDA falls back to the CPU when it is missing"""
    for prefer, available, name in CASES:
        _same_device(student(probes.pick_device, prefer, available),
                     reference(probes.pick_device, prefer, available), name)


@pytest.mark.points(2)
def test_default_argument(student, reference, probes):
    """pick_device() with no argument picks CUDA exactly when it is available"""
    for available in (True, False):
        name = "pick_device() " + ("with CUDA" if available else "without CUDA")
        _same_device(student(probes.pick_device, None, available, False),
                     reference(probes.pick_device, None, available, False), name)


@pytest.mark.points(2)
def test_this_machine(student, reference, probes):
    """pick_device() on the grading machine itself"""
    _same_device(student(probes.pick_device, None, None, False),
                 reference(probes.pick_device, None, None, False), "pick_device() on the grading machine")
    _same_device(student(probes.pick_device, "cpu", None),
                 reference(probes.pick_device, "cpu", None), 'pick_device("cpu") on the grading machine')
