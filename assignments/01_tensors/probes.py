"""Probes for 01_tensors: call the notebook's functions and return plain data.

No expected values and no verdicts live here.  Some probes arrange their input first
(e.g. make it non-contiguous with a transpose or a step slice, or move it to a device),
because tensors always arrive contiguous and on the CPU; some report facts about the
result that a test cannot see once the data has crossed over (whether it shares memory
with the input, whether it is contiguous, on which device it lives); and `timed` gives the reference's
CPU time for a call whose cost the grader measures for the student from outside the worker.
"""
import time

import numpy as np
import torch


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


def broadcast_shape(ns, a, b):
    result = _raises(ns["broadcast_shape"], tuple(a), tuple(b))
    if "out" in result and isinstance(result["out"], list):
        result["out"] = tuple(result["out"])  # a list of ints is as good as a tuple
    return result


# ---------------------------------------------------------------- 10. vectorised
def pairwise_distances(ns, A, B, device="cpu"):
    return _placed(ns["pairwise_distances"](A.to(device), B.to(device)))


def nearest_neighbor(ns, A, B):
    return ns["nearest_neighbor"](A, B)


# ---------------------------------------------------------------- how much work a call does
def _made(arg):
    """`{"randint": [low, high, n, seed]}` stands for `torch.randint(low, high, (n,))` and `{"randn": [rows, cols,
    seed]}` for `torch.randn(rows, cols)`, from a generator seeded with `seed`, made here rather than sent: tens of
    megabytes cost the worker more CPU time to receive than a loop over them, and the grader as much to make,
    hash and send (the reference's worker makes the same tensor, and the answers are compared)."""
    if isinstance(arg, dict) and set(arg) == {"randint"}:
        low, high, n, seed = arg["randint"]
        return torch.randint(low, high, (n,), generator=torch.Generator().manual_seed(seed))
    if isinstance(arg, dict) and set(arg) == {"randn"}:
        rows, cols, seed = arg["randn"]
        return torch.randn(rows, cols, generator=torch.Generator().manual_seed(seed))
    return arg


def timed(ns, name, args):
    """One call of `ns[name](*args)`, and the CPU seconds it took measured here, in the worker.  Only the
    reference's is believed (the master's worker runs no student code): a student's cost is measured by the
    grader from outside the worker (`student.cost`), and what this probe reports for it is ignored."""
    fn = ns[name]
    args = [_made(a) for a in args]
    t0 = time.process_time()
    out = fn(*args)
    return {"out": out, "cpu": time.process_time() - t0}
