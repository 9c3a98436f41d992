import pytest
import torch

from autograder.judge.checks import assert_equal, assert_tensor, assert_true


@pytest.mark.points(3)
def test_contiguous_strides_random(student, probes, rng, helpers):
    """contiguous_strides agrees with torch on random shapes, with sizes 0 and 1 and no dimension at all"""
    shapes = [(), (0,), (3, 0, 2), (1, 1)] + [tuple(helpers.randint(rng, 0, 6) for _ in range(helpers.randint(rng, 1, 5)))
                                            for _ in range(6)]
    for shape in shapes:
        got = student(probes.contiguous_strides, list(shape))
        assert_true(type(got) is tuple and all(type(v) is int for v in got),
                    f"contiguous_strides should return a tuple of ints, not {got!r}.")
        assert_equal(got, torch.empty(shape).stride(), name=f"contiguous_strides of a {len(shape)}-d shape")
    # sizes no tensor can have (its element count overflows int64): plain Python integers, no torch
    big = [2 ** helpers.randint(rng, 33, 70) for _ in range(3)] + [helpers.randint(rng, 1, 9)]
    want = (big[1] * big[2] * big[3], big[2] * big[3], big[3], 1)
    assert_equal(student(probes.contiguous_strides, big), want, name=f"contiguous_strides({tuple(big)})")


@pytest.mark.points(4)
def test_element_offset_random(student, probes, rng, helpers):
    """element_offset finds the storage position of random elements of random views, and rejects bad indices"""
    for i in range(8):
        base, v = helpers.random_view(rng)
        sizes, strides, offset = list(v.shape), list(v.stride()), v.storage_offset()
        index = [helpers.randint(rng, 0, s - 1) for s in sizes]
        got = student(probes.element_offset, sizes, strides, offset, index)
        assert_equal(got, {"value": int(v[tuple(index)])}, name=f"element_offset in a random {len(sizes)}-d view")
        bad = list(index)
        d = helpers.randint(rng, 0, len(sizes) - 1)
        bad[d] = sizes[d] if i % 2 else -1  # both edges under every course secret, not by luck of the draw
        assert_equal(student(probes.element_offset, sizes, strides, offset, bad), {"error": "IndexError"},
                     name="element_offset with an index entry out of range")
    assert_equal(student(probes.element_offset, [2, 3], [3, 1], 0, [1]), {"error": "IndexError"},
                 name="element_offset with too few index entries")
    sizes = [2 ** helpers.randint(rng, 64, 90), helpers.randint(rng, 2, 9)]
    index = [sizes[0] - helpers.randint(rng, 1, 2**40), helpers.randint(rng, 0, sizes[1] - 1)]
    strides, offset = [sizes[1], 1], helpers.randint(rng, 0, 100)
    assert_equal(student(probes.element_offset, sizes, strides, offset, index),
                 {"value": offset + index[0] * strides[0] + index[1]},
                 name=f"element_offset{(tuple(sizes), tuple(strides), offset, tuple(index))} (beyond int64)")


@pytest.mark.points(3)
def test_transpose_and_narrow_random(student, probes, rng, helpers):
    """transpose_view and narrow_view agree with torch's views on random views"""
    # every course secret's draw includes a narrow along a dimension whose stride is not 1, from a start past 0
    # (random draws may narrow only stride-1 dimensions, where start and start * stride agree)
    def meta(t):
        return tuple(t.shape), t.stride(), t.storage_offset()

    def check(got, want, what):
        assert_true(type(got) is tuple and len(got) == 3 and all(type(v) is tuple for v in got[:2])
                    and all(type(v) is int for v in got[0] + got[1] + got[2:]),
                    f"{what} should return (sizes, strides, offset) as two tuples of ints and an int, not {got!r}.")
        assert_equal(got, want, name=what)

    v = torch.arange(15)[3:].reshape(3, 4).t()
    for d, start in ((1, 1), (0, 2)):
        check(student(probes.view_meta, "narrow", [4, 3], [1, 4], 3, d, start, 2), meta(v.narrow(d, start, 2)),
              "narrow_view of a transposed view")
    # a view no tensor can have (its element count overflows int64): computed by hand, not by a meta tensor
    sizes = [2 ** helpers.randint(rng, 40, 70), 2 ** helpers.randint(rng, 40, 70), helpers.randint(rng, 2, 9)]
    strides, offset = [sizes[1] * sizes[2], sizes[2], 1], helpers.randint(rng, 0, 100)
    check(student(probes.view_meta, "transpose", sizes, strides, offset, 0, 2),
          ((sizes[2], sizes[1], sizes[0]), (1, strides[1], strides[0]), offset), "transpose_view of a view beyond int64")
    start = helpers.randint(rng, 1, 2**30)
    check(student(probes.view_meta, "narrow", sizes, strides, offset, 0, start, 5),
          ((5, sizes[1], sizes[2]), tuple(strides), offset + start * strides[0]), "narrow_view of a view beyond int64")
    for _ in range(6):
        base, v = helpers.random_view(rng)
        args = [list(v.shape), list(v.stride()), v.storage_offset()]
        d0, d1 = helpers.randint(rng, 0, v.dim() - 1), helpers.randint(rng, 0, v.dim() - 1)
        check(student(probes.view_meta, "transpose", *args, d0, d1), meta(v.transpose(d0, d1)),
              "transpose_view of a random view")
        d = helpers.randint(rng, 0, v.dim() - 1)
        start = helpers.randint(rng, 0, v.shape[d] - 1)
        length = helpers.randint(rng, 0, v.shape[d] - start)
        check(student(probes.view_meta, "narrow", *args, d, start, length), meta(v.narrow(d, start, length)),
              "narrow_view of a random view")


@pytest.mark.points(4)
def test_gather_view_random(student, reference, probes, rng, helpers):
    """gather_view reads random strided views of float and int storages by hand, into a contiguous tensor,
    negative strides included (a view as_strided cannot make)"""
    for dtype in (torch.float32, torch.float64, torch.int64):
        for backwards in (False, True):
            base, v = helpers.random_view(rng, dtype)
            storage = base + torch.randn(base.shape, generator=rng).to(dtype) if dtype.is_floating_point else base * 7
            sizes, strides, offset = list(v.shape), list(v.stride()), v.storage_offset()
            want = storage.as_strided(v.shape, v.stride(), v.storage_offset())
            if backwards:  # one dimension read backwards: from its last element, with the stride negated
                d = max(range(len(sizes)), key=lambda k: sizes[k])
                offset, strides[d] = offset + (sizes[d] - 1) * strides[d], -strides[d]
                want = want.flip(d)
            args = (storage, sizes, strides, offset)
            what = f"gather_view of a random {dtype} view" + (f" with strides {tuple(strides)}" if backwards else "")
            got = student(probes.gather_view, *args)
            assert_tensor(got["out"], want.contiguous(), name=what)
            assert_tensor(got["out"], reference(probes.gather_view, *args)["out"], name=what)
            assert_true(got["contiguous"] is True, "gather_view should return a new contiguous tensor.")
