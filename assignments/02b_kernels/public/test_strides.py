import pytest
import torch

from autograder.judge.checks import assert_equal, assert_tensor


@pytest.mark.points(2)
@pytest.mark.hint("A contiguous tensor's last stride is 1 and each stride is the product of the sizes to its "
                  "right (a size-0 dimension counts as 1).")
def test_contiguous_strides_known(student, probes):
    """contiguous_strides on two shapes"""
    assert_equal(student(probes.contiguous_strides, [2, 3, 4]), [12, 4, 1], name="contiguous_strides((2, 3, 4))")
    assert_equal(student(probes.contiguous_strides, [5]), [1], name="contiguous_strides((5,))")


@pytest.mark.points(2)
@pytest.mark.hint("The storage position is offset + sum(index[k] * stride[k]); an index entry outside "
                  "0 <= i < size raises IndexError.")
def test_element_offset_known(student, probes):
    """element_offset of a transposed view, and an out-of-range index"""
    got = student(probes.element_offset, [4, 3], [1, 4], 2, [3, 1])
    assert_equal(got, {"value": 9}, name="element_offset((4, 3), (1, 4), 2, (3, 1))")
    got = student(probes.element_offset, [4, 3], [1, 4], 0, [4, 0])
    assert_equal(got, {"error": "IndexError"}, name="element_offset with index 4 in a dimension of size 4")


@pytest.mark.points(2)
@pytest.mark.hint("A view reads the same storage: transpose swaps sizes and strides, narrow moves the offset by "
                  "start * stride; gather_view reads storage[element_offset(...)] for every index in order.")
def test_views_known(student, probes):
    """transpose_view, narrow_view and gather_view on a 2 x 3 tensor"""
    got = student(probes.view_meta, "transpose", [2, 3], [3, 1], 0, 0, 1)
    assert_equal(got, [[3, 2], [1, 3], 0], name="transpose_view((2, 3), (3, 1), 0, 0, 1)")
    got = student(probes.view_meta, "narrow", [2, 3], [3, 1], 0, 1, 1, 2)
    assert_equal(got, [[2, 2], [3, 1], 1], name="narrow_view((2, 3), (3, 1), 0, dim=1, start=1, length=2)")
    storage = torch.arange(6.0)
    got = student(probes.gather_view, storage, [3, 2], [1, 3], 0)
    assert_tensor(got["out"], torch.tensor([[0.0, 3.0], [1.0, 4.0], [2.0, 5.0]]),
                  name="gather_view(arange(6.), (3, 2), (1, 3), 0)")
