"""Probes for tf00_devices: call the student's TensorFlow code on chosen devices and report plain data.

No expected values and no verdicts here.  Devices arrive as strings; a returned tensor is reported by
`_info` (its type, the full name of the device it lives on, dtype, shape and values), so the trusted side
sees where each result was computed.  The grader splits the CPU into logical devices (manifest,
`[tensorflow] logical_cpus`), so "/device:CPU:1" exists without a GPU: a result that should be there and
is on "/device:CPU:0" shows a missing or hard-coded `tf.device`.

`_gpus(n)` makes `tf.config` list `n` pretend GPUs (physical and logical) beside the real devices, for
code that decides by what TensorFlow lists (`inventory`, `pick_device`); nothing is ever placed on them.

Where a result *lives* is not where it was *computed*: `tf.identity` on another device moves a finished
result.  `_watched` records, through TensorFlow's op callbacks, the device each computing op of the student's
call ran on (`ran_on`), which the tests compare with the reference's.
"""
from __future__ import annotations

import contextlib
from typing import Any

import numpy as np


def _tf():
    """TensorFlow, imported where a probe runs (the worker), never when the grader loads this module."""
    import tensorflow

    return tensorflow


def _info(t: Any) -> dict[str, Any]:
    """What a returned value looks like: tensors and variables by device, dtype, shape and values."""
    tf = _tf()
    if isinstance(t, tf.Variable):
        kind = "Variable"
    elif isinstance(t, tf.Tensor):
        kind = "Tensor"
    else:
        return {"type": type(t).__name__}
    return {"type": kind, "device": str(t.device), "dtype": t.dtype.name, "shape": list(t.shape),
            "value": np.asarray(t.numpy())}


# The ops that do the work of these exercises (products, reductions, activations); copies, reads and
# assignments are left out (a variable's ops run where the variable lives).
WORK_OPS = frozenset({"MatMul", "_MklMatMul", "BatchMatMul", "BatchMatMulV2", "BatchMatMulV3", "Einsum", "Sum",
                      "Mean", "Relu", "_MklRelu", "Sigmoid"})


def _short(device: str) -> str:
    return "/device:" + device.rsplit("device:", 1)[-1] if "device:" in device else (device or "(no device)")


def _watched(fn, *args) -> tuple[Any, list[str]]:
    """fn(*args), and the devices its work ops ran on (sorted, each once): an eager op's output device; for an
    op built into a graph (inside a tf.function), the device the graph asks for."""
    from tensorflow.python.framework import op_callbacks

    seen: set[str] = set()

    def callback(op_type, inputs, attrs, outputs, op_name=None, graph=None):
        if op_type in WORK_OPS:
            if graph is None:
                seen.update(_short(str(o.device)) for o in outputs)
            else:
                try:
                    seen.add(_short(graph.get_operation_by_name(op_name).device))
                except (KeyError, ValueError):
                    seen.add("(no device)")
        return None

    op_callbacks.add_op_callback(callback)
    try:
        out = fn(*args)
    finally:
        op_callbacks.remove_op_callback(callback)
    return out, sorted(seen)


def _list(xs: Any) -> Any:
    return [_info(x) for x in xs] if isinstance(xs, (list, tuple)) else {"type": type(xs).__name__}


@contextlib.contextmanager
def _gpus(n: int | None, split: int = 1):
    """tf.config lists `n` GPUs (physical; `split` logical GPUs each) and the real CPUs; None: TensorFlow's own
    answer."""
    tf = _tf()
    if n is None:
        yield
        return
    real_physical, real_logical = tf.config.list_physical_devices, tf.config.list_logical_devices

    def physical(device_type=None):
        cpus = [d for d in real_physical(device_type) if d.device_type != "GPU"]
        gpus = [tf.config.PhysicalDevice(f"/physical_device:GPU:{i}", "GPU") for i in range(n)]
        return cpus + (gpus if device_type in (None, "GPU") else [])

    def logical(device_type=None):
        cpus = [d for d in real_logical(device_type) if d.device_type != "GPU"]
        gpus = [tf.config.LogicalDevice(f"/device:GPU:{i}", "GPU") for i in range(n * split)]
        return cpus + (gpus if device_type in (None, "GPU") else [])

    modules = (tf.config, tf.config.experimental)
    old = [(m, name, getattr(m, name)) for m in modules for name in ("list_physical_devices", "list_logical_devices")]
    try:
        for m in modules:
            m.list_physical_devices, m.list_logical_devices = physical, logical
        yield
    finally:
        for m, name, value in old:
            setattr(m, name, value)


def _tensor(x: Any, device: str = "/device:CPU:0", dtype: str | None = None) -> Any:
    """An input (numpy array, list or torch tensor from the trusted side) as a tensor on `device`."""
    tf = _tf()
    x = x.numpy() if hasattr(x, "numpy") else np.asarray(x)
    with tf.device(device):
        return tf.constant(x, dtype=dtype)


# ---------------------------------------------------------------- inventory, pick_device

def inventory(ns, gpus=None, split=1):
    """inventory() with `gpus` pretend GPUs, each `split` logical GPUs (None: the machine's own devices)."""
    with _gpus(gpus, split):
        return ns["inventory"]()


def devices(ns, gpus=None):
    """What TensorFlow itself lists (for public checks, which have no reference)."""
    tf = _tf()
    with _gpus(gpus):
        return {"physical": [d.device_type for d in tf.config.list_physical_devices()],
                "logical": [d.name for d in tf.config.list_logical_devices()]}


def pick_device(ns, prefer=None, gpus=None, pass_prefer=True):
    """pick_device(prefer) (or pick_device() when not `pass_prefer`) with `gpus` pretend GPUs."""
    with _gpus(gpus):
        return ns["pick_device"](prefer) if pass_prefer else ns["pick_device"]()


# ---------------------------------------------------------------- placement

def device_of(ns, x, where, dtype=None, variable=False):
    """device_of on a tensor (or a variable) made on `where`; also TensorFlow's own full name of its device."""
    tf = _tf()
    t = _tensor(x, where, dtype)
    if variable:
        with tf.device(where):
            t = tf.Variable(t)
    return {"got": ns["device_of"](t), "full": str(t.device)}


def copy_to(ns, x, source, target, dtype=None):
    """copy_to(x, target) for x made on `source`: the copy, and where x is afterwards."""
    t = _tensor(x, source, dtype)
    out = ns["copy_to"](t, target)
    return {"out": _info(out), "input_device": str(t.device), "same_object": out is t}


# ---------------------------------------------------------------- data parallel

def parallel_sum(ns, x, devices, source="/device:CPU:0"):
    t = _tensor(x, source)
    out, ran_on = _watched(ns["parallel_sum"], t, list(devices))
    if not (isinstance(out, (tuple, list)) and len(out) == 2):
        return {"shape_of_result": type(out).__name__}
    return {"total": _info(out[0]), "partials": _list(out[1]), "ran_on": ran_on}


def parallel_matmul(ns, A, B, devices, source="/device:CPU:0"):
    a, b = _tensor(A, source), _tensor(B, source)
    out, ran_on = _watched(ns["parallel_matmul"], a, b, list(devices))
    if not (isinstance(out, (tuple, list)) and len(out) == 2):
        return {"shape_of_result": type(out).__name__}
    return {"C": _info(out[0]), "parts": _list(out[1]), "ran_on": ran_on}


# ---------------------------------------------------------------- the book's tasks

def make_linear(ns, device):
    out = ns["make_linear"](device)
    return _list(out)


def linreg_steps(ns, X, y, w0, b0, lr, device, steps=1, source="/device:CPU:0"):
    """`steps` calls of linreg_step from (w0, b0), variables made on `source`: each loss, and w and b after."""
    tf = _tf()
    with tf.device(source):
        w, b = tf.Variable(_tensor(w0)), tf.Variable(_tensor(b0))
    Xt, yt = _tensor(X), _tensor(y)
    losses, ran_on = _watched(lambda: [_info(ns["linreg_step"](w, b, Xt, yt, lr, device)) for _ in range(steps)])
    return {"losses": losses, "w": _info(w), "b": _info(b), "ran_on": ran_on}


def ring_forward(ns, params, X, device, source="/device:CPU:0", as_arrays=False):
    """ring_forward on parameters given as tensors on `source` (or numpy arrays) and X on `source`."""
    p = {k: (np.asarray(v.numpy() if hasattr(v, "numpy") else v, np.float32) if as_arrays else _tensor(v, source))
         for k, v in params.items()}
    Xt = _tensor(X, source)
    out, ran_on = _watched(ns["ring_forward"], p, Xt, device)
    return {**_info(out), "ran_on": ran_on}
