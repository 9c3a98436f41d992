import pytest
import torch

from autograder.judge.checks import CheckFailed, as_tf, assert_tf, assert_true


@pytest.mark.points(3)
@pytest.mark.hint("template <typename T> __global__ void KitSiluKernel(int64_t n, float beta, const T* x, T* y) inside "
                  "#if GOOGLE_CUDA || KIT_GPU_EMULATION: start at blockIdx.x * blockDim.x + threadIdx.x, step by "
                  "blockDim.x * gridDim.x, stop at n. Inside #if GOOGLE_CUDA, register its OpKernel with "
                  ".Device(DEVICE_GPU) for float and double: the grader reads those registrations with GOOGLE_CUDA defined.")
def test_gpu_kernel_launched_by_the_grader(student, probes):
    """KitSiluKernel launched by the grader on the CPU over a grid smaller and one larger than n, and its GPU
    registrations read under GOOGLE_CUDA"""
    x = torch.linspace(-4, 4, 50)
    cases = [(2, 4, x, 1.0), (4, 32, x[:10].double(), 2.0)]
    got = probes.kit_build(student, gpu_cases=cases)
    assert_true(type(got) is dict and "error" not in got,
                f"The grader could not build or register your GPU kernel: {got.get('error') if type(got) is dict else got}")
    out = got.get("gpu")
    if type(out) is not list or len(out) != len(cases) or any(type(r) is not dict for r in out):
        raise CheckFailed(f"Launching KitSiluKernel crashed the process running it: {out}")
    for (blocks, threads, x, beta), res in zip(cases, out):
        what = f"KitSiluKernel on {blocks} blocks of {threads} threads for n = {x.numel()}"
        assert_true(res.get("guard") is True, f"{what} wrote past the output's n elements.")
        stray = res.get("stray")
        assert_true(type(stray) is int and stray == 0,
                    f"{what}: {stray!r} writes landed on elements another thread owns (written more than once, or by the "
                    "wrong thread): step by blockDim.x * gridDim.x, the whole grid's width, not blockDim.x.")
        assert_tf(as_tf(res.get("y")), as_tf(x * torch.sigmoid(beta * x)), name=what)
