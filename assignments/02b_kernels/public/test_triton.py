import pytest
import torch

from autograder.judge.checks import assert_equal, assert_tensor, assert_true


@pytest.mark.points(3)
@pytest.mark.hint("One program per row: load the row with a mask (cols < n_cols, masked lanes as -inf), "
                  "subtract the maximum, exponentiate, divide by the sum, store with the same mask.")
def test_triton_softmax_known(student, probes, kernel_device):
    """triton_softmax on a row whose length is not a power of two"""
    x = torch.tensor([[1.0, 2.0, 3.0, 4.0, 5.0], [0.0, -1.0, 0.0, 1.0, 0.0]])
    got = student(probes.triton_apply, x, kernel_device)
    assert_tensor(got["y"], torch.softmax(x, -1), name="triton_softmax of a 2 x 5 float32 tensor")
    assert_true(got["x_unchanged"] is True, "triton_softmax must not modify its input.")


@pytest.mark.points(3)
@pytest.mark.hint("softmax_kernel is decorated with @triton.jit; the launcher passes the [rows, cols] view's "
                  "two strides so a transposed input works.")
def test_triton_kernel_and_strides(student, probes, kernel_device):
    """softmax_kernel is a Triton kernel, and triton_softmax reads a transposed input"""
    assert_equal(student(probes.triton_is_jit), True, name="whether softmax_kernel is a @triton.jit kernel")
    x = torch.arange(12.0).reshape(3, 4) / 4
    got = student(probes.triton_apply, x, kernel_device, "t")
    assert_tensor(got["y"], torch.softmax(x.t(), -1), name="triton_softmax of a transposed 3 x 4 tensor")
