import pytest
import torch

from autograder.judge.checks import assert_close, assert_equal, assert_tensor, assert_true

FORBIDDEN = {"sigmoid", "special_expit", "expit", "log_sigmoid", "logsigmoid", "backward", "grad",
             "_sigmoid_backward", "sigmoid_backward", "vjp", "jacobian"}
CASES = [((6,), "c"), ((3, 4), "c"), ((2, 3, 4), "c"), ((4, 3), "t"), ((3, 8), "s")]


def _laid_out(shape, layout):
    if layout == "t":
        return shape[:-2] + (shape[-1], shape[-2])
    if layout == "s":
        return shape[:-1] + ((shape[-1] + 1) // 2,)
    return shape


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


@pytest.mark.points(3)
def test_matches_torch_and_reference(student, reference, probes, rng):
    """MySigmoid's values and gradients match torch.sigmoid and the reference on random shapes and dtypes"""
    for shape, layout in CASES:
        for dtype in (torch.float32, torch.float64):
            x = torch.randn(shape, generator=rng, dtype=dtype) * 5
            v = torch.randn(_laid_out(shape, layout), generator=rng, dtype=dtype)
            got, want = student(probes.sigmoid_apply, x, v, layout), reference(probes.sigmoid_apply, x, v, layout)
            what = f"a {layout}-layout {dtype} tensor of shape {shape}"
            xl = x.transpose(-1, -2) if layout == "t" else x[..., ::2] if layout == "s" else x
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


@pytest.mark.points(2)
def test_implemented_by_hand(student, probes, rng):
    """MySigmoid is a torch.autograd.Function that saves tensors and does not call sigmoid or autograd itself"""
    x = torch.randn(4, 3, generator=rng, dtype=torch.float64)
    got = student(probes.sigmoid_apply, x, torch.ones(4, 3, dtype=torch.float64))
    s = torch.sigmoid(x)  # how it is computed earns points only with the right values
    assert_tensor(got["y"], s, name="MySigmoid of a float64 tensor of shape (4, 3)")
    assert_tensor(got["grad"], s * (1 - s), name="the gradient of MySigmoid for a float64 tensor of shape (4, 3)")
    assert_equal(got["is_function"], True, name="whether MySigmoid is a subclass of torch.autograd.Function")
    assert_true(type(got["saved"]) is int and got["saved"] >= 1,
                "MySigmoid's forward should keep what backward needs with ctx.save_for_backward(...).")
    for phase in ("forward", "backward"):
        used = sorted(set(got[f"{phase}_calls"]) & FORBIDDEN)
        assert_true(not used, f"MySigmoid's {phase} calls {', '.join(used)}; compute the sigmoid and its "
                              "derivative yourself from elementary operations.")
