import pytest
import torch

from autograder.judge.checks import assert_close, assert_equal, assert_true


@pytest.mark.points(2)
def test_pick_random(student, reference, probes, rng):
    """pick agrees with the reference on random scores (float32/float64, contiguous or not)"""
    for n, c, layout in [(1, 3, "contiguous"), (10, 4, "contiguous"), (64, 10, "contiguous"), (7, 7, "contiguous"),
                         (9, 5, "transposed")]:
        for dtype in (torch.float32, torch.float64):
            scores = torch.randn(n, c, generator=rng, dtype=dtype)
            rows, cols = (c, n) if layout == "transposed" else (n, c)
            labels = torch.randint(0, cols, (rows,), generator=rng)
            assert_close(student(probes.pick, scores, labels, layout), reference(probes.pick, scores, labels, layout),
                         name=f"pick on {layout} {dtype} scores of shape [{rows}, {cols}]")


@pytest.mark.points(2)
def test_one_hot_random(student, reference, probes, rng, device):
    """one_hot agrees with the reference and stays on the labels' device (also checked on 'meta', a stand-in GPU)"""
    for n, k in [(1, 2), (10, 3), (100, 10), (5, 50)]:
        labels = torch.randint(0, k, (n,), generator=rng)
        for where in (device, "meta"):
            got, want = student(probes.one_hot, labels, k, where), reference(probes.one_hot, labels, k, where)
            assert_close(got["out"], want["out"], name=f"one_hot of {n} labels with {k} classes on {where}")
            assert_equal(got["device"], want["device"], name=f"the device of one_hot of labels on {where}")


@pytest.mark.points(1)
def test_scatter_sum_random(student, reference, probes, rng):
    """scatter_sum agrees with the reference with repeated indices and empty bins"""
    for m, n in [(1, 1), (20, 5), (100, 30), (8, 16)]:
        index = torch.randint(0, n, (m,), generator=rng)
        for dtype in (torch.float32, torch.float64, torch.int64):
            values = (torch.randn(m, generator=rng) * 10).to(dtype)
            assert_close(student(probes.scatter_sum, values, index, n), reference(probes.scatter_sum, values, index, n),
                         name=f"scatter_sum of {m} {dtype} values into {n} bins", rtol=1e-5, atol=1e-5)
            got, want = student(probes.scatter_sum, values, index, n, "meta"), reference(probes.scatter_sum, values, index, n, "meta")
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
    for name in ("pick", "one_hot", "scatter_sum"):
        a, b = student(probes.cost, name, small[name]), student(probes.cost, name, large[name])
        for got, args, size in ((a, small[name], "small"), (b, large[name], "larger")):
            assert_close(got["out"], reference(probes.cost, name, args)["out"], name=f"{name} on the {size} input")
        assert_true(b["torch_calls"] <= a["torch_calls"] + 2,
                    f"{name} runs {a['torch_calls']} torch operations on a small input and {b['torch_calls']} on one 50 times larger: "
                    "it loops in Python. Use one vectorised operation over the whole tensor.")
        assert_true(b["python_lines"] <= a["python_lines"] + 2,
                    f"{name} executes {a['python_lines']} lines of your code on a small input and {b['python_lines']} on one "
                    "50 times larger: it loops in Python (a for/while loop or a comprehension).")
