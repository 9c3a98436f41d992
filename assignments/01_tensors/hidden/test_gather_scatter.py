import pytest
import torch

from autograder.judge.checks import assert_close, assert_equal, assert_loop_free


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
        # the device first: on 'meta' a result left on the CPU holds values where the reference's holds a shape
        assert_equal(got.get("device") if type(got) is dict else got, want["device"],
                     name=f"the device of one_hot of labels on {where} (make the result where the labels live)")
        assert_close(got["out"], want["out"], name=f"one_hot of {n} labels with {k} classes on {where}")


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
        assert_equal(got.get("device") if type(got) is dict else got, want["device"],
                     name=f"the device of scatter_sum of {m} {dtype} values on 'meta' (a stand-in GPU: make the bins "
                          "where the values live)")
        assert_close(got, want, name=f"scatter_sum of {m} {dtype} values on 'meta' (a stand-in GPU): its shape, dtype and device")


@pytest.mark.points(2)
@pytest.mark.same_inputs  # large random inputs: nothing to tabulate, and the master times them once
def test_no_python_loops(student, reference, probes, rng):
    """pick, one_hot and scatter_sum run without Python loops: the CPU time the grader measures on large inputs (and the right answer)"""
    n, m = 500_000, 3_000_000  # a loop over these rows costs half a second or more, vectorised code a few hundredths
    seeds = [int(v) for v in torch.randint(0, 2**31, (4,), generator=rng)]
    labels = {"randint": [0, 5, n, seeds[2]]}  # every input made in the worker (probes._made): 62 MB in all
    made = ({"randint": [-100, 100, m, seeds[0]]}, {"randint": [0, 5, m, seeds[1]]}, 5)
    calls = {"pick": ({"randn": [n, 5, seeds[3]]}, labels), "one_hot": (labels, 5), "scatter_sum": made}
    for name, args in calls.items():
        rows = n if name != "scatter_sum" else m
        want = reference(probes.timed, name, args)
        got = assert_loop_free(student, probes.timed, name, args, reference_cpu=want["cpu"], name=f"{name} of {rows} rows", function=name,
                               advice="it loops in Python (a for/while loop or a comprehension). Use one vectorised operation.")
        assert_close(got["out"], want["out"], name=f"{name} of {rows} rows")
