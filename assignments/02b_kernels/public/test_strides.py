import pytest
import torch

from autograder.judge.checks import advise, assert_equal, assert_tensor, assert_true


@pytest.mark.points(2)
@pytest.mark.hint("A contiguous tensor's last stride is 1 and each stride is the product of the sizes to its "
                  "right (a size-0 dimension counts as 1); return a tuple of Python ints, computed without torch "
                  "(sizes may be larger than any tensor torch can make).")
def test_contiguous_strides_known(student, probes):
    """contiguous_strides on three shapes, one larger than torch can make"""
    for sizes, want in (((2, 3, 4), (12, 4, 1)), ((5,), (1,)), ((2**40, 2**40, 2**40), (2**80, 2**40, 1))):
        got = student(probes.contiguous_strides, list(sizes))
        assert_true(type(got) is tuple and all(type(v) is int for v in got),
                    f"contiguous_strides{sizes} should return a tuple of ints, not {got!r}.")
        assert_equal(got, want, name=f"contiguous_strides({sizes})")


@pytest.mark.points(2)
@pytest.mark.hint("The storage position is offset + sum(index[k] * stride[k]); an index entry outside "
                  "0 <= i < size raises IndexError.")
def test_element_offset_known(student, probes):
    """element_offset of a transposed view, and an out-of-range index"""
    got = student(probes.element_offset, [4, 3], [1, 4], 2, [3, 1])
    assert_equal(got, {"value": 9}, name="element_offset((4, 3), (1, 4), 2, (3, 1))")
    got = student(probes.element_offset, [4, 3], [1, 4], 0, [4, 0])
    assert_equal(got, {"error": "IndexError"}, name="element_offset with index 4 in a dimension of size 4")
    got = student(probes.element_offset, [2**64, 3], [3, 1], 7, [2**63, 2])
    assert_equal(got, {"value": 7 + 3 * 2**63 + 2}, name="element_offset((2**64, 3), (3, 1), 7, (2**63, 2)) "
                                                         "(plain Python integers: larger than torch's int64)")


@pytest.mark.points(2)
@pytest.mark.hint("A view reads the same storage: transpose swaps sizes and strides, narrow moves the offset by "
                  "start * stride (as tuples of ints and an int, computed by hand: sizes may be larger than any tensor); "
                  "gather_view reads storage[element_offset(...)] for every index in order, negative strides included.")
def test_views_known(student, probes):
    """transpose_view, narrow_view and gather_view on small views, one of them too large for torch"""
    for args, want in ((("transpose", [2, 3], [3, 1], 0, 0, 1), ((3, 2), (1, 3), 0)),
                       (("narrow", [2, 3], [3, 1], 0, 1, 1, 2), ((2, 2), (3, 1), 1)),
                       (("narrow", [2**70, 3], [3, 1], 5, 0, 2**69, 2**68), ((2**68, 3), (3, 1), 5 + 3 * 2**69))):
        got = student(probes.view_meta, *args)
        assert_true(type(got) is tuple and len(got) == 3 and all(type(v) is tuple for v in got[:2])
                    and all(type(v) is int for v in got[0] + got[1] + got[2:]),
                    f"{args[0]}_view should return (sizes, strides, offset) as two tuples of ints and an int, not {got!r}.")
        assert_equal(got, want, name=f"{args[0]}_view{tuple(args[1:])}")
    storage = torch.arange(6.0)
    got = student(probes.gather_view, storage, [3, 2], [1, 3], 0)
    assert_tensor(got["out"], torch.tensor([[0.0, 3.0], [1.0, 4.0], [2.0, 5.0]]),
                  name="gather_view(arange(6.), (3, 2), (1, 3), 0)")
    got = student(probes.gather_view, storage, [2, 3], [3, -1], 2)
    assert_tensor(got["out"], torch.tensor([[2.0, 1.0, 0.0], [5.0, 4.0, 3.0]]),
                  name="gather_view(arange(6.), (2, 3), (3, -1), 2) (rows read backwards)")


@pytest.mark.points(0)
def test_advice_gather_view_by_hand(student, probes):
    """advice: gather_view computes the positions itself, without as_strided"""
    got = student(probes.gather_view, torch.arange(6.0), [3, 2], [1, 3], 0)
    calls = got.get("calls") if type(got) is dict else None
    advise(type(calls) is list and "as_strided" not in calls,
           "gather_view should read the storage at the positions element_offset gives, not call as_strided.")
