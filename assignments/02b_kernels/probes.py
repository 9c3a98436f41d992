"""Probes for 02b_kernels: call the student's functions and return plain data (no verdicts).

Failures the contract asks for (`IndexError`, `TypeError`) come back as the exception's class
name, so the trusted side compares names.  Arguments arrive contiguous; `_layout` makes a tensor
non-contiguous here when a test asks for it.  Triton must see TRITON_INTERPRET before it is first
imported; the notebook's set-up cell sets it without CUDA, so this module never imports triton.
"""
from __future__ import annotations

import statistics
import time

import torch
from torch.overrides import TorchFunctionMode


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


def _plain(v):
    """Tuples/lists of ints as lists (a student may return either kind of sequence)."""
    return list(v) if type(v) in (list, tuple) else v


def warm_up():
    """Run by the grader's worker fork server once, before any worker exists: the first
    torch.compile in a process sets up dynamo and AOTAutograd (~1.4 s), which every worker would
    otherwise pay in the notebook's compile cell and again under `op_compiled` and `op_check`."""
    w = torch.randn(3, dtype=torch.float64, requires_grad=True)
    f = torch.compile(lambda t: (t.sin() * 2.0).sum(), backend="aot_eager", fullgraph=True)
    f(w).backward()


# ---------------------------------------------------------------- 1 strides

def contiguous_strides(ns, sizes):
    return _plain(ns["contiguous_strides"](tuple(sizes)))


def element_offset(ns, sizes, strides, offset, index):
    return _outcome(ns["element_offset"], tuple(sizes), tuple(strides), offset, tuple(index))


def view_meta(ns, kind, sizes, strides, offset, *args):
    """transpose_view / narrow_view: (sizes, strides, offset) as lists and an int."""
    out = ns[f"{kind}_view"](tuple(sizes), tuple(strides), offset, *args)
    if type(out) not in (list, tuple) or len(out) != 3:
        return out
    return [_plain(out[0]), _plain(out[1]), out[2]]


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


def c_op_error(ns, name, x):
    """The exception class name of ns[name](x) for an input the contract rejects (or 'none')."""
    out = _outcome(ns[name], x)
    return out.get("error", "none")


def build_and_call(ns, constant):
    """build_kernels compiles a source it has never seen: a function returning a + constant."""
    import ctypes

    lib = ns["build_kernels"](f"long add_constant(long a) {{ return a + {int(constant)}; }}\n")
    fn = lib.add_constant
    fn.restype, fn.argtypes = ctypes.c_long, [ctypes.c_long]
    return [fn(0), fn(1000)]


# ---------------------------------------------------------------- 3 custom op

def _op():
    return torch.ops.kernels.softmax


def op_apply(ns, x, v, layout="c"):
    """Forward and backward through torch.ops.kernels.softmax on a laid-out leaf copy of x."""
    xl = _layout(x, layout).detach().requires_grad_(True)
    y = _op()(xl)
    (g,) = torch.autograd.grad(y, xl, v)
    return {"y": y.detach(), "stride": list(y.stride()), "grad": g, "x_after": xl.detach().clone()}


def op_meta(ns, shape, dtype, layout="c"):
    """Output metadata of the op on a meta tensor (the fake implementation runs)."""
    x = _layout(torch.empty(tuple(shape), dtype=dtype, device="meta"), layout)
    y = _op()(x)
    return {"shape": list(y.shape), "dtype": y.dtype, "device": str(y.device), "stride": list(y.stride())}


def op_compiled(ns, x, v, layout="c"):
    """The op inside torch.compile (aot_eager: traces forward and backward, compiles no C++)."""
    torch._dynamo.reset()

    def f(t):
        return _op()(t * 2.0) * 3.0

    compiled = torch.compile(f, backend="aot_eager", fullgraph=True)
    xl = _layout(x, layout).detach().requires_grad_(True)
    y = compiled(xl)
    (g,) = torch.autograd.grad(y, xl, v)
    return {"y": y.detach(), "grad": g}


def op_check(ns, x, layout="c"):
    """torch.library.opcheck's verdict per check (a claim from the worker: tests pair it with values)."""
    xl = _layout(x, layout).detach().requires_grad_(x.dtype.is_floating_point)
    try:
        report = torch.library.opcheck(_op(), (xl,), raise_exception=False)
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


def triton_is_jit(ns):
    """Whether softmax_kernel is a Triton kernel (compiled, or interpreted without CUDA)."""
    k = ns["softmax_kernel"]
    return type(k).__module__.split(".")[0] == "triton" and hasattr(k, "__getitem__")


def cuda_kernel_apply(ns, x, device, layout="c"):
    """The function registered as kernels::softmax's CUDA implementation, called on `device` (without a
    GPU, on a CPU tensor: Triton's interpreter runs it there): whether one is registered, and what it computes."""
    from torch._library.custom_ops import OPDEFS

    opdef = OPDEFS.get("kernels::softmax")
    fn = (getattr(opdef, "_backend_fns", None) or {}).get("cuda") if opdef is not None else None
    if fn is None:
        return {"registered": False, "y": None}
    y = fn(_layout(x.to(device), layout))
    return {"registered": True, "y": y.cpu() if isinstance(y, torch.Tensor) else y}


def op_on_device(ns, x, device, layout="c"):
    """torch.ops.kernels.softmax on `device`: the dispatcher picks the C or the Triton kernel."""
    y = _op()(_layout(x.to(device), layout))
    return {"y": y.cpu(), "device": str(y.device)}


# ---------------------------------------------------------------- 5 measure

def time_sleeps(ns, sleeps, repeat):
    """time_op on a function whose k-th call sleeps sleeps[k] seconds; also how often it was called."""
    calls = [0]

    def fn(x):
        k = calls[0]
        calls[0] += 1
        time.sleep(sleeps[k] if k < len(sleeps) else sleeps[-1])
        return x

    t = ns["time_op"](fn, torch.zeros(3), repeat)
    return {"t": t, "calls": calls[0]}


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
