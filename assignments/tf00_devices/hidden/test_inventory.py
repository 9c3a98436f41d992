import pytest

from autograder.judge.checks import assert_equal, assert_true


@pytest.mark.points(4)
def test_matches_reference(student, reference, probes):
    """inventory() on the grading machine and with one and two pretend GPUs"""
    for gpus, where in ((None, "on the grading machine"), (2, "with two GPUs"), (1, "with one GPU"), (0, "without a GPU")):
        got, exp = student(probes.inventory, gpus), reference(probes.inventory, gpus)
        assert_true(type(got) is dict, f"inventory() {where} should return a dict, but it returned {type(got).__name__}.")
        assert_equal(sorted(got), sorted(exp), name=f"the keys of inventory() {where}")
        for key in sorted(exp):
            assert_equal(got[key], exp[key], name=f"inventory()[{key!r}] {where}")


@pytest.mark.points(2)
def test_physical_gpus_split_into_logical_ones(student, reference, probes):
    """inventory() where each pretend physical GPU is split into two logical GPUs: physical and logical counted apart"""
    for gpus, where in ((1, "with one GPU split into two logical GPUs"), (2, "with two GPUs, each split into two")):
        got, exp = student(probes.inventory, gpus, 2), reference(probes.inventory, gpus, 2)
        assert_true(type(got) is dict, f"inventory() {where} should return a dict, but it returned {type(got).__name__}.")
        assert_equal(sorted(got), sorted(exp), name=f"the keys of inventory() {where}")
        for key in sorted(exp):
            assert_equal(got[key], exp[key], name=f"inventory()[{key!r}] {where}")
