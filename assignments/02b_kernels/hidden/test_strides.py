import pytest
import torch

from autograder.judge.checks import assert_equal, assert_tensor, assert_true


@pytest.mark.points(3)
def test_contiguous_strides_random(student, probes, rng, helpers):
    """contiguous_strides agrees with torch on random shapes, with sizes 0 and 1 and no dimension at all"""
    shapes = [(), (0,), (3, 0, 2), (1, 1)] + [tuple(helpers.randint(rng, 0, 6) for _ in range(helpers.randint(rng, 1, 5)))
                                            for _ in range(6)]
    for shape in shapes:
        assert_equal(student(probes.contiguous_strides, list(shape)), list(torch.empty(shape).stride()),
                     name=f"contiguous_strides of a {len(shape)}-d shape")


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


@pytest.mark.points(3)
def test_transpose_and_narrow_random(student, probes, rng, helpers):
    """transpose_view and narrow_view agree with torch's views on random views"""
    # every course secret's draw includes a narrow along a dimension whose stride is not 1, from a start past 0
    # (random draws may narrow only stride-1 dimensions, where start and start * stride agree)
    v = torch.arange(15)[3:].reshape(3, 4).t()
    for d, start in ((1, 1), (0, 2)):
        n = v.narrow(d, start, 2)
        assert_equal(student(probes.view_meta, "narrow", [4, 3], [1, 4], 3, d, start, 2),
                     [list(n.shape), list(n.stride()), n.storage_offset()], name="narrow_view of a transposed view")
    for _ in range(6):
        base, v = helpers.random_view(rng)
        meta = [list(v.shape), list(v.stride()), v.storage_offset()]
        d0, d1 = helpers.randint(rng, 0, v.dim() - 1), helpers.randint(rng, 0, v.dim() - 1)
        t = v.transpose(d0, d1)
        assert_equal(student(probes.view_meta, "transpose", *meta, d0, d1),
                     [list(t.shape), list(t.stride()), t.storage_offset()], name="transpose_view of a random view")
        d = helpers.randint(rng, 0, v.dim() - 1)
        start = helpers.randint(rng, 0, v.shape[d] - 1)
        length = helpers.randint(rng, 0, v.shape[d] - start)
        n = v.narrow(d, start, length)
        assert_equal(student(probes.view_meta, "narrow", *meta, d, start, length),
                     [list(n.shape), list(n.stride()), n.storage_offset()], name="narrow_view of a random view")


@pytest.mark.points(4)
def test_gather_view_random(student, reference, probes, rng, helpers):
    """gather_view reads random strided views of float and int storages by hand, into a contiguous tensor"""
    for dtype in (torch.float32, torch.float64, torch.int64):
        for _ in range(2):
            base, v = helpers.random_view(rng, dtype)
            storage = base + torch.randn(base.shape, generator=rng).to(dtype) if dtype.is_floating_point else base * 7
            args = (storage, list(v.shape), list(v.stride()), v.storage_offset())
            got = student(probes.gather_view, *args)
            want = storage.as_strided(v.shape, v.stride(), v.storage_offset())
            assert_tensor(got["out"], want.contiguous(), name=f"gather_view of a random {dtype} view")
            assert_tensor(got["out"], reference(probes.gather_view, *args)["out"], name="gather_view")
            assert_true(got["contiguous"] is True, "gather_view should return a new contiguous tensor.")
            assert_true("as_strided" not in got["calls"], "gather_view should compute the positions itself, "
                                                          "not call as_strided.")
