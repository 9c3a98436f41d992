import pytest
import torch

from autograder.judge.checks import assert_equal, assert_tensor, assert_true

# A transposed ("t") input's last dimension becomes its rows, one Triton program each.  Without a GPU,
# Triton's interpreter runs every program in Python (~2 ms a row, whatever the width), and more rows of
# the same kernel check nothing more: transposed inputs keep their last dimension at most T_COLS.
T_COLS = 16


@pytest.mark.points(5)
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


@pytest.mark.points(3)
def test_triton_contract(student, probes, rng, helpers, kernel_device):
    """triton_softmax rejects other dtypes with TypeError, handles one column and powers of two, and is @triton.jit"""
    assert_equal(student(probes.triton_is_jit), True, name="whether softmax_kernel is a @triton.jit kernel")
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
    """kernels::softmax has a CUDA implementation, and it computes the softmax (checked without a GPU too:
    the registered function runs on a CPU tensor through Triton's interpreter)"""
    x = torch.randn(helpers.random_shape(rng, "t", max_cols=T_COLS), generator=rng)
    got = student(probes.cuda_kernel_apply, x, kernel_device, "t")
    assert_true(got["registered"] is True,
                "kernels::softmax has no CUDA implementation: the Triton kernel should be registered as the "
                "op's CUDA kernel, so that one torch.ops call dispatches by device.")
    assert_tensor(got["y"], torch.softmax(helpers.laid_out(x, "t"), -1),
                  name=f"the op's CUDA implementation on a transposed float32 tensor of shape {tuple(x.T.shape)}")
