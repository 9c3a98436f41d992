"""Probes for 00_devices: call the student's code on a chosen device and report plain data.

No expected values and no verdicts here.  Device names arrive as strings ("cpu", "cuda",
"meta"); the probe moves data there.  The "meta" device holds shapes and dtypes but no
values: it lets the tests see whether code keeps the device of its inputs on a machine
without a GPU.  Tensors on "meta" are reported by device/dtype/shape only (their values
do not exist and cannot be sent back).

Some probes run the student's code under `_CudaCalls`, a `MetaAccelerator` that counts
hard-coded `.cuda()` calls (tensor or module; without CUDA a no-op), and makes "meta" behave
like a GPU for code that copies results back or calls `.item()` (see autograder/probe/meta_device.py);
on "meta" it also reports CUDA as available, "meta" standing for a second GPU (`cuda:1`), so `.cuda()`
in place of `.to(device)` shows in where the tensors end up.  The count of `.cuda()` calls is advice
only: it is gathered inside the student's process.
"""
from __future__ import annotations

import contextlib
import time
import timeit
from typing import Any

import torch
from torch import nn
from torch.utils.data import DataLoader, TensorDataset

from autograder.probe.meta_device import MetaAccelerator

_MATMUL_NAMES = {"matmul", "mm", "__matmul__", "__rmatmul__", "einsum", "addmm", "bmm", "linear"}


# ---------------------------------------------------------------- helpers

class _CudaCalls(MetaAccelerator):
    """MetaAccelerator (counts `.cuda()`, lets "meta" stand in for a GPU) that also records
    matmul-like calls (name, shapes, devices, dtypes).  Given a `device` of type "meta", it stands for a
    second GPU (`cuda:1`): torch.cuda.is_available() answers True, so code that calls `.cuda()` instead
    of `.to(device)` puts its tensors on the first GPU (without one: leaves them where they were), not on
    the target device, and the trusted side sees where they are."""

    def __init__(self, device: Any = None) -> None:
        super().__init__()
        self.matmuls: list[dict[str, Any]] = []
        self._second_gpu = _fake_cuda(True) if device is not None and torch.device(device).type == "meta" else None

    def __enter__(self):
        if self._second_gpu is not None:
            self._second_gpu.__enter__()
        return super().__enter__()

    def __exit__(self, *exc):
        try:
            return super().__exit__(*exc)
        finally:
            if self._second_gpu is not None:
                self._second_gpu.__exit__(*exc)

    def __torch_function__(self, func, types, args=(), kwargs=None):
        if getattr(func, "__name__", "") in _MATMUL_NAMES:
            ts = [a for a in args if isinstance(a, torch.Tensor)]
            self.matmuls.append({
                "name": func.__name__,
                "shapes": [list(t.shape) for t in ts],
                "devices": [str(t.device) for t in ts],
                "dtypes": [t.dtype for t in ts],
            })
        return super().__torch_function__(func, types, args, kwargs)


@contextlib.contextmanager
def _patched(obj: Any, **attrs: Any):
    old = {k: getattr(obj, k) for k in attrs}
    try:
        for k, v in attrs.items():
            setattr(obj, k, v)
        yield
    finally:
        for k, v in old.items():
            setattr(obj, k, v)


@contextlib.contextmanager
def _patched_items(d: dict, items: dict):
    old = {k: d[k] for k in items}
    try:
        d.update(items)
        yield
    finally:
        d.update(old)


def _hashable(x: Any) -> bool:
    try:
        hash(x)
    except Exception:  # noqa: BLE001 - a student object may raise anything from __hash__
        return False
    return True


def _fake_cuda(available: bool):
    return _patched(torch.cuda, is_available=lambda: available, device_count=lambda: 1 if available else 0)


def _info(t: Any) -> dict[str, Any]:
    """What a returned tensor looks like (values only where they exist)."""
    if not isinstance(t, torch.Tensor):
        return {"type": type(t).__name__}
    return {
        "type": "Tensor",
        "device": str(t.device),
        "dtype": t.dtype,
        "shape": list(t.shape),
        "requires_grad": bool(t.requires_grad),
        "value": None if t.is_meta else t.detach(),
    }


def _devices(module: nn.Module) -> list[str]:
    return sorted({str(t.device) for t in [*module.parameters(), *module.buffers()]})


def _describe(x: Any) -> Any:
    """A mirror of a (nested) batch: containers by type name, tensors by _info, modules by devices."""
    if isinstance(x, torch.Tensor):
        return {"kind": "tensor", **_info(x)}
    if isinstance(x, nn.Module):
        return {"kind": "module", "devices": _devices(x)}
    if isinstance(x, dict):
        return {"kind": type(x).__name__, "items": {k: _describe(v) for k, v in x.items()}}
    if isinstance(x, (list, tuple)):
        return {"kind": type(x).__name__, "items": [_describe(v) for v in x]}
    plain = x if type(x) in (int, float, str, bool, type(None)) else None
    return {"kind": type(x).__name__, "value": plain}


# ---------------------------------------------------------------- pick_device

def pick_device(ns, prefer=None, cuda_available=None, pass_prefer=True):
    """pick_device(prefer) with torch.cuda.is_available() forced to `cuda_available` (None: the real one)."""
    fn = ns["pick_device"]
    ctx = contextlib.nullcontext() if cuda_available is None else _fake_cuda(bool(cuda_available))
    with ctx:
        return fn(prefer) if pass_prefer else fn()


# ---------------------------------------------------------------- to_device

def to_device(ns, batch, device):
    """to_device(batch, device) on a nested batch; returns a mirror of the result."""
    fn = ns["to_device"]
    with _CudaCalls(device) as calls:
        out = fn(batch, device)
    return {"out": _describe(out), "cuda_calls": calls.cuda_calls}


def to_device_module(ns, device, in_features=3):
    """to_device on a small model with parameters and buffers (BatchNorm), alone and inside a dict."""
    fn = ns["to_device"]
    model = nn.Sequential(nn.Linear(in_features, 4), nn.BatchNorm1d(4))
    with _CudaCalls(device) as calls:
        alone = fn(model, device)
        other = nn.Linear(in_features, 2)
        nested = fn({"model": other, "x": torch.ones(2, in_features)}, device)
    return {"alone": _describe(alone), "nested": _describe(nested), "cuda_calls": calls.cuda_calls}


# ---------------------------------------------------------------- add_bias_column

def add_bias_column(ns, X, device, dtype=None, transpose=False):
    """add_bias_column on X moved to `device` (and cast to `dtype`); `transpose` makes it non-contiguous."""
    X = X.to(device=device, dtype=dtype or X.dtype)
    if transpose:
        X = X.transpose(-1, -2)
    with _CudaCalls(device) as calls:
        out = ns["add_bias_column"](X)
    return {**_info(out), "cuda_calls": calls.cuda_calls}


# ---------------------------------------------------------------- predict

def _predict_net(in_features: int) -> nn.Module:
    return nn.Sequential(nn.Linear(in_features, 16), nn.ReLU(), nn.Dropout(0.5), nn.Linear(16, 1))


def predict(ns, state, X, y, batch_size, device, as_loader=True):
    """predict(model, batches, device) on a DataLoader (or a list) of (X, y) batches."""
    model = _predict_net(X.shape[1])
    model.load_state_dict(state)
    model.train()
    if as_loader:
        batches = DataLoader(TensorDataset(X, y), batch_size=batch_size, shuffle=False)
    else:
        batches = [(X[i:i + batch_size], y[i:i + batch_size]) for i in range(0, len(X), batch_size)]
    with _CudaCalls(device) as calls:
        out = ns["predict"](model, batches, device)
    return {**_info(out), "training": model.training, "param_devices": _devices(model), "cuda_calls": calls.cuda_calls}


# ---------------------------------------------------------------- timing

def time_it_trace(ns, device, repeats, step):
    """time_it(fn, device, repeats) with a fake clock: `fn` advances it by `step` seconds (10 times that the
    first time), so only a time_it that warms up, averages the timed calls and (on CUDA) synchronises
    returns `step`.

    Returns the result and the order of events: "fn" (a call of fn), "clock" (a clock read),
    "sync" (torch.cuda.synchronize).  torch.cuda.is_available() answers as if `device` were there.  On
    "cuda" the fake device is asynchronous, as a GPU is: fn's work reaches the clock only when
    torch.cuda.synchronize() waits for it, so a time_it that reads the clock without synchronising returns
    a wrong number, which the trusted side sees.
    """
    events: list[str] = []
    clock = [1000.0]
    queued = [0.0]  # work launched on the fake GPU and not yet waited for
    on_cuda = torch.device(device).type == "cuda"

    def fn():
        cost = step if "fn" in events else 10 * step  # the first call is slow (a cold start): the warm-up's job
        events.append("fn")
        if on_cuda:
            queued[0] += cost
        else:
            clock[0] += cost

    def read():
        events.append("clock")
        return clock[0]

    def read_ns():
        events.append("clock")
        return int(round(clock[0] * 1e9))

    def sync(*args, **kwargs):
        events.append("sync")
        if not on_cuda:  # as on a machine without CUDA
            raise RuntimeError("torch.cuda.synchronize() on a machine without CUDA: Torch not compiled with CUDA enabled")
        clock[0] += queued[0]
        queued[0] = 0.0

    fakes = {time.perf_counter: read, time.time: read, time.monotonic: read, timeit.default_timer: read,
             time.perf_counter_ns: read_ns, time.time_ns: read_ns, time.monotonic_ns: read_ns}
    # `from time import perf_counter` binds the real clock in the notebook: swap those names too
    imported = {name: fakes[value] for name, value in list(ns.items()) if _hashable(value) and value in fakes}
    with _patched(time, perf_counter=read, time=read, monotonic=read,
                  perf_counter_ns=read_ns, time_ns=read_ns, monotonic_ns=read_ns), \
            _patched(timeit, default_timer=read), _patched_items(ns, imported), \
            _patched(torch.cuda, synchronize=sync), _fake_cuda(on_cuda):
        if repeats is None:
            result = ns["time_it"](fn, device)
        else:
            result = ns["time_it"](fn, device, repeats)
    return {"result": result, "events": events}


def time_matmul(ns, n, device, repeats=None):
    """time_matmul(n, device[, repeats]) with its matmuls and synchronisations recorded."""
    syncs: list[int] = []
    real_sync = torch.cuda.synchronize

    def sync(*args, **kwargs):
        syncs.append(1)
        if torch.cuda.is_available():
            return real_sync(*args, **kwargs)
        return None

    with _patched(torch.cuda, synchronize=sync), _CudaCalls() as calls:
        if repeats is None:
            result = ns["time_matmul"](n, device)
        else:
            result = ns["time_matmul"](n, device, repeats)
    return {"result": result, "matmuls": calls.matmuls, "syncs": len(syncs), "cuda_calls": calls.cuda_calls,
            "uploads": calls.uploads}


# ---------------------------------------------------------------- linear regression on any device

def linear_model(ns, X, w, b):
    """A fresh LinearRegression(): its parameters, then its forward pass with w and b loaded."""
    model = ns["LinearRegression"]()
    params = {name: {"shape": list(p.shape), "dtype": p.dtype, "is_parameter": isinstance(p, nn.Parameter)}
              for name, p in model.named_parameters()}
    init_b = model.b.detach().clone() if "b" in params else None
    if "w" in params and "b" in params:
        with torch.no_grad():
            model.w.copy_(w)
            model.b.copy_(b)
    return {"params": params, "init_b": init_b, "out": _info(model(X))}


def train_regression(ns, X, y, w0, b0, device, epochs, lr):
    """train_full_batch on a LinearRegression whose parameters start at (w0, b0)."""
    model = ns["LinearRegression"]()
    with torch.no_grad():
        model.w.copy_(w0)
        model.b.copy_(b0)
    with _CudaCalls(device) as calls:
        history = ns["train_full_batch"](model, X, y, device, epochs=epochs, lr=lr)
    if isinstance(history, (list, tuple)):
        hist: Any = [v if type(v) in (int, float) else _info(v) for v in history]
    else:
        hist = _info(history)
    return {
        "history": hist,
        "w": _info(model.w)["value"],
        "b": _info(model.b)["value"],
        "param_devices": _devices(model),
        "cuda_calls": calls.cuda_calls,
    }
