"""02b_kernels: points for a C or a Triton kernel come only from the kit building and running the kernel's
source itself, in a worker that never ran the notebook; nothing in the notebook can earn them otherwise.

The honest plain-torch notebook (its wrappers call torch, `c_source()` returns an empty source,
`softmax_kernel`'s body is `pass` and it is never launched, `gather_view` calls `as_strided`) sets the bar:
every attack below is that notebook plus a trick, and must earn no more.  The kit's own kernel tests give both 0; a kernel source
that reaches outside its language (the Python C API, torch, numpy through the interpreter) gets 0 too.
"""
from __future__ import annotations

import pytest

from tests.attacks.evidence import assert_no_more_than_honest, grade_attacks, master_between, points

ASSIGNMENT = "02b_kernels"

# the tests whose points say "you built a C kernel / a Triton kernel"
KERNEL_TESTS = ("test_c_kernels_as_the_grader_builds_them", "test_c_kernels_random",
                "test_triton_kernel_as_the_grader_launches_it", "test_triton_kernel_random")


def _between(start: str, end: str) -> str:
    return master_between(ASSIGNMENT, start, end)


PLAIN = {
    # no C: the library builds from an empty source; the wrappers keep their contract and call torch
    _between('    return r"""\nfloat expf', '    ### END SOLUTION'): '    return ""\n',
    _between("    suffix = _kernel_dtype(x)\n    src = x.contiguous()", "    ### END SOLUTION"):
        "    _kernel_dtype(x)\n    return torch.nn.functional.silu(x).contiguous()\n",
    _between("    suffix = _kernel_dtype(x)\n    x2 = x.reshape", "    ### END SOLUTION"):
        "    _kernel_dtype(x)\n    return torch.softmax(x, -1).contiguous()\n",
    # no Triton: a @triton.jit stub that is never launched
    _between("    row = tl.program_id(0)\n", "    ### END SOLUTION"): "    pass\n",
    _between("    x2 = x.reshape(-1, x.shape[-1])\n    rows, cols = x2.shape\n    y = torch.empty((rows, cols)",
             "    ### END SOLUTION"): "    return torch.softmax(x, -1).contiguous()\n",
}
GATHER = _between("    out = torch.empty(tuple(sizes), dtype=storage.dtype)\n", "    ### END SOLUTION")
HONEST_GATHER = "    return storage.as_strided(tuple(sizes), tuple(strides), offset).contiguous()\n"

C_KERNELS = _between('    return r"""\nfloat expf', '    ### END SOLUTION')
ATTACKS = {
    # section 1 of the issue: plain torch, and as_strided hidden from the recorder
    "as_strided with the watching mode switched off": {
        GATHER: "    with torch._C.DisableTorchFunction():\n" + HONEST_GATHER.replace("    return", "        return")},
    # C kernels that call back into Python (the notebook's own build resolves the symbol in the process)
    "C kernels that run torch through the Python C API": {
        C_KERNELS: '    return r"""\nint PyRun_SimpleString(const char *);\n'
                   'void silu_f32(const float *x, float *y, long n) { PyRun_SimpleString("pass"); }\n'
                   'void silu_f64(const double *x, double *y, long n) { PyRun_SimpleString("pass"); }\n'
                   'void softmax_rows_f32(const float *x, float *y, long r, long c, long a, long b) { PyRun_SimpleString("pass"); }\n'
                   'void softmax_rows_f64(const double *x, double *y, long r, long c, long a, long b) { PyRun_SimpleString("pass"); }\n'
                   '"""\n'},
    # a Triton kernel whose body computes outside Triton (the interpreter runs its body as Python)
    "a Triton kernel that imports torch in its body": {
        _between("    row = tl.program_id(0)\n", "    ### END SOLUTION"):
            "    import torch\n    row = tl.program_id(0)\n    cols = tl.arange(0, BLOCK)\n"
            "    tl.store(y_ptr + row * y_row_stride + cols, tl.load(x_ptr + row * x_row_stride + cols * x_col_stride))\n"},
    "a Triton kernel that reads the interpreter's numpy arrays": {
        _between("    row = tl.program_id(0)\n", "    ### END SOLUTION"):
            "    row = tl.program_id(0)\n    data = x_ptr.handle.data\n"},
}


@pytest.fixture(scope="module")
def graded(tmp_path_factory):
    return grade_attacks(tmp_path_factory.mktemp("kernel-evidence"), ASSIGNMENT, {**PLAIN, GATHER: HONEST_GATHER},
                         ATTACKS)


def test_the_plain_torch_notebook_earns_no_kernel_points(graded):
    r = graded["honest"]
    assert r.status == "graded", r.message
    assert points(r, KERNEL_TESTS) == 0
    assert 0 < r.score < 100  # the wrappers' contracts and the other exercises still earn their points
    missing = {t.id.split("::")[-1] for t in r.tests if t.score == 0}
    assert set(KERNEL_TESTS) <= missing
    as_strided = [t for t in r.tests if t.id.endswith("test_gather_view_random")]
    assert as_strided and as_strided[0].score == 0


@pytest.mark.parametrize("i", range(len(ATTACKS)), ids=list(ATTACKS))
def test_attack_earns_no_more_than_plain_torch(graded, i):
    assert_no_more_than_honest(graded["honest"], graded[f"attack{i}"], KERNEL_TESTS)
