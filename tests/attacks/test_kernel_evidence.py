"""02b_kernels: points for a C or a Triton kernel come only from the kit building and running the kernel's
source itself, in a worker that never ran the notebook; nothing in the notebook can earn them otherwise.

The honest plain-torch notebook (its wrappers call torch, `c_source()` returns an empty source,
`softmax_kernel`'s body is `pass` and it is never launched, `gather_view` calls `as_strided`) sets the bar:
every attack below is that notebook plus a trick, and must earn no more.  The kit's own kernel tests give both 0; a kernel source
that reaches outside its language (the Python C API, torch, numpy through the interpreter) gets 0 too: what a C library may
call is read from its symbol table, and its kernels run in the kit's C harness, a process without Python.
"""

from __future__ import annotations

import pytest

from tests.attacks.evidence import assert_no_more_than_honest, grade_attacks, guarded, master_between, points

ASSIGNMENT = "02b_kernels"

# the tests whose points say "you built a C kernel / a Triton kernel"
KERNEL_TESTS = (
    "test_c_kernels_as_the_grader_builds_them",
    "test_c_kernels_random",
    "test_triton_kernel_as_the_grader_launches_it",
    "test_triton_kernel_random",
)


def _between(start: str, end: str) -> str:
    return master_between(ASSIGNMENT, start, end)


PLAIN = {
    # no C: the library builds from an empty source; the wrappers keep their contract and call torch
    _between('    return r"""\nfloat expf', '    ### END SOLUTION'): '    return ""\n',
    _between(
        "    suffix = _kernel_dtype(x)\n    src = x.contiguous()", "    ### END SOLUTION"
    ): "    _kernel_dtype(x)\n    return torch.nn.functional.silu(x).contiguous()\n",
    _between(
        "    suffix = _kernel_dtype(x)\n    x2 = x.reshape", "    ### END SOLUTION"
    ): "    _kernel_dtype(x)\n    return torch.softmax(x, -1).contiguous()\n",
    # no Triton: a @triton.jit stub that is never launched
    _between("    row = tl.program_id(0)\n", "    ### END SOLUTION"): "    pass\n",
    _between(
        "    x2 = x.reshape(-1, x.shape[-1])\n    rows, cols = x2.shape\n    y = torch.empty((rows, cols)",
        "    ### END SOLUTION",
    ): "    return torch.softmax(x, -1).contiguous()\n",
}
GATHER = _between("    out = torch.empty(tuple(sizes), dtype=storage.dtype)\n", "    ### END SOLUTION")
HONEST_GATHER = "    return storage.as_strided(tuple(sizes), tuple(strides), offset).contiguous()\n"

C_KERNELS = _between('    return r"""\nfloat expf', '    ### END SOLUTION')
HIDDEN_INCLUDE = "an #include hidden from the text check by a comment"
PASSWD_LINE = "sandboxed notebook"  # in the worker's own /etc/passwd (autograder/execute/etc/passwd)
# C kernels that hand their pointers to torch through Python's C API, declared weak (no libc: they format by hand)
WEAK_PYTHON = r"""
__attribute__((weak)) int PyGILState_Ensure(void);
__attribute__((weak)) void PyGILState_Release(int);
__attribute__((weak)) int PyRun_SimpleString(const char *);

static char *put(char *p, const char *s) { while (*s) *p++ = *s++; return p; }
static char *num(char *p, unsigned long v) {
    char d[24]; int k = 0;
    do { d[k++] = (char)('0' + v % 10); v /= 10; } while (v);
    while (k) *p++ = d[--k];
    return p;
}
static void run(const char *fn, const char *dt, const void *x, void *y, long a, long b, long c, long d) {
    char code[600], *p = code;
    p = put(p, "import ctypes, torch\nt = torch.");
    p = put(p, dt);
    p = put(p, "\nA = ["); p = num(p, (unsigned long)x);
    p = put(p, ","); p = num(p, (unsigned long)y); p = put(p, ","); p = num(p, (unsigned long)a);
    p = put(p, ","); p = num(p, (unsigned long)b); p = put(p, ","); p = num(p, (unsigned long)c);
    p = put(p, ","); p = num(p, (unsigned long)d); p = put(p, "]\n");
    p = put(p, fn);
    *p = 0;
    int g = PyGILState_Ensure();
    PyRun_SimpleString(code);
    PyGILState_Release(g);
}
#define SILU "e = torch.empty(0, dtype=t).element_size()\n" \
  "x = torch.frombuffer((ctypes.c_char * (A[2] * e)).from_address(A[0]), dtype=t)\n" \
  "torch.frombuffer((ctypes.c_char * (A[2] * e)).from_address(A[1]), dtype=t).copy_(torch.nn.functional.silu(x))\n"
#define SOFTMAX "e = torch.empty(0, dtype=t).element_size()\n" \
  "n = ((A[2] - 1) * A[4] + (A[3] - 1) * A[5] + 1) if A[2] * A[3] else 0\n" \
  "x = torch.frombuffer((ctypes.c_char * max(n * e, 1)).from_address(A[0]), dtype=t)[:n].as_strided((A[2], A[3]), (A[4], A[5]))\n" \
  "torch.frombuffer((ctypes.c_char * max(A[2] * A[3] * e, 1)).from_address(A[1]), dtype=t)[:A[2] * A[3]].copy_(torch.softmax(x, -1).reshape(-1))\n"
void silu_f32(const float *x, float *y, long n) { run(SILU, "float32", x, y, n, 0, 0, 0); }
void silu_f64(const double *x, double *y, long n) { run(SILU, "float64", x, y, n, 0, 0, 0); }
void softmax_rows_f32(const float *x, float *y, long r, long c, long s0, long s1) { run(SOFTMAX, "float32", x, y, r, c, s0, s1); }
void softmax_rows_f64(const double *x, double *y, long r, long c, long s0, long s1) { run(SOFTMAX, "float64", x, y, r, c, s0, s1); }
"""
ATTACKS = {
    # section 1 of the issue: plain torch, and as_strided hidden from the recorder
    "as_strided with the watching mode switched off": {
        GATHER: "    with torch._C.DisableTorchFunction():\n" + HONEST_GATHER.replace("    return", "        return")
    },
    # C kernels that call back into Python (the notebook's own build resolves the symbol in the process)
    "C kernels that run torch through the Python C API": {
        C_KERNELS: '    return r"""\nint PyRun_SimpleString(const char *);\n'
        'void silu_f32(const float *x, float *y, long n) { PyRun_SimpleString("pass"); }\n'
        'void silu_f64(const double *x, double *y, long n) { PyRun_SimpleString("pass"); }\n'
        'void softmax_rows_f32(const float *x, float *y, long r, long c, long a, long b) { PyRun_SimpleString("pass"); }\n'
        'void softmax_rows_f64(const double *x, double *y, long r, long c, long a, long b) { PyRun_SimpleString("pass"); }\n'
        '"""\n'
    },
    # C kernels with no exp and no arithmetic on their inputs: symbols of Python's C API declared weak pass the
    # link's -z defs unresolved, and the process that loads the library supplies them; they run torch on the pointers
    "C kernels that compute with torch through weak libpython symbols": {
        C_KERNELS: '    return r"""\n' + WEAK_PYTHON + '"""\n'
    },
    # an #include the text check did not see (a comment before it): cc read the worker's /etc/passwd, and its
    # errors quoted the file in the feedback
    HIDDEN_INCLUDE: {
        C_KERNELS: C_KERNELS.replace('    return r"""\n', '    return r"""\n/**/ #include "/etc/passwd"\n', 1)
    },
    # a Triton kernel whose body computes outside Triton (the interpreter runs its body as Python)
    "a Triton kernel that imports torch in its body": {
        _between(
            "    row = tl.program_id(0)\n", "    ### END SOLUTION"
        ): "    import torch\n    row = tl.program_id(0)\n    cols = tl.arange(0, BLOCK)\n"
        "    tl.store(y_ptr + row * y_row_stride + cols, tl.load(x_ptr + row * x_row_stride + cols * x_col_stride))\n"
    },
    "a Triton kernel that reads the interpreter's numpy arrays": {
        _between(
            "    row = tl.program_id(0)\n", "    ### END SOLUTION"
        ): "    row = tl.program_id(0)\n    data = x_ptr.handle.data\n"
    },
}


@pytest.fixture(scope="module")
def graded(tmp_path_factory):
    return grade_attacks(
        tmp_path_factory.mktemp("kernel-evidence"), ASSIGNMENT, {**PLAIN, GATHER: HONEST_GATHER}, ATTACKS
    )


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


def test_no_file_the_source_includes_reaches_the_feedback(graded):
    """cc -E's output shows the file the source entered: refused by name, never compiled, so no message quotes it."""
    r = graded[f"attack{list(ATTACKS).index(HIDDEN_INCLUDE)}"]
    kernel = guarded(r, KERNEL_TESTS[:2])
    assert kernel and all("includes passwd" in t.message for t in kernel if "public" in t.id), [
        t.message[:300] for t in kernel
    ]
    assert not [t.id for t in r.tests if PASSWD_LINE in (t.message or "")], [t.message[:300] for t in r.tests]
