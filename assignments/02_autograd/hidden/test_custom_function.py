import pytest
import torch

from autograder.judge.checks import assert_close, assert_tensor

CASES = [((6,), "c"), ((3, 4), "c"), ((2, 3, 4), "c"), ((4, 3), "t"), ((3, 8), "s")]


@pytest.mark.points(3)
def test_gradient_matches_finite_differences(student, probes, rng):
    """in float64, MySigmoid's gradient matches central finite differences"""
    for shape in [(5,), (3, 4)]:
        x = torch.randn(shape, generator=rng, dtype=torch.float64) * 3
        v = torch.randn(shape, generator=rng, dtype=torch.float64)
        got = student(probes.sigmoid_finite_diff, x, v, 1e-6)
        s = torch.sigmoid(x)
        assert_tensor(got["analytic"], v * s * (1 - s), rtol=1e-6, atol=1e-8,
                      name=f"MySigmoid's gradient (float64, shape {shape})")
        assert_tensor(got["analytic"], got["numeric"], rtol=1e-6, atol=1e-8,
                      name=f"MySigmoid's gradient against finite differences (float64, shape {shape})")


@pytest.mark.points(4)
def test_matches_torch_and_reference(student, reference, probes, rng, laid_out):
    """MySigmoid's values and gradients match torch.sigmoid and the reference on random shapes and dtypes"""
    for shape, layout in CASES:
        for dtype in (torch.float32, torch.float64):
            x = torch.randn(shape, generator=rng, dtype=dtype) * 5
            xl = laid_out(x, layout)
            v = torch.randn(xl.shape, generator=rng, dtype=dtype)
            got, want = student(probes.sigmoid_apply, x, v, layout), reference(probes.sigmoid_apply, x, v, layout)
            what = f"a {layout}-layout {dtype} tensor of shape {shape}"
            assert_tensor(got["y"], torch.sigmoid(xl), name=f"MySigmoid of {what} (against torch.sigmoid)")
            assert_tensor(got["grad"], want["grad"], name=f"the gradient of MySigmoid for {what}")


@pytest.mark.points(1)
def test_extreme_inputs_stay_finite(student, reference, probes, rng):
    """MySigmoid's values and gradients stay finite and correct for inputs up to +-1000"""
    for dtype in (torch.float32, torch.float64):
        x = torch.tensor([-1000.0, -300.0, -90.0, -30.0, 0.0, 30.0, 90.0, 300.0, 1000.0], dtype=dtype)
        x = x[torch.randperm(len(x), generator=rng)]
        v = torch.rand(len(x), generator=rng, dtype=dtype) + 0.5
        got, want = student(probes.sigmoid_apply, x, v), reference(probes.sigmoid_apply, x, v)
        assert_tensor(got["y"], want["y"], name=f"MySigmoid of large {dtype} inputs")
        assert_tensor(got["grad"], want["grad"], name=f"the gradient of MySigmoid at large {dtype} inputs")


@pytest.mark.points(1)
def test_on_the_inputs_device(student, reference, probes, rng):
    """MySigmoid's output and gradient stay on the input's device ('meta', a stand-in GPU: a tensor made on the CPU raises there)"""
    for shape in [(6,), (3, 4)]:
        for dtype in (torch.float32, torch.float64):
            x, v = torch.randn(shape, generator=rng, dtype=dtype), torch.randn(shape, generator=rng, dtype=dtype)
            on_cpu, s = student(probes.sigmoid_apply, x, v), torch.sigmoid(x)  # the device earns points with the values
            assert_tensor(on_cpu["y"], s, name=f"MySigmoid of a {dtype} tensor of shape {shape}")
            assert_tensor(on_cpu["grad"], v * s * (1 - s), name=f"the gradient of MySigmoid for a {dtype} tensor of shape {shape}")
            got, want = student(probes.sigmoid_on, x, v, "meta"), reference(probes.sigmoid_on, x, v, "meta")
            assert_close(got, want, name=f"MySigmoid's output and gradient for a {dtype} tensor of shape {shape} on 'meta': "
                                         "shape, dtype, device")
