import numpy as np
import pytest
import torch

from autograder.judge.checks import assert_close, assert_equal


@pytest.mark.points(1)
@pytest.mark.hint("t.numpy() shares memory with t; a tensor that requires grad must be detached first.")
def test_share_to_numpy_known(student, probes):
    """share_to_numpy's array follows later in-place changes of the tensor"""
    rgs = (False, True)
    results = student.map(probes.share_to_numpy, [(torch.tensor([1.0, 2.0, 3.0]), rg) for rg in rgs])
    for rg, got in zip(rgs, results):
        want = {"at_call": np.array([1.0, 2.0, 3.0], dtype=np.float32), "after_change": np.array([2.0, 3.0, 4.0], dtype=np.float32)}
        assert_close(got, want, name="share_to_numpy(tensor([1., 2., 3.]" + (", requires_grad=True))" if rg else "))")
                     + ", then the tensor += 1")


@pytest.mark.points(1)
@pytest.mark.hint("clone() makes an independent copy; numpy() alone shares memory.")
def test_copy_to_numpy_known(student, probes):
    """copy_to_numpy's array does not change when the tensor does"""
    rgs = (False, True)
    results = student.map(probes.copy_to_numpy, [(torch.tensor([1.0, 2.0, 3.0], dtype=torch.float64), rg) for rg in rgs])
    for rg, got in zip(rgs, results):
        want = {"at_call": np.array([1.0, 2.0, 3.0]), "after_change": np.array([1.0, 2.0, 3.0])}
        assert_close(got, want, name="copy_to_numpy(float64 tensor([1., 2., 3.]" + (", requires_grad=True))" if rg else "))")
                     + ", then the tensor += 1")


@pytest.mark.points(1)
@pytest.mark.hint("torch.from_numpy shares memory with the array; torch.tensor(a) copies.")
def test_share_from_numpy_known(student, probes):
    """share_from_numpy's tensor follows later in-place changes of the array"""
    got = student(probes.share_from_numpy, np.array([[1, 2], [3, 4]]))
    want = {"at_call": torch.tensor([[1, 2], [3, 4]]), "after_change": torch.tensor([[2, 3], [4, 5]])}
    assert_close(got, want, name="share_from_numpy(np.array([[1, 2], [3, 4]])), then the array += 1")


@pytest.mark.points(1)
@pytest.mark.hint("item() for a one-element tensor of any shape, tolist() otherwise; the Python type follows the dtype.")
def test_to_python_known(student, probes):
    """to_python gives Python numbers and nested lists"""
    assert_equal(student(probes.to_python, torch.tensor([[2.5]])), 2.5, name="to_python(tensor([[2.5]]))")
    assert_equal(student(probes.to_python, torch.tensor(7)), 7, name="to_python(tensor(7))")
    assert_equal(student(probes.to_python, torch.tensor([[1, 2], [3, 4]])), [[1, 2], [3, 4]], name="to_python(tensor([[1, 2], [3, 4]]))")
