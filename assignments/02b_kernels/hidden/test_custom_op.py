import pytest
import torch

from autograder.judge.checks import assert_equal, assert_tensor, assert_true


def _torch_grad(x, v):
    xr = x.detach().clone().requires_grad_(True)
    (g,) = torch.autograd.grad(torch.softmax(xr, -1), xr, v)
    return g


@pytest.mark.points(6)
def test_values_and_gradients_random(student, reference, probes, softmax_cases, helpers, rng):
    """the op's values and gradients match torch and the reference on random shapes, dtypes and layouts"""
    for x, layout in softmax_cases:
        xl = helpers.laid_out(x, layout)
        v = torch.randn(xl.shape, generator=rng, dtype=x.dtype)
        got, want = student(probes.op_apply, x, v, layout), reference(probes.op_apply, x, v, layout)
        what = f"a {layout}-layout {x.dtype} tensor of shape {tuple(xl.shape)}"
        assert_tensor(got["y"], torch.softmax(xl, -1), name=f"torch.ops.kernels.softmax of {what}")
        assert_tensor(got["grad"], _torch_grad(xl, v), name=f"the op's gradient for {what}")
        assert_tensor(got["grad"], want["grad"], name=f"the op's gradient for {what}")
        assert_tensor(got["x_after"], xl, name=f"the op's input after the call ({what})")


@pytest.mark.points(4)
def test_meta_tensors(student, reference, probes, rng, helpers):
    """on meta tensors the op gives the real kernel's output metadata (shape, dtype, contiguous strides)"""
    for dtype in (torch.float32, torch.float64):
        for layout in ("c", "t", "s", "o"):
            shape = helpers.random_shape(rng, layout)
            got = student(probes.op_meta, list(shape), dtype, layout)
            want = reference(probes.op_meta, list(shape), dtype, layout)
            real = torch.softmax(helpers.laid_out(torch.empty(shape, dtype=dtype), layout), -1).contiguous()
            assert_equal(got, want, name=f"the op's output metadata on a {layout}-layout {dtype} meta tensor")
            assert_equal(got["stride"], list(real.stride()), name="the strides of the op's output on a meta tensor")


@pytest.mark.points(4)
def test_under_torch_compile(student, probes, rng, helpers):
    """the op works inside torch.compile(backend="aot_eager", fullgraph=True), forward and backward"""
    for dtype, layout in ((torch.float64, "c"), (torch.float32, "t")):
        x = torch.randn(helpers.random_shape(rng, layout), generator=rng, dtype=dtype)
        xl = helpers.laid_out(x, layout)
        v = torch.randn(xl.shape, generator=rng, dtype=dtype)
        got = student(probes.op_compiled, x, v, layout)
        assert_tensor(got["y"], torch.softmax(xl * 2.0, -1) * 3.0, name="the compiled function's output")
        assert_tensor(got["grad"], 6.0 * _torch_grad(xl * 2.0, v), name="the compiled function's gradient")


@pytest.mark.points(4)
def test_opcheck(student, probes, rng, helpers):
    """torch.library.opcheck passes on random inputs, and the op's values on them are right"""
    for dtype, layout in ((torch.float64, "c"), (torch.float32, "t"), (torch.float64, "o")):
        x = torch.randn(helpers.random_shape(rng, layout, max_cols=12), generator=rng, dtype=dtype)
        report = student(probes.op_check, x, layout)
        assert_true(isinstance(report, dict) and "error" not in report and len(report) >= 3
                    and all(v == "SUCCESS" for v in report.values()),
                    f"torch.library.opcheck fails on a {layout}-layout {dtype} input: {str(report)[:300]}")
        xl = helpers.laid_out(x, layout)
        v = torch.ones(xl.shape, dtype=dtype)
        assert_tensor(student(probes.op_apply, x, v, layout)["y"], torch.softmax(xl, -1),
                      name=f"torch.ops.kernels.softmax of a {layout}-layout {dtype} tensor")
