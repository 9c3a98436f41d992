"""The `meta` device as a stand-in GPU, so device bugs cost points on a CPU-only grader.

Imported by assignment probes, so it runs in the student's worker: it gathers facts, never
verdicts.  Without a GPU every `.to(device)` is a no-op on the CPU, so a model never moved,
a batch moved without assigning the result, or outputs left on the device all look right.
On `meta`, placement is visible: an operation mixing a meta and a CPU tensor raises the same
"expected all tensors to be on the same device" error as on a GPU.  Meta tensors hold no
values, so inside `MetaAccelerator` the few calls that read values back answer with zeros
of the right shape and dtype (`.cpu()`, `.to("cpu")`, `.numpy()`, `.tolist()`) or 0 (`.item()`, `float()`, `int()`):
code written for a GPU (copy back, `loss.item()`) then runs to its end, and the trusted side
compares what it returned (devices, shapes, dtypes) with the reference run the same way.
"""
from __future__ import annotations

from typing import Any

import torch
from torch.overrides import TorchFunctionMode


def _device_type(args: tuple, kwargs: dict) -> str | None:
    """The device type a `Tensor.to(...)` call targets, or None (a dtype-only call)."""
    target = kwargs.get("device")
    if target is None and args and isinstance(args[0], (str, torch.device, torch.Tensor)):
        target = args[0]
    if isinstance(target, torch.Tensor):
        return target.device.type
    return None if target is None else torch.device(target).type


class MetaAccelerator(TorchFunctionMode):
    """Counts `.cuda()` calls (a no-op here), records CPU -> meta copies, answers reads of meta tensors with zeros."""

    def __init__(self) -> None:
        super().__init__()
        self.cuda_calls = 0
        self.uploads: list[list[int]] = []  # shapes of the tensors copied from the CPU to the device

    def __torch_function__(self, func: Any, types: Any, args: tuple = (), kwargs: dict | None = None) -> Any:
        kwargs = kwargs or {}
        name = getattr(func, "__name__", "")
        t = args[0] if args and isinstance(args[0], torch.Tensor) else None
        if name == "cuda":
            self.cuda_calls += 1
            if not torch.cuda.is_available():
                return args[0]
        if t is not None and t.is_meta:
            if name == "cpu" or (name == "to" and _device_type(args[1:], kwargs) == "cpu"):
                dtype = kwargs.get("dtype") or next((a for a in args[1:] if isinstance(a, torch.dtype)), t.dtype)
                return torch.zeros(t.shape, dtype=dtype)
            if name in ("item", "__float__", "__int__"):
                return 0.0 if t.is_floating_point() and name != "__int__" else 0
            if name in ("tolist", "numpy"):
                zeros = torch.zeros(t.shape, dtype=t.dtype)
                return zeros.tolist() if name == "tolist" else zeros.numpy()
        out = func(*args, **kwargs)
        if t is not None and not t.is_meta and name in ("to", "meta") and isinstance(out, torch.Tensor) and out.is_meta:
            self.uploads.append(list(t.shape))
        return out


def describe(x: Any) -> Any:
    """A tensor as data the wire can carry: values only where they exist (not on meta)."""
    if not isinstance(x, torch.Tensor):
        return {"type": type(x).__name__}
    return {"type": "Tensor", "device": x.device.type, "dtype": x.dtype, "shape": list(x.shape),
            "requires_grad": bool(x.requires_grad), "value": None if x.is_meta else x.detach()}
