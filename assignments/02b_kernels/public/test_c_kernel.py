import pytest
import torch

from autograder.judge.checks import assert_equal, assert_tensor, assert_true


@pytest.mark.points(2)
@pytest.mark.hint("build_kernels writes the source to a .c file in a fresh temporary folder, runs "
                  "cc -O2 -shared -fPIC -o <lib>.so <file>.c -lm and returns ctypes.CDLL of the library.")
def test_build_kernels_compiles(student, probes):
    """build_kernels compiles a C source and loads it"""
    assert_equal(student(probes.build_and_call, 7), [7, 1007], name="add_constant(0), add_constant(1000) "
                 "from a library build_kernels compiled")


@pytest.mark.points(2)
@pytest.mark.hint("silu(x) = x / (1 + exp(-x)) elementwise, from the kernel matching the dtype (silu_f32 / "
                  "silu_f64), into a new tensor; the kernel only reads contiguous memory.")
def test_c_silu_known(student, probes):
    """c_silu on a few values, float32 and float64"""
    for dtype in (torch.float32, torch.float64):
        x = torch.tensor([-2.0, 0.0, 1.0, 3.0], dtype=dtype)
        got = student(probes.c_op, "c_silu", x)
        assert_tensor(got["y"], torch.nn.functional.silu(x), name=f"c_silu of a {dtype} tensor")


@pytest.mark.points(3)
@pytest.mark.hint("Row r, column c of x is at x[r * row_stride + c * col_stride]: pass the strides of "
                  "x.reshape(-1, x.shape[-1]) to the kernel; subtract the row maximum before exp.")
def test_c_softmax_known(student, probes):
    """c_softmax on a contiguous and a transposed tensor, and a rejected dtype"""
    x = torch.tensor([[1.0, 2.0, 3.0], [0.0, 0.0, 1000.0]])
    got = student(probes.c_op, "c_softmax", x)
    assert_tensor(got["y"], torch.softmax(x, -1), name="c_softmax of a 2 x 3 float32 tensor")
    got = student(probes.c_op, "c_softmax", x, "t")
    assert_tensor(got["y"], torch.softmax(x.t(), -1), name="c_softmax of a transposed (non-contiguous) tensor")
    assert_true(got["contiguous"] is True, "c_softmax should return a new contiguous tensor.")
    assert_equal(student(probes.c_op_error, "c_softmax", torch.ones(2, 2, dtype=torch.int64)), "TypeError",
                 name="the exception c_softmax raises for an int64 tensor")
