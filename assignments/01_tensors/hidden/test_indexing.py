import pytest
import torch

from autograder.judge.checks import assert_close, assert_tensor


@pytest.mark.points(2)
def test_get_batch_random(student, reference, probes, rng):
    """get_batch agrees with the reference on shuffled and repeated indices"""
    calls, names = [], []
    for n, d, b in [(400, 2, 8), (50, 3, 50), (10, 1, 1), (30, 4, 12)]:
        X = torch.randn(n, d, generator=rng)
        Y = torch.randn(n, 1, generator=rng, dtype=torch.float64)
        for idx in (torch.randperm(n, generator=rng)[:b], torch.randint(0, n, (b,), generator=rng)):
            calls.append((X, Y, idx))
            names.append(f"get_batch of {b} rows from {n}")
    results, answers = student.map(probes.get_batch, calls), reference.map(probes.get_batch, calls)
    for name, got, want in zip(names, results, answers):
        assert_close(got, want, name=name)


@pytest.mark.points(3)
def test_crop_center_random(student, reference, probes, rng):
    """crop_center agrees with the reference for odd and even sizes and several ranks"""
    cases = [((6, 6), 3), ((7, 7), 4), ((5, 8), 2), ((8, 5), 3), ((3, 9, 10), 5), ((2, 3, 7, 6), 4),
             ((4, 4), 4), ((9, 9), 1), ((3, 10, 12), 7)]
    calls = [(torch.randn(shape, generator=rng), size) for shape, size in cases]
    results, answers = student.map(probes.crop_center, calls), reference.map(probes.crop_center, calls)
    for (shape, size), got, want in zip(cases, results, answers):
        assert_close(got, want, name=f"crop_center of an image of rank {len(shape)} to a square of side {size}")
    img = torch.randn(3, 9, 8, generator=rng)
    assert_close(student(probes.crop_center, img, 5, "transposed"), reference(probes.crop_center, img, 5, "transposed"),
                 name="crop_center of a transposed image")


@pytest.mark.points(2)
def test_positive_values_random(student, reference, probes, rng):
    """positive_values agrees with the reference (zeros are not positive; row-major order)"""
    layouts = [((20,), "contiguous"), ((4, 5), "contiguous"), ((2, 3, 4), "contiguous"), ((6, 4), "transposed"), ((3, 8), "strided")]
    cases = [(shape, layout, dtype) for shape, layout in layouts for dtype in (torch.float32, torch.int64)]
    calls = [(torch.randint(-3, 4, shape, generator=rng).to(dtype), layout) for shape, layout, dtype in cases]
    results, answers = student.map(probes.positive_values, calls), reference.map(probes.positive_values, calls)
    for (shape, layout, dtype), got, want in zip(cases, results, answers):
        assert_close(got, want, name=f"positive_values of a {layout} {dtype} tensor of rank {len(shape)}")


@pytest.mark.points(2)
def test_fill_missing_random(student, reference, probes, rng):
    """fill_missing agrees with the reference (NaN replaced, +-inf kept) and leaves its input unchanged"""
    cases, calls = [], []
    for dtype in (torch.float32, torch.float64):
        for shape in [(10,), (4, 6), (2, 3, 5)]:
            x = torch.randn(shape, generator=rng, dtype=dtype)
            x[torch.rand(shape, generator=rng) < 0.3] = float("nan")
            x.view(-1)[:2] = torch.tensor([float("inf"), float("-inf")], dtype=dtype)  # not missing: they stay
            value = float(torch.randn((), generator=rng))
            cases.append((dtype, shape))
            calls.append((x, value))
    results, answers = student.map(probes.fill_missing, calls), reference.map(probes.fill_missing, calls)
    for (dtype, shape), got, want in zip(cases, results, answers):
        assert_tensor(got["out"], want["out"], name=f"fill_missing of a {dtype} tensor of shape {shape}")
        assert_tensor(got["input_after"], want["input_after"], equal_nan=True,
                      name=f"the input of fill_missing (a {dtype} tensor of shape {shape}) after the call")
