"""The `meta` device as a stand-in GPU, so device bugs cost points on a CPU-only grader.

Imported by assignment probes, so it runs in the student's worker: it gathers facts, never
verdicts.  Without a GPU every `.to(device)` is a no-op on the CPU, so a model never moved,
a batch moved without assigning the result, or outputs left on the device all look right.
On `meta`, placement is visible: an operation mixing a meta and a CPU tensor raises the same
"expected all tensors to be on the same device" error as on a GPU (the few that torch lets mix meta and
CPU, matrix products among them, are made to raise inside `MetaAccelerator`).  Meta tensors hold no
values, so inside `MetaAccelerator` the few calls that read values back answer with zeros
of the right shape and dtype (`.cpu()`, `.to("cpu")`, `.numpy()`, `.tolist()`) or 0 (`.item()`, `float()`, `int()`):
code written for a GPU (copy back, `loss.item()`) then runs to its end, and the trusted side
compares what it returned (devices, shapes, dtypes) with the reference run the same way.

`meta` also stands in for a GPU other than the first (`cuda:1`): a probe that reports CUDA as available
while the target is `meta` sees code that calls `.cuda()` instead of `.to(device)` leave its tensors where
`.cuda()` puts them (the first GPU, or on a machine without one where they were: the CPU), never on the
target device.
"""

from __future__ import annotations

from typing import Any

import torch
from torch.overrides import TorchFunctionMode

_REAL_CUDA_AVAILABLE = torch.cuda.is_available  # the real answer, kept from before any probe reports another


def _device_type(args: tuple, kwargs: dict) -> str | None:
    """The device type a `Tensor.to(...)` call targets, or None (a dtype-only call)."""
    target = kwargs.get("device")
    if target is None and args and isinstance(args[0], (str, torch.device, torch.Tensor)):
        target = args[0]
    if isinstance(target, torch.Tensor):
        return target.device.type
    return None if target is None else torch.device(target).type


# Operations that, unlike a GPU, accept a meta tensor together with a CPU one (and answer on meta or on the CPU):
# inside `MetaAccelerator` they raise as on a GPU, so weights left on the CPU show on 'meta' too.
_MIXING_SILENTLY = frozenset(
    {
        "matmul",
        "__matmul__",
        "__rmatmul__",
        "mm",
        "bmm",
        "mv",
        "dot",
        "addmm",
        "addmv",
        "baddbmm",
        "linear",
        "einsum",
        "tensordot",
        "bilinear",
    }
)


def _same_device(name: str, args: tuple, kwargs: dict) -> None:
    """Raise as CUDA does when the tensors of one operation live on different devices (a 0-d CPU tensor, a
    number to CUDA, may go with any)."""
    flat = [a for x in (*args, *kwargs.values()) for a in (x if isinstance(x, (list, tuple)) else (x,))]
    devices = sorted({str(a.device) for a in flat if isinstance(a, torch.Tensor) and a.dim() > 0})
    if len(devices) > 1 and "meta" in devices:
        raise RuntimeError(
            f"Expected all tensors to be on the same device, but found at least two devices, "
            f"{' and '.join(devices)}! (in {name})"
        )


class MetaAccelerator(TorchFunctionMode):
    """Counts `.cuda()` calls (a no-op here), records CPU -> meta copies, answers reads of meta tensors with zeros.

    With `cuda_available`, torch.cuda.is_available() answers that while the mode is on (one GPU, or none), and on
    a machine without CUDA a move to "cuda" (`.cuda()`, `.to("cuda")`) leaves a tensor where it is: code that picks
    "cuda" itself, rather than the device it was given, shows by where its tensors are, not by a crash."""

    def __init__(self, cuda_available: bool | None = None) -> None:
        super().__init__()
        self.cuda_calls = 0
        self.uploads: list[list[int]] = []  # shapes of the tensors copied from the CPU to the device
        self._fake_cuda = cuda_available
        self._saved: tuple | None = None

    def __enter__(self) -> "MetaAccelerator":
        if self._fake_cuda is not None:
            self._saved = (torch.cuda.is_available, torch.cuda.device_count)
            answer = bool(self._fake_cuda)
            torch.cuda.is_available = lambda: answer
            torch.cuda.device_count = lambda: int(answer)
        return super().__enter__()

    def __exit__(self, *exc: Any) -> Any:
        try:
            return super().__exit__(*exc)
        finally:
            if self._saved is not None:
                torch.cuda.is_available, torch.cuda.device_count = self._saved
                self._saved = None

    def __torch_function__(self, func: Any, types: Any, args: tuple = (), kwargs: dict | None = None) -> Any:
        kwargs = kwargs or {}
        name = getattr(func, "__name__", "")
        t = args[0] if args and isinstance(args[0], torch.Tensor) else None
        if name == "cuda":
            self.cuda_calls += 1
            if not _REAL_CUDA_AVAILABLE():  # a probe may report CUDA as available: `.cuda()` still goes nowhere
                return args[0]
        if (
            name == "to"
            and t is not None
            and self._fake_cuda
            and not _REAL_CUDA_AVAILABLE()
            and _device_type(args[1:], kwargs) == "cuda"
        ):
            return t
        if t is not None and t.is_meta:
            if name == "cpu" or (name == "to" and _device_type(args[1:], kwargs) == "cpu"):
                dtype = kwargs.get("dtype") or next((a for a in args[1:] if isinstance(a, torch.dtype)), t.dtype)
                return torch.zeros(t.shape, dtype=dtype)
            if name in ("item", "__float__", "__int__"):
                return 0.0 if t.is_floating_point() and name != "__int__" else 0
            if name in ("tolist", "numpy"):
                zeros = torch.zeros(t.shape, dtype=t.dtype)
                return zeros.tolist() if name == "tolist" else zeros.numpy()
        if name in _MIXING_SILENTLY:
            _same_device(name, args, kwargs)
        out = func(*args, **kwargs)
        if t is not None and not t.is_meta and name in ("to", "meta") and isinstance(out, torch.Tensor) and out.is_meta:
            self.uploads.append(list(t.shape))
        return out


def describe(x: Any) -> Any:
    """A tensor as data the wire can carry: values only where they exist (not on meta)."""
    if not isinstance(x, torch.Tensor):
        return {"type": type(x).__name__}
    return {
        "type": "Tensor",
        "device": x.device.type,
        "dtype": x.dtype,
        "shape": list(x.shape),
        "requires_grad": bool(x.requires_grad),
        "value": None if x.is_meta else x.detach(),
    }
