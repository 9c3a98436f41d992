import pytest
import torch

from autograder.judge.checks import assert_close, assert_equal, assert_true


@pytest.mark.points(2)
def test_pick_random(student, reference, probes, rng):
    """pick agrees with the reference on random scores (float32/float64, contiguous or not)"""
    calls, names = [], []
    for n, c, layout in [(1, 3, "contiguous"), (10, 4, "contiguous"), (64, 10, "contiguous"), (7, 7, "contiguous"),
                         (9, 5, "transposed")]:
        for dtype in (torch.float32, torch.float64):
            scores = torch.randn(n, c, generator=rng, dtype=dtype)
            rows, cols = (c, n) if layout == "transposed" else (n, c)
            labels = torch.randint(0, cols, (rows,), generator=rng)
            calls.append((scores, labels, layout))
            names.append(f"pick on {layout} {dtype} scores of shape [{rows}, {cols}]")
    results, answers = student.map(probes.pick, calls), reference.map(probes.pick, calls)
    for name, got, want in zip(names, results, answers):
        assert_close(got, want, name=name)


@pytest.mark.points(2)
def test_one_hot_random(student, reference, probes, rng, device):
    """one_hot agrees with the reference and stays on the labels' device (also checked on 'meta', a stand-in GPU)"""
    cases, calls = [], []
    for n, k in [(1, 2), (10, 3), (100, 10), (5, 50)]:
        labels = torch.randint(0, k, (n,), generator=rng)
        for where in (device, "meta"):
            cases.append((n, k, where))
            calls.append((labels, k, where))
    results, answers = student.map(probes.one_hot, calls), reference.map(probes.one_hot, calls)
    for (n, k, where), got, want in zip(cases, results, answers):
        assert_close(got["out"], want["out"], name=f"one_hot of {n} labels with {k} classes on {where}")
        assert_equal(got["device"], want["device"], name=f"the device of one_hot of labels on {where}")


@pytest.mark.points(1)
def test_scatter_sum_random(student, reference, probes, rng):
    """scatter_sum agrees with the reference with repeated indices and empty bins"""
    cases, calls = [], []  # two calls per case: on the CPU, then on 'meta'
    for m, n in [(1, 1), (20, 5), (100, 30), (8, 16)]:
        index = torch.randint(0, n, (m,), generator=rng)
        for dtype in (torch.float32, torch.float64, torch.int64):
            values = (torch.randn(m, generator=rng) * 10).to(dtype)
            cases.append((m, n, dtype))
            calls += [(values, index, n), (values, index, n, "meta")]
    results, answers = student.map(probes.scatter_sum, calls), reference.map(probes.scatter_sum, calls)
    for i, (m, n, dtype) in enumerate(cases):
        assert_close(results[2 * i], answers[2 * i], name=f"scatter_sum of {m} {dtype} values into {n} bins", rtol=1e-5, atol=1e-5)
        got, want = results[2 * i + 1], answers[2 * i + 1]
        assert_close(got, want, name=f"scatter_sum of {m} {dtype} values on 'meta' (a stand-in GPU): its shape, dtype and device")


@pytest.mark.points(2)
def test_no_python_loops(student, reference, probes, rng):
    """pick, one_hot and scatter_sum run without Python loops (and give the right answer)"""
    def work(n):
        scores = torch.randn(n, 5, generator=rng)
        labels = torch.randint(0, 5, (n,), generator=rng)
        values = torch.randn(n, generator=rng)
        return {"pick": (scores, labels), "one_hot": (labels, 5), "scatter_sum": (values, labels, 5)}

    small, large = work(4), work(200)
    names = ("pick", "one_hot", "scatter_sum")
    calls = [(name, inputs[name]) for name in names for inputs in (small, large)]  # each name: small, then large
    results, answers = student.map(probes.cost, calls), reference.map(probes.cost, calls)
    for i, name in enumerate(names):
        a, b = results[2 * i], results[2 * i + 1]
        for got, want, size in ((a, answers[2 * i], "small"), (b, answers[2 * i + 1], "larger")):
            assert_close(got["out"], want["out"], name=f"{name} on the {size} input")
        assert_true(b["torch_calls"] <= a["torch_calls"] + 2,
                    f"{name} runs {a['torch_calls']} torch operations on a small input and {b['torch_calls']} on one 50 times larger: "
                    "it loops in Python. Use one vectorised operation over the whole tensor.")
        assert_true(b["python_lines"] <= a["python_lines"] + 2,
                    f"{name} executes {a['python_lines']} lines of your code on a small input and {b['python_lines']} on one "
                    "50 times larger: it loops in Python (a for/while loop or a comprehension).")
