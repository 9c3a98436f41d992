import pytest

from autograder.judge.checks import assert_equal

PREFER = [None, "CPU", "cpu:1", "/CPU:2", "/device:CPU:1", "CPU:7", "GPU", "gpu:0", "/GPU:1", "/device:GPU:1", "GPU:2"]


def _name(prefer, gpus):
    where = {0: "without a GPU", 1: "with one GPU", 2: "with two GPUs"}[gpus]
    return f"pick_device({prefer!r}) {where}"


@pytest.mark.points(6)
def test_prefer_and_fallback(student, reference, probes):
    """an existing device wins in any spelling; a missing one falls back to /device:CPU:0"""
    for gpus in (0, 2, 1):
        for prefer in PREFER:
            assert_equal(student(probes.pick_device, prefer, gpus), reference(probes.pick_device, prefer, gpus),
                         name=_name(prefer, gpus))


@pytest.mark.points(2)
def test_default_argument(student, reference, probes):
    """pick_device() with no argument takes the first GPU exactly when there is one (asked each call)"""
    for gpus in (1, 0, 2, 0):
        assert_equal(student(probes.pick_device, None, gpus, False), reference(probes.pick_device, None, gpus, False),
                     name=f"pick_device() {_name(None, gpus).split(') ', 1)[1]}")


@pytest.mark.points(2)
def test_this_machine(student, reference, probes):
    """pick_device() and pick_device('GPU') on the grading machine itself"""
    for prefer, passed in ((None, False), ("GPU", True), ("CPU:2", True)):
        call = f"pick_device({prefer!r})" if passed else "pick_device()"
        assert_equal(student(probes.pick_device, prefer, None, passed), reference(probes.pick_device, prefer, None, passed),
                     name=f"{call} on the grading machine")
