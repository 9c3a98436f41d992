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


@pytest.mark.points(3)
@pytest.mark.hint("The grader compiles the source c_source() returns itself (no #include, only the math library) and calls "
                  "silu_f32/silu_f64 and softmax_rows_f32/softmax_rows_f64 with the signatures above. Start the "
                  "running maximum at the row's first element, not at 0: a row can be all very negative.")
def test_c_kernels_as_the_grader_builds_them(student, probes):
    """the C kernels themselves, compiled and called by the grader: silu, and softmax on strided and very negative rows"""
    x = torch.tensor([-2.0, 0.0, 1.0, 3.0])
    rows = torch.tensor([[1.0, 2.0, 3.0], [0.0, 0.0, 1000.0], [-300.0, -250.0, -280.0]])
    cases = [("silu", x, "c"), ("silu", x.double(), "c"), ("softmax", rows, "c"), ("softmax", rows.double(), "t"),
             ("softmax", torch.full((2, 4), -500.0, dtype=torch.float64), "c")]
    got = probes.kit_build(student, cases)
    assert_true("error" not in got, f"The grader compiled the source c_source() returns on its own and could not use it: {got.get('error')}")
    for (kernel, x, layout), y in zip(cases, got["y"]):
        xl = x.t() if layout == "t" else x
        want = torch.nn.functional.silu(xl) if kernel == "silu" else torch.softmax(xl, -1)
        what = "silu" if kernel == "silu" else "softmax_rows"
        assert_tensor(y, want, name=f"{what}_{'f32' if x.dtype == torch.float32 else 'f64'} on "
                                    f"{'a transposed' if layout == 't' else 'a'} {tuple(xl.shape)} input {xl.tolist()}")


@pytest.mark.points(1)
@pytest.mark.hint("silu(x) = x / (1 + exp(-x)) elementwise, from the kernel matching the dtype (silu_f32 / "
                  "silu_f64), into a new tensor; the kernel only reads contiguous memory.")
def test_c_silu_known(student, probes):
    """c_silu on a few values, float32 and float64"""
    for dtype in (torch.float32, torch.float64):
        x = torch.tensor([-2.0, 0.0, 1.0, 3.0], dtype=dtype)
        got = student(probes.c_op, "c_silu", x)
        assert_tensor(got["y"], torch.nn.functional.silu(x), name=f"c_silu of a {dtype} tensor")


@pytest.mark.points(2)
@pytest.mark.hint("Row r, column c of x is at x[r * row_stride + c * col_stride]: pass the strides of "
                  "x.reshape(-1, x.shape[-1]) to the kernel. Raise TypeError for another dtype, and for a "
                  "tensor that is not on the CPU (check x.device).")
def test_c_softmax_known(student, probes):
    """c_softmax on a contiguous and a transposed tensor, and rejected dtypes and devices"""
    x = torch.tensor([[1.0, 2.0, 3.0], [0.0, 0.0, 1000.0]])
    got = student(probes.c_op, "c_softmax", x)
    assert_tensor(got["y"], torch.softmax(x, -1), name="c_softmax of a 2 x 3 float32 tensor")
    got = student(probes.c_op, "c_softmax", x, "t")
    assert_tensor(got["y"], torch.softmax(x.t(), -1), name="c_softmax of a transposed (non-contiguous) tensor")
    assert_true(got["contiguous"] is True, "c_softmax should return a new contiguous tensor.")
    assert_equal(student(probes.c_op_error, "c_softmax", torch.ones(2, 2, dtype=torch.int64)), "TypeError",
                 name="the exception c_softmax raises for an int64 tensor")
    assert_equal(student(probes.c_op_error, "c_softmax", torch.ones(2, 2), "meta"), "TypeError",
                 name="the exception c_softmax raises for a float32 tensor on the device meta (not the CPU)")
