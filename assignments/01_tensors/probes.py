"""Probes for 01_tensors: call the notebook's functions and return plain data.

No expected values and no verdicts live here.  Some probes arrange their input first
(e.g. make it non-contiguous with a transpose or a step slice, or move it to a device),
because tensors always arrive contiguous and on the CPU; some report facts about the
result that a test cannot see once the data has crossed over (whether it shares memory
with the input, whether it is contiguous, on which device it lives); and `cost` measures
how much work a function does, to tell a vectorised answer from a Python loop.
"""
import sys

import numpy as np
import torch
from torch.overrides import TorchFunctionMode


def _arrange(x, layout):
    """Give `x` the requested memory layout (the values seen by the student are the same for every student)."""
    if layout == "contiguous":
        return x
    if layout == "transposed":  # swap the last two dims: the caller passes [..., b, a] to get a non-contiguous [..., a, b]
        return x.transpose(-2, -1)
    if layout == "strided":  # every other element of the last dim
        return x[..., ::2]
    raise ValueError(f"unknown layout {layout!r}")


def _shares(a, b):
    """Whether two tensors (or arrays) use the same memory block."""
    try:
        return a.untyped_storage().data_ptr() == b.untyped_storage().data_ptr()
    except Exception:  # noqa: BLE001 - not a tensor
        return None


def _raises(fn, *args):
    """{'out': result} or {'error': exception type name} when the student's code raises on purpose."""
    try:
        return {"out": fn(*args)}
    except Exception as exc:  # noqa: BLE001
        return {"error": type(exc).__name__}


# ---------------------------------------------------------------- 1. dtypes
def to_float32(ns, arr):
    return ns["to_float32"](arr)


def encode_labels(ns, labels):
    return ns["encode_labels"](list(labels))


def to_uint8_image(ns, img):
    return ns["to_uint8_image"](img)


# ---------------------------------------------------------------- 2. shapes
def describe(ns, t, layout="contiguous"):
    return ns["describe"](_arrange(t, layout))


def ensure_batch(ns, x):
    return _raises(ns["ensure_batch"], x)


# ---------------------------------------------------------------- 3. views
def flatten_rows(ns, x, layout="contiguous"):
    x = _arrange(x, layout)
    out = ns["flatten_rows"](x)
    return {"out": out, "shares_memory": _shares(out, x)}


def can_view(ns, x, layout, shape):
    return ns["can_view"](_arrange(x, layout), tuple(shape))


def swap_last_two(ns, x, layout="contiguous"):
    out = ns["swap_last_two"](_arrange(x, layout))
    return {"out": out, "contiguous": out.is_contiguous() if isinstance(out, torch.Tensor) else None}


# ---------------------------------------------------------------- 4. numpy bridge
def _snapshot(v):
    if isinstance(v, np.ndarray):
        return v.copy()
    if isinstance(v, torch.Tensor):
        return v.detach().clone()
    return v


def share_to_numpy(ns, t, requires_grad=False):
    """The array right after the call, and the same array after `t` was changed in place."""
    t.requires_grad_(requires_grad)
    arr = ns["share_to_numpy"](t)
    at_call = _snapshot(arr)
    with torch.no_grad():
        t.add_(1)
    return {"at_call": at_call, "after_change": arr}


def copy_to_numpy(ns, t, requires_grad=False):
    t.requires_grad_(requires_grad)
    arr = ns["copy_to_numpy"](t)
    at_call = _snapshot(arr)
    with torch.no_grad():
        t.add_(1)
    return {"at_call": at_call, "after_change": arr}


def share_from_numpy(ns, a):
    t = ns["share_from_numpy"](a)
    at_call = _snapshot(t)
    a += 1
    return {"at_call": at_call, "after_change": t}


def to_python(ns, t):
    return ns["to_python"](t)


# ---------------------------------------------------------------- 5. indexing
def get_batch(ns, X, Y, idx):
    return ns["get_batch"](X, Y, idx)


def crop_center(ns, img, size, layout="contiguous"):
    return ns["crop_center"](_arrange(img, layout), size)


def positive_values(ns, x, layout="contiguous"):
    return ns["positive_values"](_arrange(x, layout))


def fill_missing(ns, x, value):
    out = ns["fill_missing"](x, value)
    return {"out": out, "input_after": x}


# ---------------------------------------------------------------- 6. gather / scatter
def pick(ns, scores, labels, layout="contiguous"):
    return ns["pick"](_arrange(scores, layout), labels)


def _placed(out):
    """A result and its device; on "meta" (a stand-in GPU, with no values) its shape and dtype instead."""
    if not isinstance(out, torch.Tensor):
        return {"out": out, "device": None}
    shown = {"shape": list(out.shape), "dtype": out.dtype} if out.is_meta else out
    return {"out": shown, "device": str(out.device)}


def one_hot(ns, labels, num_classes, device="cpu"):
    return _placed(ns["one_hot"](labels.to(device), num_classes))


def scatter_sum(ns, values, index, n, device=None):
    """scatter_sum on the CPU (the result alone), or on `device` (the result and its device)."""
    if device is None:
        return ns["scatter_sum"](values, index, n)
    return _placed(ns["scatter_sum"](values.to(device), index.to(device), n))


# ---------------------------------------------------------------- 7. reshape ops
def to_channels_last(ns, x):
    return ns["to_channels_last"](x)


def add_bias_column(ns, X, layout="contiguous", device=None):
    """add_bias_column on the CPU (the result alone), or on `device` (the result and its device)."""
    if device is None:
        return ns["add_bias_column"](_arrange(X, layout))
    return _placed(ns["add_bias_column"](_arrange(X.to(device), layout)))


def split_xy(ns, data):
    return ns["split_xy"](data)


def stack_images(ns, images):
    return ns["stack_images"](list(images))


def squeeze_last(ns, pred):
    return ns["squeeze_last"](pred)


# ---------------------------------------------------------------- 8. reductions
def half_mse(ns, pred, target):
    return ns["half_mse"](pred, target)


def standardize(ns, X):
    return ns["standardize"](X)


def top_k_rows(ns, scores, k):
    return ns["top_k_rows"](scores, k)


def sort_by_column(ns, X, col):
    return ns["sort_by_column"](X, col)


# ---------------------------------------------------------------- 9. broadcasting, matmul, einsum
def linear(ns, X, w, b):
    return ns["linear"](X, w, b)


def bilinear(ns, x, W, y):
    return ns["bilinear"](x, W, y)


_BROADCASTERS = [(torch, "broadcast_shapes"), (torch, "broadcast_tensors"), (torch, "broadcast_to"),
                 (np, "broadcast_shapes"), (np, "broadcast"), (np, "broadcast_arrays"), (np, "broadcast_to")]


def broadcast_shape(ns, a, b):
    """The result, and how many torch operations or library broadcasting helpers the call used
    ("apply the rules yourself": a pure-Python answer uses none).  Names the notebook imported from
    torch or numpy (`from torch import broadcast_shapes`) are counted too."""
    used = [0]

    def counting(fn):
        def wrapper(*args, **kwargs):
            used[0] += 1
            return fn(*args, **kwargs)
        return wrapper

    originals = {(mod, name): getattr(mod, name) for mod, name in _BROADCASTERS if hasattr(mod, name)}
    by_id = {id(fn): counting(fn) for fn in originals.values()}
    imported = {k: by_id[id(v)] for k, v in list(ns.items()) if id(v) in by_id}
    saved = {k: ns[k] for k in imported}
    counter = _CountTorchCalls()
    try:
        for (mod, name), fn in originals.items():
            setattr(mod, name, by_id[id(fn)])
        ns.update(imported)
        with counter:
            result = _raises(ns["broadcast_shape"], tuple(a), tuple(b))
    finally:
        for (mod, name), fn in originals.items():
            setattr(mod, name, fn)
        ns.update(saved)
    result["library_calls"] = used[0] + counter.calls
    if "out" in result and isinstance(result["out"], list):
        result["out"] = tuple(result["out"])  # a list of ints is as good as a tuple
    return result


# ---------------------------------------------------------------- 10. vectorised
def pairwise_distances(ns, A, B, device="cpu"):
    return _placed(ns["pairwise_distances"](A.to(device), B.to(device)))


def nearest_neighbor(ns, A, B):
    return ns["nearest_neighbor"](A, B)


# ---------------------------------------------------------------- how much work a call does
class _CountTorchCalls(TorchFunctionMode):
    """Counts every torch function and Tensor method called (not the ones they call internally)."""

    def __init__(self):
        super().__init__()
        self.calls = 0

    def __torch_function__(self, func, types, args=(), kwargs=None):
        self.calls += 1
        return func(*args, **(kwargs or {}))


def _is_notebook_code(filename):
    # grading workers name cells "<cell N>"; Jupyter/IPython kernels use these
    return filename.startswith("<cell") or "ipykernel_" in filename or filename.startswith("<ipython-input")


def cost(ns, name, args):
    """The result, torch calls and executed notebook lines of one call of `ns[name](*args)`.

    A vectorised function runs the same number of operations and lines whatever the input size;
    a Python loop (or comprehension) over the rows runs more of both as the input grows.  The result
    comes back too: the counts are the student's to forge, so they earn points only with right values.
    """
    fn = ns[name]
    lines = [0]

    def local(frame, event, arg):
        if event == "line":
            lines[0] += 1
        return local

    def tracer(frame, event, arg):
        return local if _is_notebook_code(frame.f_code.co_filename) else None

    counter = _CountTorchCalls()
    old = sys.gettrace()
    sys.settrace(tracer)
    try:
        with counter:
            out = fn(*args)
    finally:
        sys.settrace(old)
    return {"out": out, "torch_calls": counter.calls, "python_lines": lines[0]}
