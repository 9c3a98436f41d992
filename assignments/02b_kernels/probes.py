"""Probes for 02b_kernels: call the student's functions and return plain data (no verdicts).

Failures the contract asks for (`IndexError`, `TypeError`) come back as the exception's class
name, so the trusted side compares names.  Arguments arrive contiguous; `_layout` makes a tensor
non-contiguous here when a test asks for it.  Triton must see TRITON_INTERPRET before it is first
imported; the notebook's set-up cell sets it without CUDA, so this module imports triton only in a
fresh worker (`triton_kernel_run`), after setting it.

Points for *how* (a C kernel, a Triton kernel) come from evidence no code of the notebook can reach:
`c_source` / `triton_source` hand the kernels' source text to the trusted side, which checks it
(`c_source_problem`, `triton_source_problem`: bounded, run in the judge, never in a worker) and has it
compiled and called by this module's own harness in a worker that never ran the notebook
(`student.fresh(c_kernels_run, ...)`, `student.fresh(triton_kernel_run, ...)`).  A C library's imports are read
from its ELF symbol table (`autograder.probe.elf`), and its kernels run in the kit's C harness (`HARNESS`), a
process without Python.
"""
from __future__ import annotations

import ast
import ctypes
import inspect
import linecache
import os
import re
import statistics
import subprocess
import tempfile
import time

import torch
from torch.overrides import TorchFunctionMode

SOURCE_CAP = 64_000  # characters of kernel source the trusted side reads (a probe's string is capped at 1 MiB)


def _layout(x: torch.Tensor, layout: str) -> torch.Tensor:
    """'c': as is; 't': last two dims transposed; 's': every other column; 'o': a narrowed view
    (storage offset 1 along the first dim, then every other column)."""
    if layout == "t":
        return x.transpose(-1, -2)
    if layout == "s":
        return x[..., ::2]
    if layout == "o":
        return x[1:, ::2]
    return x


class _Recorder(TorchFunctionMode):
    """Names of the torch functions / Tensor methods called while active."""

    def __init__(self) -> None:
        super().__init__()
        self.names: list[str] = []

    def __torch_function__(self, func, types, args=(), kwargs=None):
        self.names.append(str(getattr(func, "__name__", func)))
        return func(*args, **(kwargs or {}))


def _outcome(fn, *args):
    """{"value": result} or {"error": exception class name}: for contracts that require raising."""
    try:
        return {"value": fn(*args)}
    except Exception as e:  # noqa: BLE001 - the name is the data
        return {"error": type(e).__name__}


def warm_up():
    """Run by the grader's worker fork server once, before any worker exists: the first
    torch.compile in a process sets up dynamo and AOTAutograd (~1.4 s), which every worker would
    otherwise pay in the notebook's compile cell and again under `op_compiled` and `op_check`; then
    Triton's interpreter and the kit's C harness, which each fresh worker would set up or build again."""
    w = torch.randn(3, dtype=torch.float64, requires_grad=True)
    f = torch.compile(lambda t: (t.sin() * 2.0).sum(), backend="aot_eager", fullgraph=True)
    f(w).backward()
    if os.environ.get("TRITON_INTERPRET") == "1":  # no GPU (a launch on one would start CUDA here, which must not)
        _warm_triton_interpreter()
    _build_harness()


def _build_harness():
    """Build the kit's C harness once (`kit_programs`): each fresh worker that runs a student's kernels writes its
    bytes out instead of compiling it (0.06 s of CPU).  Without a compiler here, each builds it (and says why not)."""
    import shutil

    from autograder.probe import kit_programs

    folder = tempfile.mkdtemp(prefix="kit-harness-")
    try:
        kit_programs.build(HARNESS, HARNESS_BUILD, os.path.join(folder, "harness"))
    except OSError:
        pass
    finally:
        shutil.rmtree(folder, ignore_errors=True)


def _warm_triton_interpreter():
    """Launch a small softmax-like kernel in Triton's CPU interpreter, float32 and float64: the first launch in a
    process sets the interpreter up (0.05 s of CPU), which each worker that launches a kernel (the notebook's,
    the master's, each fresh `triton_kernel_run`) would otherwise pay.  Starts no thread."""
    import triton
    import triton.language as tl

    @triton.jit
    def warm(x_ptr, y_ptr, n, BLOCK: tl.constexpr):
        i = tl.arange(0, BLOCK)
        x = tl.load(x_ptr + i, mask=i < n, other=-float("inf"))
        e = tl.exp(x - tl.max(x, axis=0))
        tl.store(y_ptr + i, e / tl.sum(e, axis=0), mask=i < n)

    for dtype in (torch.float32, torch.float64):
        x = torch.randn(3, dtype=dtype)
        warm[(1,)](x, torch.empty_like(x), 3, BLOCK=4)


# ---------------------------------------------------------------- 1 strides

def contiguous_strides(ns, sizes):
    """The student's value as returned (a tuple of ints is asked for: the test checks the type)."""
    return ns["contiguous_strides"](tuple(sizes))


def element_offset(ns, sizes, strides, offset, index):
    return _outcome(ns["element_offset"], tuple(sizes), tuple(strides), offset, tuple(index))


def view_meta(ns, kind, sizes, strides, offset, *args):
    """transpose_view / narrow_view: (sizes, strides, offset) as returned (tuples and an int are asked for)."""
    return ns[f"{kind}_view"](tuple(sizes), tuple(strides), offset, *args)


def gather_view(ns, storage, sizes, strides, offset):
    rec = _Recorder()
    with rec:
        out = ns["gather_view"](storage, tuple(sizes), tuple(strides), offset)
    contiguous = out.is_contiguous() if isinstance(out, torch.Tensor) else None
    return {"out": out, "contiguous": contiguous, "calls": sorted(set(rec.names))}


# ---------------------------------------------------------------- 2 C kernel

def c_op(ns, name, x, layout="c"):
    """ns[name] (c_silu / c_softmax / triton_softmax) on a laid-out x: output, its layout, x afterwards."""
    xl = _layout(x, layout)
    y = ns[name](xl)
    return {"y": y, "contiguous": y.is_contiguous() if isinstance(y, torch.Tensor) else None,
            "x_after": xl.clone()}


def c_op_error(ns, name, x, device="cpu"):
    """The exception class name of ns[name](x) for an input the contract rejects (or 'none'); `device`
    'meta' stands for any device but the CPU (the C kernels read CPU memory only)."""
    out = _outcome(ns[name], x.to(device))
    return out.get("error", "none")


def build_and_call(ns, constant):
    """build_kernels compiles a source it has never seen: a function returning a + constant."""
    lib = ns["build_kernels"](f"long add_constant(long a) {{ return a + {int(constant)}; }}\n")
    fn = lib.add_constant
    fn.restype, fn.argtypes = ctypes.c_long, [ctypes.c_long]
    return [fn(0), fn(1000)]


def c_source(ns):
    """What the notebook's c_source() returns, as text (data: the trusted side checks it and has the kit
    compile it, `c_kernels_run`)."""
    source = ns["c_source"]()
    return source[:SOURCE_CAP + 1] if type(source) is str else None


_INCLUDE = re.compile(r"^[ \t]*(#|%:|\?\?=)[ \t]*include", re.M)


def c_source_problem(source):
    """Trusted side (a test calls it; never a worker): why the kit will not compile `source`, or ''."""
    if type(source) is not str:
        return "c_source() should return a string holding the C source of the kernels"
    if len(source) > SOURCE_CAP:
        return f"c_source() returns more than {SOURCE_CAP} characters"
    if _INCLUDE.search(source):
        return "c_source() returns a source with an #include: the kernels are written without any (declare expf and exp yourself)"
    return ""


def kit_build(student, cases):
    """Trusted side (a test calls it with its `student`): c_source()'s text checked here, then compiled and its
    kernels called on `cases` by `c_kernels_run` in a worker that never ran the notebook."""
    source = student(c_source)
    problem = c_source_problem(source)
    return {"error": problem} if problem else student.fresh(c_kernels_run, source, cases)


# The kit's own build: no header, no library but the math library (-lm), every symbol resolved there
# (-z defs): the kernels compute with their own loops and exp, and cannot call into Python or torch.  -z defs lets
# a symbol declared weak through unresolved, so what the built library imports is read from its ELF symbol table
# (`autograder.probe.elf.imports_problem`: every undefined symbol defined by libm, weak ones included), and its
# kernels run in the kit's own C harness (`HARNESS`), a process with no Python in it.
C_FLAGS = ["-O2", "-shared", "-fPIC", "-nostdinc", "-nostdlib", "-fno-stack-protector",
           "-fno-tree-loop-distribute-patterns", "-Wl,-z,defs"]
KERNELS = ("silu_f32", "silu_f64", "softmax_rows_f32", "softmax_rows_f64")
_C_SUFFIX = {torch.float32: "f32", torch.float64: "f64"}

# The process the kernels run in: C, no Python, no torch.  It loads the library (RTLD_LOCAL: nothing of it is
# offered to any other), looks the four kernels up, then allows itself only read, write, exit and memory
# (seccomp, filters stacked on the worker's): a kernel can compute and nothing else, whatever machine code it
# holds.  While the library loads (its constructors run), the filter allows what the loader needs (files, maps).
# Cases come on stdin, each a header of 9 longs: kernel (0 silu, 1 softmax), element size (4, 8), elements of
# input, offset of the first, elements of output, rows, cols, row stride, column stride; then the input.  For each
# case it writes the output, then the input as the kernel left it.
HARNESS = r"""
#include <dlfcn.h>
#include <stddef.h>
#include <unistd.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <linux/audit.h>
#include <linux/filter.h>
#include <linux/seccomp.h>
#if defined(__x86_64__)
#define ARCH AUDIT_ARCH_X86_64
#elif defined(__aarch64__)
#define ARCH AUDIT_ARCH_AARCH64
#else
#error "the kit's C harness knows x86-64 and arm64"
#endif

static int only(const long *calls, int n) {
    struct sock_filter f[64];
    int k = 0;
    f[k++] = (struct sock_filter)BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, arch));
    f[k++] = (struct sock_filter)BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, ARCH, 1, 0);
    f[k++] = (struct sock_filter)BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_KILL_PROCESS);
    f[k++] = (struct sock_filter)BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, nr));
    for (int i = 0; i < n; i++) {
        f[k++] = (struct sock_filter)BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, calls[i], 0, 1);
        f[k++] = (struct sock_filter)BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW);
    }
    f[k++] = (struct sock_filter)BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_KILL_PROCESS);
    struct sock_fprog prog = {(unsigned short)k, f};
    return prctl(PR_SET_SECCOMP, SECCOMP_MODE_FILTER, &prog);
}

static int full(int fd, char *p, long n, int out) {
    while (n > 0) {
        long k = out ? write(fd, p, n) : read(fd, p, n);
        if (k <= 0) return -1;
        p += k; n -= k;
    }
    return 0;
}

int main(int argc, char **argv) {
    static const long loading[] = {SYS_read, SYS_write, SYS_openat, SYS_close, SYS_fstat, SYS_newfstatat, SYS_lseek,
                                   SYS_pread64, SYS_mmap, SYS_mprotect, SYS_munmap, SYS_brk, SYS_getrandom, SYS_prctl,
                                   SYS_exit, SYS_exit_group, SYS_rt_sigreturn};
    static const long running[] = {SYS_read, SYS_write, SYS_mmap, SYS_munmap, SYS_exit, SYS_exit_group, SYS_rt_sigreturn};
    if (argc != 2 || prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) || only(loading, sizeof loading / sizeof *loading)) return 4;
    void *lib = dlopen(argv[1], RTLD_NOW | RTLD_LOCAL);
    if (!lib) return 2;
    static const char *names[4] = {"silu_f32", "silu_f64", "softmax_rows_f32", "softmax_rows_f64"};
    void *fn[4];
    for (int i = 0; i < 4; i++)
        if (!(fn[i] = dlsym(lib, names[i]))) return 3;
    if (only(running, sizeof running / sizeof *running)) return 4;
    long h[9];
    for (;;) {
        long got = read(0, (char *)h, sizeof h);
        if (got == 0) return 0;
        if (got != sizeof h && full(0, (char *)h + got, sizeof h - got, 0)) return 5;
        long size = h[1], in_bytes = h[2] * size, out_bytes = h[4] * size;
        char *in = mmap(0, in_bytes + 64, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
        char *out = mmap(0, out_bytes + 64, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
        if (in == MAP_FAILED || out == MAP_FAILED || full(0, in, in_bytes, 0)) return 5;
        char *x = in + h[3] * size;
        int f = (h[0] ? 2 : 0) + (size == 8);
        if (h[0])
            ((void (*)(const void *, void *, long, long, long, long))fn[f])(x, out, h[5], h[6], h[7], h[8]);
        else
            ((void (*)(const void *, void *, long))fn[f])(x, out, h[5]);
        if (full(1, out, out_bytes, 1) || full(1, in, in_bytes, 1)) return 5;
        munmap(in, in_bytes + 64);
        munmap(out, out_bytes + 64);
    }
}
"""
HARNESS_BUILD = ["cc", "-O1"]
_HARNESS_EXIT = {2: "the grader could not load the library", 3: "the library lacks one of " + ", ".join(KERNELS),
                 4: "the grader's harness could not start", 5: "the harness lost its data"}


def _case_bytes(kernel, x, layout):
    """The harness's header and input for one case, and how to read its answer: (payload, output elements,
    input elements, rebuild) where rebuild(out, after) gives the output and the kernel's view of its input."""
    xl = _layout(x, layout)
    if kernel == "silu":
        src_t = xl.contiguous().reshape(-1)
        storage, offset, rows, cols, strides = src_t, 0, src_t.numel(), 0, (0, 0)
    else:
        src_t = xl.reshape(-1, xl.shape[-1])
        n = src_t.untyped_storage().nbytes() // x.element_size()
        storage = torch.empty(0, dtype=x.dtype).set_(src_t.untyped_storage(), 0, (n,), (1,))
        offset, (rows, cols), strides = src_t.storage_offset(), src_t.shape, src_t.stride()
    header = torch.tensor([0 if kernel == "silu" else 1, x.element_size(), storage.numel(), offset, xl.numel(),
                           rows, cols, *strides], dtype=torch.int64)
    payload = header.numpy().tobytes() + storage.contiguous().numpy().tobytes()

    def rebuild(out, after):
        y = torch.frombuffer(bytearray(out), dtype=x.dtype).reshape(xl.shape) if xl.numel() else torch.empty(xl.shape, dtype=x.dtype)
        a = torch.frombuffer(bytearray(after), dtype=x.dtype) if storage.numel() else torch.empty(0, dtype=x.dtype)
        view = a.as_strided(src_t.shape, src_t.stride(), offset) if kernel != "silu" else a.reshape(xl.shape)
        return y, view.clone()

    return payload, xl.numel(), storage.numel(), rebuild


def _run_harness(harness, lib, payloads, expected, timeout=20.0):
    """The harness's stdout for `payloads` (at most `expected` bytes are read), or why it gave none."""
    import select
    import signal

    with tempfile.TemporaryFile() as stdin:
        stdin.write(b"".join(payloads))
        stdin.seek(0)
        proc = subprocess.Popen([harness, lib], stdin=stdin, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL)
    chunks, size, deadline = [], 0, time.monotonic() + timeout
    try:
        while size <= expected:
            left = deadline - time.monotonic()
            if left <= 0 or not select.select([proc.stdout], [], [], left)[0]:
                proc.kill()
                proc.wait()
                return None, f"the kernels gave no answer within {timeout:g} s"
            chunk = os.read(proc.stdout.fileno(), 1 << 20)
            if not chunk:
                break
            chunks.append(chunk)
            size += len(chunk)
    finally:
        proc.stdout.close()
    if size > expected:
        proc.kill()
    status = proc.wait()
    if status < 0:
        why = ("a system call (a kernel only computes)" if -status == signal.SIGSYS
               else f"signal {signal.Signals(-status).name}")
        return None, f"the kernels were stopped by {why}"
    if status:
        return None, _HARNESS_EXIT.get(status, f"the harness ended with status {status}")
    if size != expected:
        return None, "the kernels' output is not the size of their outputs"
    return b"".join(chunks), ""


def _native_libraries(compiler="cc"):
    """The libraries a kernel library may need: libm (and the C library libm itself needs), by file name."""
    return {name: subprocess.run([compiler, f"-print-file-name={name}"], capture_output=True, text=True,
                                 timeout=30).stdout.strip() for name in ("libm.so.6",)}


def c_kernels_run(ns, source, cases):
    """Run in a fresh worker only (`student.fresh`), which loads nothing of the student's: compile `source` with
    C_FLAGS, check what the library imports (`elf.imports_problem`: libm only) and that it defines the four
    kernels, then call them in the kit's own C harness (`HARNESS`, a process without Python).  cases: (kernel, x,
    layout), kernel 'silu' (on a contiguous copy: the kernel reads contiguous memory) or 'softmax' (on the
    [rows, cols] view of the laid-out x, with its strides).  {"error": why it could not be built or run} or
    {"y": outputs, "x_after": inputs}."""
    from autograder.probe import elf, kit_programs, preprocessed

    folder = tempfile.mkdtemp(prefix="kit-kernels-")
    src, lib = os.path.join(folder, "kernels.c"), os.path.join(folder, "kernels.so")
    with open(src, "w") as f:
        f.write(source)
    # what the preprocessor makes of it: no file entered (the text check cannot see an #include a comment or a
    # macro hides, and the compiler's errors would quote the file), no #line, #pragma or asm
    done = subprocess.run(["cc", *C_FLAGS, "-E", "-o", src + ".i", src], capture_output=True, text=True, timeout=60)
    if done.returncode != 0:
        return {"error": "cc could not preprocess the source: " + preprocessed.own_diagnostics(done.stderr, src, "c_source()")}
    with open(src + ".i", encoding="utf-8", errors="replace") as f:
        problem, _ = preprocessed.own_lines(f.read(), src, lambda path: False, "c_source()")
    if problem:
        return {"error": problem}
    done = subprocess.run(["cc", *C_FLAGS, "-o", lib, src, "-lm"], capture_output=True, text=True, timeout=60)
    if done.returncode != 0:
        return {"error": f"cc {' '.join(C_FLAGS)} failed: {done.stderr[-1200:]}"}
    with open(lib, "rb") as f:
        data = f.read()
    problem = elf.imports_problem(data, _native_libraries(), "the library built from c_source()")
    if problem:
        return {"error": problem}
    missing = [k for k in KERNELS if k not in elf.read_dynamic(data).defined]
    if missing:
        return {"error": f"the library has no function {missing[0]}"}
    harness = os.path.join(folder, "harness")
    kit_programs.build(HARNESS, HARNESS_BUILD, harness)  # an OSError if it does not: the grader's fault
    prepared = [_case_bytes(*case) for case in cases]
    sizes = [(n_out * case[1].element_size(), n_in * case[1].element_size())
             for case, (_, n_out, n_in, _) in zip(cases, prepared)]
    out, why = _run_harness(harness, lib, [p[0] for p in prepared], sum(a + b for a, b in sizes))
    if out is None:
        return {"error": why}
    ys, afters, at = [], [], 0
    for (_, _, _, rebuild), (n_out, n_in) in zip(prepared, sizes):
        y, after = rebuild(out[at:at + n_out], out[at + n_out:at + n_out + n_in])
        at += n_out + n_in
        ys.append(y)
        afters.append(after)
    return {"y": ys, "x_after": afters}


# ---------------------------------------------------------------- 3 custom op

_OP = "kernels::softmax"


def _op(ns):
    """torch.ops.kernels.softmax, which the notebook's define_softmax_op() registers.  The provided cell that
    calls it leaves `softmax` None while define_softmax_op is still the release's stub: not answered yet.  With no
    such operator and no define_softmax_op (its cell raised before the def, or was deleted), the notebook does not
    define it (a MissingAnswer, as for any name no cell defined): 0 on every input, so no variant's proof is owed."""
    if ns.get("define_softmax_op") is not None and ns.get("softmax") is None:
        raise NotImplementedError("define_softmax_op")
    if not torch._C._dispatch_has_kernel(_OP):
        ns["define_softmax_op"]  # raises MissingAnswer when no cell defined it
    return torch.ops.kernels.softmax


def op_apply(ns, x, v, layout="c"):
    """Forward and backward through torch.ops.kernels.softmax on a laid-out leaf copy of x."""
    xl = _layout(x, layout).detach().requires_grad_(True)
    y = _op(ns)(xl)
    (g,) = torch.autograd.grad(y, xl, v)
    return {"y": y.detach(), "stride": list(y.stride()), "grad": g, "x_after": xl.detach().clone()}


def op_backward_calls(ns, x, v):
    """The torch functions called while the op's gradient is computed (the forward runs before): a fact from
    inside the worker, for advice only."""
    xl = x.detach().requires_grad_(True)
    node = _op(ns)(xl).grad_fn
    rec = _Recorder()
    with rec:  # the node's backward called directly: a mode sees nothing inside a call it intercepted
        node.apply(v)
    return sorted(set(rec.names))


def op_meta(ns, shape, dtype, layout="c"):
    """Output metadata of the op on a meta tensor (the fake implementation runs)."""
    x = _layout(torch.empty(tuple(shape), dtype=dtype, device="meta"), layout)
    y = _op(ns)(x)
    return {"shape": list(y.shape), "dtype": y.dtype, "device": str(y.device), "stride": list(y.stride())}


def op_compiled(ns, x, v, layout="c"):
    """The op inside torch.compile (aot_eager: traces forward and backward, compiles no C++)."""
    torch._dynamo.reset()
    op = _op(ns)

    def f(t):
        return op(t * 2.0) * 3.0

    compiled = torch.compile(f, backend="aot_eager", fullgraph=True)
    xl = _layout(x, layout).detach().requires_grad_(True)
    y = compiled(xl)
    (g,) = torch.autograd.grad(y, xl, v)
    return {"y": y.detach(), "grad": g}


def op_check(ns, x, layout="c"):
    """torch.library.opcheck's verdict per check (a claim from the worker: tests pair it with values)."""
    xl = _layout(x, layout).detach().requires_grad_(x.dtype.is_floating_point)
    op = _op(ns)
    try:
        report = torch.library.opcheck(op, (xl,), raise_exception=False)
    except Exception as e:  # noqa: BLE001 - the op is not registered, or opcheck itself failed
        return {"error": f"{type(e).__name__}: {e}"[:300]}
    return {k: str(v)[:300] for k, v in report.items()}


# ---------------------------------------------------------------- 4 triton

def triton_apply(ns, x, device, layout="c"):
    xl = _layout(x.to(device), layout)
    before = xl.clone()
    y = ns["triton_softmax"](xl)
    ok = isinstance(y, torch.Tensor)
    return {"y": y.cpu() if ok else y, "device": str(y.device) if ok else None,
            "contiguous": y.is_contiguous() if ok else None, "x_unchanged": bool(torch.equal(xl, before))}


_STUB = re.compile(r"^[ \t]*raise NotImplementedError\b", re.M)  # a kernel never raises (triton_source_problem refuses `raise`)


def triton_source(ns):
    """softmax_kernel's source text (data: the trusted side checks it and has the kit launch it,
    `triton_kernel_run`); None when softmax_kernel is not a Triton kernel."""
    k = ns["softmax_kernel"]
    if type(k).__module__.split(".")[0] != "triton" or not inspect.isfunction(getattr(k, "fn", None)):
        return None
    try:
        source = inspect.getsource(k.fn)[:SOURCE_CAP + 1]
    except (OSError, TypeError):
        return None
    if _STUB.search(source):  # the release's stub under the given decorator: not answered yet
        raise NotImplementedError("softmax_kernel")
    return source


# What a kernel may name besides its parameters and locals: Triton's language, two launch helpers and
# a few builtins (the fresh worker gives it no others).  Attributes of its own values: these only (the
# interpreter's `.handle` would hand it numpy arrays, computing outside Triton).
_TRITON_GLOBALS = {"tl", "triton", "float", "int", "range", "min", "max", "abs"}
_VALUE_ATTRS = {"to", "dtype", "shape", "T", "reshape", "broadcast_to", "trans", "cast"}
_TRITON_BUILTINS = {"float": float, "int": int, "range": range, "min": min, "max": max, "abs": abs}
_STATEMENTS = (ast.Assign, ast.AugAssign, ast.AnnAssign, ast.Expr, ast.Return, ast.If, ast.For, ast.While,
               ast.Pass, ast.Break, ast.Continue, ast.Assert)


def triton_source_problem(source):
    """Trusted side (a test calls it; never a worker): why the kit will not launch `source` as the
    Triton softmax kernel, or ''.  One function, softmax_kernel, decorated @triton.jit, whose body is
    plain statements over Triton's language: nothing else runs when the kit executes the text."""
    if type(source) is not str:
        return "softmax_kernel should be a @triton.jit kernel (its source could not be read)"
    if len(source) > SOURCE_CAP:
        return f"softmax_kernel's source is longer than {SOURCE_CAP} characters"
    try:
        tree = ast.parse(source)
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return "softmax_kernel's source could not be read on its own"
    if len(tree.body) != 1 or not isinstance(tree.body[0], ast.FunctionDef) or tree.body[0].name != "softmax_kernel":
        return "softmax_kernel's source should be one function, softmax_kernel"
    fn = tree.body[0]
    if [ast.dump(d) for d in fn.decorator_list] != [ast.dump(ast.parse("triton.jit", mode="eval").body)]:
        return "softmax_kernel should be decorated with @triton.jit (and nothing else)"
    params = {a.arg for a in fn.args.args + fn.args.kwonlyargs}
    stored = {n.id for n in ast.walk(fn) if isinstance(n, ast.Name) and not isinstance(n.ctx, ast.Load)}
    for node in ast.walk(fn):
        if isinstance(node, ast.stmt) and node is not fn and not isinstance(node, _STATEMENTS):
            return f"softmax_kernel's body has a statement a kernel cannot have ({type(node).__name__})"
        if isinstance(node, ast.Name) and node.id not in params | stored | _TRITON_GLOBALS:
            return f"softmax_kernel uses the name {node.id!r}: a kernel computes with tl.* and its arguments only"
        if isinstance(node, ast.Attribute):
            root = node
            while isinstance(root, ast.Attribute):
                root = root.value
            if isinstance(root, ast.Name) and root.id not in params | stored | _TRITON_GLOBALS:
                return f"softmax_kernel uses the name {root.id!r}: a kernel computes with tl.* and its arguments only"
            ok = (isinstance(root, ast.Name) and root.id in ("tl", "triton")) or node.attr in _VALUE_ATTRS
            if node.attr.startswith("_") or not ok:
                return f"softmax_kernel uses .{node.attr}: a kernel computes with tl.* and its arguments only"
    return ""


def kit_launch(student, cases, device):
    """Trusted side (a test calls it with its `student`): softmax_kernel's source checked here, then
    launched on `cases` by `triton_kernel_run` in a worker that never ran the notebook."""
    source = student(triton_source)
    problem = triton_source_problem(source)
    return {"error": problem} if problem else student.fresh(triton_kernel_run, source, cases, device)


def triton_kernel_run(ns, source, cases, device):
    """Run in a fresh worker only (`student.fresh`), on a source `triton_source_problem` accepted: execute
    it with Triton's language as its only globals, and launch it with this module's own launcher, one
    program per row of each case's [rows, cols] view (its strides passed), BLOCK the next power of two.
    Without CUDA, Triton's CPU interpreter runs it (TRITON_INTERPRET is set before triton is imported)."""
    if device != "cuda":
        os.environ["TRITON_INTERPRET"] = "1"
    import triton
    import triton.language as tl

    name = "<softmax_kernel>"
    linecache.cache[name] = (len(source), None, source.splitlines(True), name)  # Triton reads the text back
    scope = {"triton": triton, "tl": tl, "__builtins__": dict(_TRITON_BUILTINS)}
    exec(compile(source, name, "exec"), scope)
    kernel = scope["softmax_kernel"]
    ys = []
    for x, layout in cases:
        xl = _layout(x.to(device), layout)
        x2 = xl.reshape(-1, xl.shape[-1])
        rows, cols = x2.shape
        y = torch.empty((rows, cols), dtype=x.dtype, device=device)
        kernel[(rows,)](x2, y, cols, x2.stride(0), x2.stride(1), y.stride(0), BLOCK=triton.next_power_of_2(cols))
        ys.append(y.reshape(xl.shape).cpu())
    return {"y": ys}


class _NoLaunch:
    """Stands in for softmax_kernel: `softmax_kernel[grid](...)` runs nothing (Triton cannot run on a meta
    tensor; the launcher's own work, where it puts its output, is what is looked at)."""

    def __getitem__(self, grid):
        return lambda *args, **kwargs: None


def _on_meta(ns, fn, shape):
    """fn on a meta tensor (a device that is not the CPU, as a GPU's tensors are not), with softmax_kernel
    standing in: the output's device, or the exception's class name."""
    # where the launcher looks the kernel up: the notebook's globals (a self-check hands probes a copy)
    scope = getattr(ns.get("triton_softmax"), "__globals__", None)
    scope = scope if isinstance(scope, dict) and "softmax_kernel" in scope else ns
    kernel = scope["softmax_kernel"]
    scope["softmax_kernel"] = _NoLaunch()
    try:
        y = fn(torch.empty(tuple(shape), device="meta"))
    except Exception as e:  # noqa: BLE001 - the name is the data
        return {"error": type(e).__name__}
    finally:
        scope["softmax_kernel"] = kernel
    return {"device": str(y.device) if isinstance(y, torch.Tensor) else None}


def triton_launch_on_meta(ns, shape):
    """triton_softmax on a meta tensor: where it allocates its output."""
    return _on_meta(ns, ns["triton_softmax"], shape)


def cuda_kernel_apply(ns, x, device, layout="c"):
    """kernels::softmax's CUDA kernel, as the dispatcher has it (however it was registered: custom_op's
    register_kernel, torch.library.impl / register_kernel, Library.impl): whether there is one, what it
    computes on `device` (without a GPU, on a CPU tensor through Triton's interpreter: called through
    the dispatcher's CUDA key), and what it does with a meta tensor (the C kernel refuses one)."""
    op = _op(ns).default
    if not torch._C._dispatch_has_kernel_for_dispatch_key(_OP, "CUDA"):
        return {"registered": False, "y": None, "meta": None}
    cuda_key = torch._C.DispatchKeySet(torch._C.DispatchKey.CUDA)
    if device == "cuda":
        y = op(_layout(x.to(device), layout))
    else:
        y = op.redispatch(cuda_key, _layout(x, layout))
    meta = _on_meta(ns, lambda t: op.redispatch(cuda_key, t), list(x.shape))
    return {"registered": True, "y": y.cpu() if isinstance(y, torch.Tensor) else y, "meta": meta}


def op_on_device(ns, x, device, layout="c"):
    """torch.ops.kernels.softmax on `device`: the dispatcher picks the C or the Triton kernel."""
    y = _op(ns)(_layout(x.to(device), layout))
    return {"y": y.cpu(), "device": str(y.device)}


# ---------------------------------------------------------------- 5 measure

def time_sleeps(ns, sleeps, repeat):
    """time_op on a function whose k-th call takes sleeps[k] seconds of a fake clock (`FakeClock`: every clock of
    the time module, also where the notebook imported one by name), so the answer is exact whatever the machine's
    load (a real sleep overshoots on a loaded grader); also how often it was called."""
    from autograder.probe.fake_clock import FakeClock

    calls = [0]
    with FakeClock(ns) as clock:
        def fn(x):
            k = calls[0]
            calls[0] += 1
            clock.advance(sleeps[k] if k < len(sleeps) else sleeps[-1])
            return x

        t = ns["time_op"](fn, torch.zeros(3), repeat)
    return {"t": t, "calls": calls[0]}


class _CudaLike(torch.Tensor):
    """A CPU tensor that says it is on CUDA, for time_op without a GPU: it must then synchronise."""

    @property
    def is_cuda(self):
        return True

    @property
    def device(self):
        return torch.device("cuda", 0)


def time_synchronised(ns, device, repeat):
    """The order of time_op's calls of fn and of torch.cuda.synchronize on an input on CUDA: a real one on
    `device` 'cuda', else a tensor that says it is on CUDA, with CUDA said to be available and synchronize
    recorded (nothing runs asynchronously on the CPU, so only the order can show a missing one)."""
    events: list[str] = []
    real_sync, real_available = torch.cuda.synchronize, torch.cuda.is_available

    def sync(*args, **kwargs):
        events.append("sync")
        if device == "cuda":
            real_sync(*args, **kwargs)

    def fn(x):
        events.append("call")
        return x

    x = torch.zeros(4, device="cuda") if device == "cuda" else torch.zeros(4).as_subclass(_CudaLike)
    torch.cuda.synchronize = sync
    torch.cuda.is_available = lambda: True
    try:
        t = ns["time_op"](fn, x, repeat)
    finally:
        torch.cuda.synchronize, torch.cuda.is_available = real_sync, real_available
    return {"events": events, "t": t if type(t) is float else None}


def kernel_speed(ns, x, repeat=5):
    """Median seconds of the student's c_softmax and of torch.softmax on x, timed here (not by student
    code), and c_softmax's output, so a fast wrong kernel gains nothing."""
    def median(fn):
        fn(x)
        times = []
        for _ in range(repeat):
            start = time.perf_counter()
            fn(x)
            times.append(time.perf_counter() - start)
        return statistics.median(times)

    return {"c": median(ns["c_softmax"]), "torch": median(lambda t: torch.softmax(t, -1)), "y": ns["c_softmax"](x)}
