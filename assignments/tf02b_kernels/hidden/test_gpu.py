import pytest
import torch

from autograder.judge.checks import CheckFailed, as_tf, assert_tf, assert_true


def _launches(rng, helpers):
    """(blocks, threads, x, beta): grids smaller than n (only a grid-stride loop covers it) and larger than n (only the
    bound keeps the threads past n from writing), float and double."""
    cases = []
    for dtype in (torch.float32, torch.float64):
        n = helpers.randint(rng, 40, 200)
        # two blocks or more, always: with one block, a stride of blockDim.x alone is the grid's width and goes unseen
        cases.append((helpers.randint(rng, 2, 3), helpers.randint(rng, 2, 8), torch.randn(n, generator=rng, dtype=dtype) * 4,
                      round(float(torch.rand((), generator=rng)) * 2 + 0.5, 3)))
        n = helpers.randint(rng, 1, 30)
        cases.append((helpers.randint(rng, 2, 4), 32, torch.randn(n, generator=rng, dtype=dtype) * 4, 1.0))
    return cases


@pytest.mark.points(7)
def test_gpu_kernel_launched_by_the_grader(student, probes, rng, helpers):
    """KitSiluKernel, compiled from op_source() and launched by the grader one thread at a time on the CPU, over
    grids smaller and larger than n: every element written once, nothing past n; its GPU registrations (read under
    GOOGLE_CUDA) on the GPU device for float and double"""
    cases = _launches(rng, helpers)
    got = probes.kit_build(student, gpu_cases=cases)
    assert_true(type(got) is dict and "error" not in got,
                f"The grader could not build or register your GPU kernel: {got.get('error') if type(got) is dict else got}")
    out = got.get("gpu")
    if type(out) is dict:
        raise CheckFailed(f"Launching KitSiluKernel crashed the process running it ({out.get('crashed')}): a thread past n?")
    assert_true(type(out) is list and len(out) == len(cases), "The grader's harness got no answer from KitSiluKernel.")
    for (blocks, threads, x, beta), res in zip(cases, out):
        what = (f"KitSiluKernel<{'float' if x.dtype == torch.float32 else 'double'}> launched on {blocks} blocks of {threads} "
                f"threads for n = {x.numel()} (beta = {beta})")
        assert_true(type(res) is dict, f"{what}: no answer.")
        assert_true(res.get("guard") is True, f"{what} wrote past the output's n elements: stop every thread at i < n.")
        stray = res.get("stray")
        assert_true(type(stray) is int and stray == 0,
                    f"{what}: {stray!r} writes landed on elements another thread owns (each element was written more than "
                    "once, or by the wrong thread): thread blockIdx.x * blockDim.x + threadIdx.x starts at its own index "
                    "and steps by blockDim.x * gridDim.x, the whole grid's width.")
        assert_tf(as_tf(res.get("y")), as_tf(x * torch.sigmoid(beta * x)), name=what)
