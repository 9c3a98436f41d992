import pytest
import torch

from autograder.judge.checks import assert_close, assert_equal, assert_true


@pytest.mark.points(3)
def test_pairwise_distances_random(student, reference, probes, rng, device):
    """pairwise_distances agrees with the reference (float32/float64) and stays on the inputs' device"""
    for n, m, d in [(5, 7, 2), (1, 1, 3), (40, 30, 8), (16, 1, 5)]:
        for dtype in (torch.float32, torch.float64):
            A, B = torch.randn(n, d, generator=rng, dtype=dtype) * 3, torch.randn(m, d, generator=rng, dtype=dtype) * 3
            got, want = student(probes.pairwise_distances, A, B, device), reference(probes.pairwise_distances, A, B, device)
            tol = {"rtol": 1e-4, "atol": 1e-4} if dtype == torch.float32 else {"rtol": 1e-6, "atol": 1e-6}
            assert_close(got["out"], want["out"], name=f"pairwise_distances of {dtype} point sets ({n} and {m} points in {d}-d)", **tol)
            assert_equal(got["device"], want["device"], name=f"the device of pairwise_distances of points on {device}")
            got, want = student(probes.pairwise_distances, A, B, "meta"), reference(probes.pairwise_distances, A, B, "meta")
            assert_close(got, want, name=f"pairwise_distances of {dtype} points on 'meta' (a stand-in GPU): shape, dtype, device")


@pytest.mark.points(1)
def test_nearest_neighbor_random(student, reference, probes, rng):
    """nearest_neighbor agrees with the reference"""
    for n, m, d in [(10, 20, 2), (1, 5, 3), (30, 4, 6)]:
        for dtype in (torch.float32, torch.float64):
            A, B = torch.randn(n, d, generator=rng, dtype=dtype), torch.randn(m, d, generator=rng, dtype=dtype)
            assert_close(student(probes.nearest_neighbor, A, B), reference(probes.nearest_neighbor, A, B),
                         name=f"nearest_neighbor of {n} points among {m} in {d}-d")


@pytest.mark.points(3)
def test_no_python_loops(student, reference, probes, rng):
    """pairwise_distances and nearest_neighbor run without Python loops (and give the right answer)"""
    for name in ("pairwise_distances", "nearest_neighbor"):
        small = (torch.randn(5, 3, generator=rng), torch.randn(4, 3, generator=rng))
        large = (torch.randn(60, 3, generator=rng), torch.randn(50, 3, generator=rng))
        a, b = student(probes.cost, name, small), student(probes.cost, name, large)
        for got, args, size in ((a, small, "small"), (b, large, "larger")):
            assert_close(got["out"], reference(probes.cost, name, args)["out"], name=f"{name} on the {size} input",
                         rtol=1e-4, atol=1e-4)
        assert_true(b["torch_calls"] <= a["torch_calls"] + 2,
                    f"{name} runs {a['torch_calls']} torch operations on a small input and {b['torch_calls']} on a much larger one: "
                    "it loops in Python. Let broadcasting do the loop.")
        assert_true(b["python_lines"] <= a["python_lines"] + 2,
                    f"{name} executes {a['python_lines']} lines of your code on a small input and {b['python_lines']} on a much "
                    "larger one: it loops in Python (a for/while loop or a comprehension).")
