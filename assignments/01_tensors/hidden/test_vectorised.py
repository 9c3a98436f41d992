import pytest
import torch

from autograder.judge.checks import CheckFailed, assert_close, assert_equal, assert_loop_free, assert_true


def assert_distances(got, want, A, B, *, name, rtol, atol):
    """pairwise distances close to the reference's, or their squares close within the rounding of the expansion
    |a|^2 + |b|^2 - 2 a.b (16 eps of the dtype times |a|^2 + |b|^2): a correct vectorised formula whose squared
    distance rounds to 0 (or below, clamped) reports 0 where the distance is 2.6e-4 (01's alternative on 200000
    points, one secret in four), which a tolerance on the distances alone calls wrong."""
    try:
        assert_close(got, want, name=name, rtol=rtol, atol=atol)
    except CheckFailed:
        if not (type(got) is torch.Tensor and got.shape == want.shape and got.dtype == want.dtype
                and bool(torch.isfinite(got).all())):
            raise
        g2, w2 = got.double() ** 2, want.double() ** 2
        scale = A.double().pow(2).sum(1)[:, None] + B.double().pow(2).sum(1)[None, :]
        if not bool(((g2 - w2).abs() <= rtol * w2 + 16 * torch.finfo(want.dtype).eps * scale).all()):
            raise


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
        A, B = calls[2 * i][0], calls[2 * i][1]
        assert_distances(got["out"], want["out"], A, B, name=f"pairwise_distances of {dtype} point sets ({n} and {m} points in {d}-d)", **tol)
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


# A loop over the rows of A, over the rows of B, or over the coordinates costs at least half a second on one
# of these; vectorised code a few hundredths (autograder.judge.checks.assert_loop_free)
LARGE = [(200_000, 4, 2), (4, 200_000, 2), (4, 4, 100_000)]


@pytest.mark.points(3)
@pytest.mark.same_inputs  # large random inputs: nothing to tabulate, and the master times them once
def test_no_python_loops(student, reference, probes, rng):
    """pairwise_distances and nearest_neighbor run without Python loops: the CPU time the grader measures on large inputs (and the right answer)"""
    for n, m, d in LARGE:
        A, B = torch.randn(n, d, generator=rng), torch.randn(m, d, generator=rng)
        what = f"{n} points against {m} in {d}-d"
        for name in ("pairwise_distances", "nearest_neighbor"):
            want = reference(probes.timed, name, (A, B))
            got = assert_loop_free(student, probes.timed, name, (A, B), reference_cpu=want["cpu"], name=f"{name} of {what}", function=name,
                                   advice="it loops in Python (a for/while loop or a comprehension). Let broadcasting do the loop.")
            if name == "pairwise_distances":
                assert_distances(got["out"], want["out"], A, B, rtol=1e-4, atol=1e-4, name=f"pairwise_distances of {what}")
            else:  # any of the nearest rows where two are equally near (to float64 rounding)
                assert_nearest(got["out"], A, B, name=f"nearest_neighbor of {what}")


def assert_nearest(got, A, B, *, name):
    assert_true(isinstance(got, torch.Tensor) and got.dtype == torch.int64 and tuple(got.shape) == (A.shape[0],),
                f"{name} should be an int64 tensor of shape [{A.shape[0]}]")
    assert_true(bool(((got >= 0) & (got < B.shape[0])).all()), f"{name} holds indices outside [0, {B.shape[0]})")
    dist = torch.cdist(A.double(), B.double())
    best = dist.min(dim=1).values
    assert_true(bool((dist.gather(1, got[:, None]).squeeze(1) <= best * (1 + 1e-5) + 1e-6).all()),
                f"{name}: some rows are not given the index of their nearest row of B")
