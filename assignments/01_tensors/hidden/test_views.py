import pytest
import torch

from autograder.judge.checks import assert_close, assert_equal

LAYOUTS = [((4, 6), "contiguous"), ((3, 4, 5), "contiguous"), ((2, 3, 4, 5), "contiguous"), ((1, 7), "contiguous"),
           ((6, 4), "transposed"), ((3, 5, 4), "transposed"), ((5, 8), "strided"), ((2, 3, 6), "strided")]


@pytest.mark.points(3)
def test_flatten_rows_random(student, reference, probes, rng):
    """flatten_rows agrees with the reference on contiguous and non-contiguous tensors, without copying contiguous ones"""
    cases = [(shape, layout, dtype) for shape, layout in LAYOUTS for dtype in (torch.float32, torch.float64)]
    calls = [(torch.randn(shape, generator=rng, dtype=dtype), layout) for shape, layout, dtype in cases]
    results, answers = student.map(probes.flatten_rows, calls), reference.map(probes.flatten_rows, calls)
    for (shape, layout, dtype), got, want in zip(cases, results, answers):
        assert_close(got["out"], want["out"], name=f"flatten_rows of a {layout} tensor of rank {len(shape)}")
        if layout == "contiguous":
            assert_equal(got["shares_memory"], True,
                         name=f"whether flatten_rows of a contiguous tensor of rank {len(shape)} shares its memory (it should not copy)")


@pytest.mark.points(2)
def test_can_view_random(student, reference, probes, rng):
    """can_view agrees with the reference on contiguous, transposed and strided tensors"""
    cases = [((4, 6), "contiguous", (24,)), ((4, 6), "contiguous", (6, 4)), ((4, 6), "contiguous", (5, 5)),
             ((4, 6), "contiguous", (-1, 3)), ((6, 4), "transposed", (24,)), ((6, 4), "transposed", (4, 6)),
             ((6, 4), "transposed", (2, 2, 6)), ((6, 4), "transposed", (4, 3, 2)), ((6, 4), "transposed", (6, 4)),
             ((4, 12), "strided", (24,)), ((4, 12), "strided", (2, 2, 6)), ((4, 12), "strided", (4, 2, 3)),
             ((4, 12), "strided", (8, 3)), ((3, 4, 5), "transposed", (3, 20)), ((3, 4, 5), "transposed", (15, 4))]
    calls = [(torch.randn(shape, generator=rng), layout, target) for shape, layout, target in cases]
    results, answers = student.map(probes.can_view, calls), reference.map(probes.can_view, calls)
    for (shape, layout, target), got, want in zip(cases, results, answers):
        assert_equal(got, want, name=f"can_view of a {layout} tensor to a shape of rank {len(target)}")


@pytest.mark.points(2)
def test_swap_last_two_random(student, reference, probes, rng):
    """swap_last_two agrees with the reference and returns contiguous tensors"""
    calls = [(torch.randint(-100, 100, shape, generator=rng), layout) for shape, layout in LAYOUTS]
    results, answers = student.map(probes.swap_last_two, calls), reference.map(probes.swap_last_two, calls)
    for (shape, layout), got, want in zip(LAYOUTS, results, answers):
        assert_close(got, want, name=f"swap_last_two of a {layout} tensor of rank {len(shape)}")
