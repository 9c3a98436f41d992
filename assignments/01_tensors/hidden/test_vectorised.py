import pytest
import torch

from autograder.judge.checks import assert_close, assert_equal, assert_true


@pytest.mark.points(3)
def test_pairwise_distances_random(student, reference, probes, rng, device):
    """pairwise_distances agrees with the reference (float32/float64) and stays on the inputs' device"""
    cases, calls = [], []  # two calls per case: on `device`, then on 'meta'
    for n, m, d in [(5, 7, 2), (1, 1, 3), (40, 30, 8), (16, 1, 5)]:
        for dtype in (torch.float32, torch.float64):
            A, B = torch.randn(n, d, generator=rng, dtype=dtype) * 3, torch.randn(m, d, generator=rng, dtype=dtype) * 3
            cases.append((n, m, d, dtype))
            calls += [(A, B, device), (A, B, "meta")]
    results, answers = student.map(probes.pairwise_distances, calls), reference.map(probes.pairwise_distances, calls)
    for i, (n, m, d, dtype) in enumerate(cases):
        got, want = results[2 * i], answers[2 * i]
        tol = {"rtol": 1e-4, "atol": 1e-4} if dtype == torch.float32 else {"rtol": 1e-6, "atol": 1e-6}
        assert_close(got["out"], want["out"], name=f"pairwise_distances of {dtype} point sets ({n} and {m} points in {d}-d)", **tol)
        assert_equal(got["device"], want["device"], name=f"the device of pairwise_distances of points on {device}")
        got, want = results[2 * i + 1], answers[2 * i + 1]
        assert_close(got, want, name=f"pairwise_distances of {dtype} points on 'meta' (a stand-in GPU): shape, dtype, device")


@pytest.mark.points(1)
def test_nearest_neighbor_random(student, reference, probes, rng):
    """nearest_neighbor agrees with the reference"""
    cases = [(n, m, d, dtype) for n, m, d in [(10, 20, 2), (1, 5, 3), (30, 4, 6)] for dtype in (torch.float32, torch.float64)]
    calls = [(torch.randn(n, d, generator=rng, dtype=dtype), torch.randn(m, d, generator=rng, dtype=dtype))  # (A, B)
             for n, m, d, dtype in cases]
    results, answers = student.map(probes.nearest_neighbor, calls), reference.map(probes.nearest_neighbor, calls)
    for (n, m, d, dtype), got, want in zip(cases, results, answers):
        assert_close(got, want, name=f"nearest_neighbor of {n} points among {m} in {d}-d")


@pytest.mark.points(3)
def test_no_python_loops(student, reference, probes, rng):
    """pairwise_distances and nearest_neighbor run without Python loops (and give the right answer)"""
    names = ("pairwise_distances", "nearest_neighbor")
    calls = []  # each name: a small input, then a large one
    for name in names:
        small = (torch.randn(5, 3, generator=rng), torch.randn(4, 3, generator=rng))
        large = (torch.randn(60, 3, generator=rng), torch.randn(50, 3, generator=rng))
        calls += [(name, small), (name, large)]
    results, answers = student.map(probes.cost, calls), reference.map(probes.cost, calls)
    for i, name in enumerate(names):
        a, b = results[2 * i], results[2 * i + 1]
        for got, want, size in ((a, answers[2 * i], "small"), (b, answers[2 * i + 1], "larger")):
            assert_close(got["out"], want["out"], name=f"{name} on the {size} input",
                         rtol=1e-4, atol=1e-4)
        assert_true(b["torch_calls"] <= a["torch_calls"] + 2,
                    f"{name} runs {a['torch_calls']} torch operations on a small input and {b['torch_calls']} on a much larger one: "
                    "it loops in Python. Let broadcasting do the loop.")
        assert_true(b["python_lines"] <= a["python_lines"] + 2,
                    f"{name} executes {a['python_lines']} lines of your code on a small input and {b['python_lines']} on a much "
                    "larger one: it loops in Python (a for/while loop or a comprehension).")
