import pytest
import torch

from autograder.judge.checks import assert_equal, assert_tensor, assert_true


def _check_out(got, x, want, what):
    assert_tensor(got["y"], want, name=what)
    assert_true(got["contiguous"] is True, f"{what} should be a new contiguous tensor.")
    assert_tensor(got["x_after"], x, name=f"the input after {what} (inputs must not be modified)")


@pytest.mark.points(2)
def test_build_kernels_fresh_source(student, probes, rng, helpers):
    """build_kernels compiles and loads a source it has never seen"""
    c = helpers.randint(rng, 2, 10**6)
    assert_equal(student(probes.build_and_call, c), [c, 1000 + c], name="a function from a library build_kernels compiled")


@pytest.mark.points(9)
def test_c_kernels_random(student, probes, softmax_cases, rng, helpers):
    """the C kernels themselves, compiled and called by the grader on random shapes, dtypes and strides,
    edge shapes and very large or very negative rows"""
    cases = [("silu", x, layout) for x, layout in softmax_cases] + [("softmax", x, layout) for x, layout in softmax_cases]
    for dtype in (torch.float32, torch.float64):
        for shape in [(7,), (5, 1), (1, 9)]:
            cases.append(("softmax", torch.randn(shape, generator=rng, dtype=dtype) * 300, "c"))
        low = torch.randn(3, helpers.randint(rng, 2, 9), generator=rng, dtype=dtype) - helpers.randint(rng, 200, 900)
        cases.append(("softmax", low, helpers.LAYOUTS[helpers.randint(rng, 0, 3)]))
    got = probes.kit_build(student, cases)
    assert_true("error" not in got, f"The grader compiled the source c_source() returns on its own and could not use it: {got.get('error')}")
    for (kernel, x, layout), y, after in zip(cases, got["y"], got["x_after"]):
        xl = helpers.laid_out(x, layout)
        want = torch.nn.functional.silu(xl) if kernel == "silu" else torch.softmax(xl, -1)
        what = (f"{'silu' if kernel == 'silu' else 'softmax_rows'}_{'f32' if x.dtype == torch.float32 else 'f64'} on a "
                f"{layout}-layout tensor of shape {tuple(xl.shape)} (values from {x.min().item():.3g} to {x.max().item():.3g})")
        assert_tensor(y, want, name=what)
        assert_tensor(after.reshape(xl.shape), xl, name=f"the input after {what} (a kernel must not write to it)")


@pytest.mark.points(2)
def test_c_silu_random(student, probes, softmax_cases, helpers):
    """c_silu matches torch's silu on random shapes, float32/float64 and non-contiguous layouts, leaving x alone"""
    for x, layout in softmax_cases:
        xl = helpers.laid_out(x, layout)
        got = student(probes.c_op, "c_silu", x, layout)
        _check_out(got, xl, torch.nn.functional.silu(xl), f"c_silu of a {layout}-layout {x.dtype} tensor of shape {tuple(xl.shape)}")


@pytest.mark.points(2)
def test_c_softmax_random(student, reference, probes, softmax_cases, helpers):
    """c_softmax matches torch.softmax and the reference on random shapes, dtypes and strided layouts"""
    for x, layout in softmax_cases:
        xl = helpers.laid_out(x, layout)
        got = student(probes.c_op, "c_softmax", x, layout)
        what = f"c_softmax of a {layout}-layout {x.dtype} tensor of shape {tuple(xl.shape)}"
        _check_out(got, xl, torch.softmax(xl, -1), what)
        assert_tensor(got["y"], reference(probes.c_op, "c_softmax", x, layout)["y"], name=what)


@pytest.mark.points(2)
def test_dtype_and_device_checks(student, probes, rng):
    """both wrappers reject dtypes without a kernel and tensors off the CPU with TypeError, and accept float32 and float64"""
    for name in ("c_silu", "c_softmax"):
        for dtype in (torch.float16, torch.int32, torch.bool):
            x = torch.ones(2, 3, dtype=dtype)
            assert_equal(student(probes.c_op_error, name, x), "TypeError",
                         name=f"the exception {name} raises for a {dtype} tensor")
        for dtype in (torch.float32, torch.float64):
            x = torch.randn(2, 3, generator=rng, dtype=dtype)
            assert_equal(student(probes.c_op_error, name, x, "meta"), "TypeError",
                         name=f"the exception {name} raises for a {dtype} tensor on the device meta (not the CPU)")
            want = torch.nn.functional.silu(x) if name == "c_silu" else torch.softmax(x, -1)
            assert_tensor(student(probes.c_op, name, x)["y"], want, name=f"{name} of a {dtype} tensor")
