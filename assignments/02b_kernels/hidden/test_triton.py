import pytest
import torch

from autograder.judge.checks import assert_equal, assert_tensor, assert_true

# A transposed ("t") input's last dimension becomes its rows, one Triton program each.  Without a GPU,
# Triton's interpreter runs every program in Python (~2 ms a row, whatever the width), and more rows of
# the same kernel check nothing more: transposed inputs keep their last dimension at most T_COLS.
T_COLS = 16


@pytest.mark.points(5)
def test_triton_kernel_random(student, probes, rng, helpers, kernel_device):
    """softmax_kernel itself, launched by the grader on random shapes, dtypes and layouts, logits up to +-100 and beyond"""
    cases = []
    for dtype in (torch.float32, torch.float64):
        for layout in ("c", "t", "s", "o"):
            shape = helpers.random_shape(rng, layout, max_cols=T_COLS if layout == "t" else 70)
            cases.append((torch.randn(shape, generator=rng, dtype=dtype) * 60, layout))
    got = probes.kit_launch(student, cases, kernel_device)
    assert_true("error" not in got, f"The grader could not launch softmax_kernel on its own: {got.get('error')}")
    for (x, layout), y in zip(cases, got["y"]):
        xl = helpers.laid_out(x, layout)
        assert_tensor(y, torch.softmax(xl, -1), name=f"softmax_kernel on a {layout}-layout {x.dtype} tensor of shape "
                                                     f"{tuple(xl.shape)} (values from {x.min().item():.3g} to {x.max().item():.3g})")


@pytest.mark.points(2)
def test_triton_softmax_random(student, reference, probes, rng, helpers, kernel_device):
    """triton_softmax matches torch.softmax on random shapes, dtypes and layouts (on the GPU, else interpreted on CPU)"""
    for dtype in (torch.float32, torch.float64):
        for layout in ("c", "t", "s", "o"):
            x = torch.randn(helpers.random_shape(rng, layout, max_cols=T_COLS if layout == "t" else 70), generator=rng, dtype=dtype) * 8
            xl = helpers.laid_out(x, layout)
            got = student(probes.triton_apply, x, kernel_device, layout)
            what = f"triton_softmax of a {layout}-layout {dtype} tensor of shape {tuple(xl.shape)} on {kernel_device}"
            assert_tensor(got["y"], torch.softmax(xl, -1), name=what)
            assert_tensor(got["y"], reference(probes.triton_apply, x, kernel_device, layout)["y"], name=what)
            assert_equal(got["device"].split(":")[0], kernel_device, name=f"the device of {what}")
            assert_true(got["contiguous"] is True and got["x_unchanged"] is True,
                        "triton_softmax should return a new contiguous tensor and leave its input alone.")
    shape = helpers.random_shape(rng, "c", max_cols=T_COLS)
    got = student(probes.triton_launch_on_meta, list(shape))
    assert_true("error" not in got, f"triton_softmax raised {got.get('error')} for a tensor on the device meta.")
    assert_equal(got["device"], "meta", name="the device of triton_softmax's output for an input on meta")


@pytest.mark.points(2)
def test_triton_contract(student, probes, rng, helpers, kernel_device):
    """triton_softmax rejects other dtypes with TypeError and handles one column and powers of two"""
    assert_equal(student(probes.c_op_error, "triton_softmax", torch.ones(2, 3, dtype=torch.int64)), "TypeError",
                 name="the exception triton_softmax raises for an int64 tensor")
    for shape in [(3, 1), (2, 16), (helpers.randint(rng, 2, 4), 2 ** helpers.randint(rng, 2, 6))]:
        x = torch.randn(shape, generator=rng) * 5
        got = student(probes.triton_apply, x, kernel_device)
        assert_tensor(got["y"], torch.softmax(x, -1), name=f"triton_softmax of a float32 tensor of shape {shape}")


@pytest.mark.points(5)
def test_op_dispatches_by_device(student, probes, rng, helpers, device, kernel_device):
    """torch.ops.kernels.softmax runs on the input's device (Triton on CUDA), and the Triton kernel agrees"""
    for dtype in (torch.float32, torch.float64):
        x = torch.randn(helpers.random_shape(rng, "t", max_cols=T_COLS), generator=rng, dtype=dtype)
        want = torch.softmax(x.transpose(-1, -2), -1)
        got = student(probes.op_on_device, x, device, "t")
        assert_tensor(got["y"], want, name=f"torch.ops.kernels.softmax of a transposed {dtype} tensor on {device}")
        assert_equal(got["device"].split(":")[0], device, name="the device of the op's output")
        got = student(probes.triton_apply, x, kernel_device, "t")
        assert_tensor(got["y"], want, name=f"triton_softmax of a transposed {dtype} tensor on {kernel_device}")


@pytest.mark.points(1)
def test_triton_is_the_ops_cuda_kernel(student, probes, rng, helpers, kernel_device):
    """kernels::softmax has a CUDA kernel (as torch's dispatcher sees it, however it was registered), it computes
    the softmax, and it is the Triton launcher (checked without a GPU too: through Triton's interpreter, and on a
    meta tensor, which the C kernel refuses)"""
    x = torch.randn(helpers.random_shape(rng, "t", max_cols=T_COLS), generator=rng)
    got = student(probes.cuda_kernel_apply, x, kernel_device, "t")
    assert_true(got["registered"] is True,
                "torch's dispatcher has no CUDA kernel for kernels::softmax: register_cuda_kernel(op) should "
                "register triton_softmax as the op's CUDA kernel, so that one torch.ops call dispatches by device.")
    xl = helpers.laid_out(x, "t")
    assert_tensor(got["y"], torch.softmax(xl, -1),
                  name=f"the op's CUDA kernel on a transposed float32 tensor of shape {tuple(xl.shape)}")
    meta = got["meta"]
    assert_true("error" not in meta, f"The op's CUDA kernel raised {meta.get('error')} for a tensor on the device meta "
                                     "(not the CPU): it should be the Triton launcher (triton_softmax), not the C kernel.")
    assert_equal(meta["device"], "meta", name="the device of the op's CUDA kernel's output for an input on meta")
