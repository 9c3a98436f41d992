"""The only format in which data crosses between a student worker and the trusted side.

Why a format of our own: pickle (and anything built on it) can run code while loading, and
the trusted process must never do that with bytes a student process produced.  A message
here is a JSON tree plus raw byte blobs for arrays, so decoding is `json.loads` plus
`frombuffer` -- no code runs, every size is checked against the bytes actually present, and
a lie in a header (a "10 GB tensor" with 10 bytes behind it) is refused, not allocated.

A list is a JSON array; every other container or non-JSON value is a node, a JSON object naming
its kind (`{"t": "tuple", "v": [...]}`).

Allowed values: None, bool, int, float, complex, str, bytes, list, tuple, dict (keys: str,
int, float, bool, None), torch.Tensor (exactly that type, or nn.Parameter, dense and
strided), numpy arrays of numeric/bool dtype, numpy scalars, torch.dtype, torch.device,
torch.Size.  Anything else is encoded as an `Unsupported` marker naming its type, so a
check can tell a student "your function returned a Foo" instead of crashing.

TensorFlow values (where the worker has imported TensorFlow; this module never imports it, the
trusted side never needs it): an eager tensor, a `tf.Variable` (and a Keras 3 `keras.Variable`, whose
`name` is its path), a `tf.RaggedTensor`, a `tf.SparseTensor` -- each of exactly its type, of a dtype
listed in `_DTYPES` -- decode to a `TFTensor` whose values are torch tensors of the same dtype; a
`tf.DType` to a `TFDType`, a `tf.TensorShape` to a `TFShape`.  A string tensor, a subclass of a TF
type, or an object that only looks like one (a class with a `numpy()` method) is `Unsupported`: a
probe sends strings as `t.numpy().tolist()` (a list of bytes).  A decoded `TFTensor`, `TFDType` or
`TFShape` encodes again (on either side) to what it was decoded from: the reference cache stores them so.
"""

from __future__ import annotations

import dataclasses
import json
import math
import re
import struct
import sys
from dataclasses import dataclass
from typing import Any, BinaryIO

import numpy as np
import torch

MAGIC = b"AGW1"
_HEADER = struct.Struct(">4sQ")  # magic, total length of the rest
HEADER_SIZE = _HEADER.size


@dataclass(frozen=True)
class Limits:
    """Bounds that hold *while* a message from a worker is read, so whatever it sends costs the
    judge bounded memory (measured in tests/execute/test_wire.py::test_worst_case_frames_stay_bounded).

    The frame's length is checked before a byte of it is read; the JSON tree's length, node count
    (an upper bound counted over the raw bytes) before `json.loads` allocates anything; nesting by
    `json.loads`'s own recursion limit, then `max_depth`; blobs by their declared sizes, which must
    add up to the bytes present.  Worst case: about 2 x `max_bytes` (frame + decoded tensors) plus
    80 bytes per node plus 8 x `max_header` (an all-astral string), i.e. ~200 MiB at these values
    with the default `payload_mb` of 64."""

    max_bytes: int = 64 * 2**20  # whole frame (runner: the manifest's payload_mb)
    max_header: int = 4 * 2**20  # its JSON tree
    max_depth: int = 64  # nesting of the decoded value
    max_nodes: int = 200_000  # JSON values in the tree
    max_str: int = 2**20  # characters of one string


DEFAULT_LIMITS = Limits()
# Messages the grader itself wrote (requests the worker reads, the reference cache): sized for a
# whole 20 MiB notebook's sources, not for hostile input.
FROM_GRADER = Limits(max_bytes=256 * 2**20, max_header=256 * 2**20, max_nodes=10**8, max_str=256 * 2**20)


class PayloadError(ValueError):
    """A message that is malformed, too large, too deep or of a forbidden type."""


@dataclass(frozen=True)
class Unsupported:
    """Stands for a value the worker could not send (e.g. a custom object or a tensor subclass)."""

    type_name: str
    detail: str = ""

    def __repr__(self) -> str:
        return f"<unsupported {self.type_name}{': ' + self.detail if self.detail else ''}>"


TF_KINDS = ("Tensor", "Variable", "RaggedTensor", "SparseTensor")


@dataclass(frozen=True, eq=False)
class TFTensor:
    """A TensorFlow value as data: what a check compares, without TensorFlow on the trusted side.

    `values` holds the dense values (a ragged tensor's flat values, a sparse tensor's non-zero values)
    as a torch tensor of the same dtype; `shape` is TF's (None for a dimension it does not know, and
    None for a variable of unknown rank); `row_splits` (ragged: one int64 tensor per ragged
    dimension, outermost first) and `indices` (sparse: int64 [n, rank]) say where the values sit."""

    kind: str
    dtype: str
    shape: tuple[int | None, ...] | None
    device: str
    values: torch.Tensor
    row_splits: tuple[torch.Tensor, ...] = ()
    indices: torch.Tensor | None = None
    name: str = ""
    trainable: bool | None = None

    def __repr__(self) -> str:
        return f"<tf.{self.kind} {self.dtype} {self.shape}>"


@dataclass(frozen=True)
class TFDType:
    """A `tf.DType`, by TF's name for it ("float32", "bfloat16", "string", ...)."""

    name: str

    def __repr__(self) -> str:
        return f"tf.{self.name}"


@dataclass(frozen=True)
class TFShape:
    """A `tf.TensorShape`: its dimensions (None for an unknown one), or None for an unknown rank."""

    dims: tuple[int | None, ...] | None

    def __repr__(self) -> str:
        return f"TensorShape({None if self.dims is None else list(self.dims)})"


_DTYPES: dict[str, torch.dtype] = {
    str(d).removeprefix("torch."): d
    for d in (
        torch.float16,
        torch.bfloat16,
        torch.float32,
        torch.float64,
        torch.complex64,
        torch.complex128,
        torch.uint8,
        torch.int8,
        torch.int16,
        torch.int32,
        torch.int64,
        torch.bool,
    )
}
_NAMES: dict[torch.dtype, str] = {d: name for name, d in _DTYPES.items()}
# each dtype's bytes as numpy reads them (bfloat16, which numpy lacks, as its 16 bits, viewed back in torch)
_NP_OF: dict[str, np.dtype] = {
    name: np.dtype(np.uint16) if d is torch.bfloat16 else torch.empty((), dtype=d).numpy().dtype
    for name, d in _DTYPES.items()
}
_NP_KINDS = set("biufc")


# ---------------------------------------------------------------- encoding (either side)


def encode(obj: Any) -> bytes:
    """Serialize `obj` (see module doc for what is allowed) to one framed message."""
    blobs: list[bytes] = []
    tree = _enc(obj, blobs, 0)
    head = json.dumps({"tree": tree, "blobs": [len(b) for b in blobs]}, allow_nan=True).encode()
    body = struct.pack(">Q", len(head)) + head + b"".join(blobs)
    return _HEADER.pack(MAGIC, len(body)) + body


def _enc(x: Any, blobs: list[bytes], depth: int) -> Any:
    if depth > DEFAULT_LIMITS.max_depth:
        return {"t": "unsupported", "type": "structure", "detail": "nested too deeply"}
    tx = type(x)
    if x is None or tx is bool or tx is str:
        return x
    if tx is int:
        return x if abs(x) < 2**63 else {"t": "bigint", "v": str(x)}
    if tx is float:
        return x if math.isfinite(x) else {"t": "float", "v": repr(x)}
    if tx is complex:
        return {"t": "complex", "re": _enc(x.real, blobs, depth), "im": _enc(x.imag, blobs, depth)}
    if tx is bytes:
        blobs.append(x)
        return {"t": "bytes", "blob": len(blobs) - 1}
    if tx is list:  # a JSON array: most of what crosses is lists (every request's calls), so no node around it
        return [_enc(v, blobs, depth + 1) for v in x]
    if tx is tuple or tx is torch.Size:
        return {"t": "tuple", "v": [_enc(v, blobs, depth + 1) for v in x]}
    if tx is dict:
        keys, vals = [], []
        for k, v in x.items():
            if type(k) not in (str, int, float, bool, type(None)):
                return {"t": "unsupported", "type": "dict", "detail": f"key of type {type(k).__name__}"}
            keys.append(_enc(k, blobs, depth + 1))
            vals.append(_enc(v, blobs, depth + 1))
        return {"t": "dict", "k": keys, "v": vals}
    if tx is torch.dtype:
        return {"t": "dtype", "v": str(x).removeprefix("torch.")}
    if tx is torch.device:
        return {"t": "device", "v": str(x)}
    if tx is torch.Tensor or tx is torch.nn.Parameter:
        return _enc_tensor(x, blobs)
    if isinstance(x, torch.Tensor):
        return {"t": "unsupported", "type": tx.__name__, "detail": "a subclass of torch.Tensor"}
    if tx is np.ndarray:
        return _enc_ndarray(x, blobs)
    if isinstance(x, np.generic) and x.dtype.kind in _NP_KINDS:
        return _enc(x.item(), blobs, depth)
    if tx is TFTensor or tx is TFDType or tx is TFShape:
        return _enc_tf_decoded(x, blobs)
    if "tensorflow" in sys.modules or "keras" in sys.modules:
        return _enc_tf(x, blobs)
    return {"t": "unsupported", "type": tx.__name__}


# ---------------------------------------------------------------- TensorFlow values (worker side)

_TFTypes = tuple[dict[type, str], dict[type, str]]
_tf_table: tuple[tuple[bool, Any], _TFTypes] | None = None  # (what it was built from, the table)


def _tf_types() -> _TFTypes:
    """(TF's exact types -> what they are sent as, TF's base types -> their names for a subclass), from
    the modules the worker has already imported: encoding never imports TensorFlow itself.  Built on the
    first TF value and kept while the same modules are loaded (a worker imports TensorFlow or Keras at most
    once, but may do so after its first value): two dict lookups per value instead of a dozen imports."""
    global _tf_table
    source = ("tensorflow" in sys.modules, sys.modules.get("keras.src.backend"))
    if _tf_table is None or _tf_table[0] != source:  # a module compares by identity
        _tf_table = (source, _build_tf_types(source[1]))
    return _tf_table[1]


def _build_tf_types(backend: Any) -> _TFTypes:
    exact: dict[type, str] = {}
    bases: dict[type, str] = {}
    if "tensorflow" in sys.modules:
        from tensorflow.python.framework import dtypes, ops, sparse_tensor, tensor, tensor_shape
        from tensorflow.python.ops import resource_variable_ops, variables
        from tensorflow.python.ops.ragged import ragged_tensor

        exact.update(
            {
                ops.EagerTensor: "Tensor",
                resource_variable_ops.ResourceVariable: "Variable",
                ragged_tensor.RaggedTensor: "RaggedTensor",
                sparse_tensor.SparseTensor: "SparseTensor",
                dtypes.DType: "dtype",
                tensor_shape.TensorShape: "shape",
            }
        )
        bases.update(
            {
                tensor.Tensor: "tf.Tensor",
                variables.Variable: "tf.Variable",
                ragged_tensor.RaggedTensor: "tf.RaggedTensor",
                sparse_tensor.SparseTensor: "tf.SparseTensor",
                dtypes.DType: "tf.DType",
                tensor_shape.TensorShape: "tf.TensorShape",
            }
        )
    if backend is not None and getattr(backend, "backend", lambda: "")() == "tensorflow":
        exact[backend.Variable] = "Variable"
        bases[backend.Variable] = "keras.Variable"
    return exact, bases


def _enc_tf(x: Any, blobs: list[bytes]) -> Any:
    tx = type(x)
    exact, bases = _tf_types()
    kind = exact.get(tx)
    if kind is None:
        base = next((name for b, name in bases.items() if isinstance(x, b)), None)
        return {"t": "unsupported", "type": tx.__name__, "detail": f"a subclass of {base}" if base else ""}
    try:
        return _enc_tf_value(x, kind, blobs)
    except Exception as e:  # a value TF itself cannot read back (or a patched TF): said, never a crash of the worker
        return {"t": "unsupported", "type": f"tf.{kind}", "detail": f"unreadable: {type(e).__name__}"}


def _enc_tf_value(x: Any, kind: str, blobs: list[bytes]) -> Any:
    if kind == "dtype":
        return {"t": "tfdtype", "v": x.name}
    if kind == "shape":
        return {"t": "tfshape", "v": None if x.rank is None else list(x.as_list())}
    extra: dict[str, Any] = {}
    if kind == "Variable":
        extra = {"name": str(getattr(x, "path", None) or x.name), "trainable": bool(x.trainable)}
        if hasattr(x, "path"):  # a keras.Variable: the tf.Variable it wraps
            x = x.value
    name = x.dtype.name
    if name not in _DTYPES:
        hint = ": send t.numpy().tolist() (a list of bytes)" if name == "string" else ""
        return {"t": "unsupported", "type": f"tf.{kind}", "detail": f"dtype {name}{hint}"}
    node: dict[str, Any] = {
        "t": "tf",
        "kind": kind,
        "dtype": name,
        "shape": None if x.shape.rank is None else list(x.shape.as_list()),
        **extra,
    }
    if kind == "RaggedTensor":
        node["v"] = _enc_tf_values(x.flat_values.numpy(), name, blobs)
        node["splits"] = [_enc_tf_values(s.numpy().astype(np.int64), "int64", blobs) for s in x.nested_row_splits]
        node["device"] = str(x.flat_values.device)
    elif kind == "SparseTensor":
        node["v"] = _enc_tf_values(x.values.numpy(), name, blobs)
        node["indices"] = _enc_tf_values(x.indices.numpy().astype(np.int64), "int64", blobs)
        node["device"] = str(x.values.device)
    else:
        node["v"] = _enc_tf_values(x.numpy(), name, blobs)
        node["device"] = str(x.device or "")
    return node


def _enc_tf_values(a: Any, name: str, blobs: list[bytes]) -> Any:
    a = np.asarray(a)
    if a.dtype.itemsize != _NP_OF[name].itemsize:  # what numpy() gave is not what TF's dtype says
        raise TypeError(f"values of dtype {a.dtype} for a tf.{name}")
    blobs.append(np.ascontiguousarray(a).tobytes())
    return {"t": "tensor", "dtype": name, "shape": list(a.shape), "blob": len(blobs) - 1}


def _enc_tf_decoded(x: TFTensor | TFDType | TFShape, blobs: list[bytes]) -> Any:
    """A TF value as decoded, encoded again (the trusted side, without TensorFlow): the reference's cached
    answers are written so, and must read back as the worker sent them."""
    if isinstance(x, TFDType):  # the trusted side's own classes, as decoded: no subclass can reach here
        return {"t": "tfdtype", "v": x.name}
    if isinstance(x, TFShape):
        return {"t": "tfshape", "v": None if x.dims is None else list(x.dims)}
    node: dict[str, Any] = {
        "t": "tf",
        "kind": x.kind,
        "dtype": x.dtype,
        "device": x.device,
        "shape": None if x.shape is None else list(x.shape),
        "v": _enc_tensor(x.values, blobs),
    }
    if x.kind == "Variable":
        node.update(name=x.name, trainable=x.trainable)
    if x.kind == "RaggedTensor":
        node["splits"] = [_enc_tensor(s, blobs) for s in x.row_splits]
    if x.indices is not None:
        node["indices"] = _enc_tensor(x.indices, blobs)
    return node


def _enc_tensor(t: torch.Tensor, blobs: list[bytes]) -> Any:
    if t.layout is not torch.strided or t.is_meta or t.is_quantized:
        return {"t": "unsupported", "type": "Tensor", "detail": f"layout {t.layout}"}
    name = _NAMES.get(t.dtype)
    if name is None:
        return {"t": "unsupported", "type": "Tensor", "detail": f"dtype {str(t.dtype).removeprefix('torch.')}"}
    if t.is_cpu and not t.is_conj() and not t.is_neg() and t.dtype is not torch.bfloat16:
        # numpy's tobytes() is the elements in row-major order whatever the strides: one copy, 2 us
        # instead of 7 for the torch steps below (most answers are small CPU tensors)
        blobs.append(t.detach().numpy().tobytes())
        device = "cpu"
    else:
        data = t.detach().resolve_conj().resolve_neg().to("cpu").contiguous().reshape(-1)
        if data.numel() and data.stride(0) != 1:
            # one element with a stride other than 1 (x[1:, ::2] of a 2 x 2 tensor): contiguous to torch,
            # whose view(uint8) still refuses it
            data = data.clone(memory_format=torch.contiguous_format)
        blobs.append(data.view(torch.uint8).numpy().tobytes() if data.numel() else b"")
        device = str(t.device)
    return {
        "t": "tensor",
        "dtype": name,
        "shape": list(t.shape),
        "blob": len(blobs) - 1,
        "rg": t.requires_grad,
        "device": device,
    }


def _enc_ndarray(a: np.ndarray, blobs: list[bytes]) -> Any:
    if a.dtype.kind not in _NP_KINDS or a.dtype.fields is not None:
        return {"t": "unsupported", "type": "ndarray", "detail": f"dtype {a.dtype}"}
    blobs.append(np.ascontiguousarray(a).tobytes())
    return {"t": "ndarray", "dtype": a.dtype.str, "shape": list(a.shape), "blob": len(blobs) - 1}


# ---------------------------------------------------------------- decoding (trusted side)


def decode(body: bytes | bytearray, limits: Limits = DEFAULT_LIMITS) -> Any:
    """Decode one message body (without the frame header).  Raises PayloadError on anything off."""
    if len(body) > limits.max_bytes:
        raise PayloadError(f"payload of {len(body)} bytes is over the limit of {limits.max_bytes}")
    if len(body) < 8:
        raise PayloadError("truncated payload")
    (hlen,) = struct.unpack(">Q", body[:8])
    if hlen > len(body) - 8:
        raise PayloadError("header length exceeds payload")
    if hlen > limits.max_header:
        raise PayloadError(
            f"a result tree of {hlen / 2**20:.1f} MiB is over the {limits.max_header / 2**20:g} MiB limit"
        )
    raw = bytes(memoryview(body)[8 : 8 + hlen])
    # Every JSON value but the first follows one of these four characters, so their count (inside
    # strings too) bounds the values json.loads would build: checked before it builds any.
    nodes = 1 + sum(raw.count(c) for c in (b",", b":", b"[", b"{"))
    if nodes > limits.max_nodes:
        raise PayloadError(f"more than {limits.max_nodes} values in one result")
    try:
        head = json.loads(raw)
    except (ValueError, RecursionError) as e:
        raise PayloadError(f"unreadable header: {type(e).__name__}") from None
    del raw
    if type(head) is not dict or type(head.get("blobs")) is not list:
        raise PayloadError("header is not a message")
    sizes = head["blobs"]
    if not all(type(n) is int and n >= 0 for n in sizes) or 8 + hlen + sum(sizes) != len(body):
        raise PayloadError("blob sizes do not match the bytes present")
    offsets, pos = [], 8 + hlen
    for n in sizes:
        offsets.append((pos, pos + n))
        pos += n
    try:
        return _dec(head.get("tree"), body, offsets, limits, 0)
    except PayloadError:
        raise
    except (TypeError, ValueError, KeyError, IndexError, OverflowError, RuntimeError) as e:
        # each field is checked before it is used; this keeps the contract (a refusal, never a crash of
        # the judge) for a check that is missing, whatever node kind it is in
        raise PayloadError(f"malformed value ({type(e).__name__})") from None


def _dec(x: Any, body: bytes | bytearray, offs: list, lim: Limits, depth: int) -> Any:
    if depth > lim.max_depth:
        raise PayloadError(f"structure nested deeper than {lim.max_depth} levels")
    tx = type(x)
    if x is None or tx in (bool, int, float):
        return x
    if tx is str:
        if len(x) > lim.max_str:
            raise PayloadError(f"a string of {len(x)} characters is over the limit of {lim.max_str}")
        return x
    if tx is list:
        return [_dec(v, body, offs, lim, depth + 1) for v in x]
    if tx is not dict:
        raise PayloadError(f"unexpected JSON node {tx.__name__}")
    t = x.get("t")
    if t in ("list", "tuple"):  # "list": how lists were sent before they became JSON arrays (cached answers)
        items = x.get("v")
        if type(items) is not list:
            raise PayloadError("bad sequence")
        out = [_dec(v, body, offs, lim, depth + 1) for v in items]
        return out if t == "list" else tuple(out)
    if t == "dict":
        ks, vs = x.get("k"), x.get("v")
        if type(ks) is not list or type(vs) is not list or len(ks) != len(vs):
            raise PayloadError("bad dict")
        mapping: dict[Any, Any] = {}
        for k, v in zip(ks, vs):
            key = _dec(k, body, offs, lim, depth + 1)
            if type(key) not in (str, int, float, bool, type(None)):
                raise PayloadError("bad dict key")
            mapping[key] = _dec(v, body, offs, lim, depth + 1)
        return mapping
    if t == "tensor":
        return _dec_tensor(x, body, offs)
    if t == "ndarray":
        return _dec_ndarray(x, body, offs)
    if t == "tf":
        return _dec_tf(x, body, offs, lim, depth)
    if t == "tfdtype":
        v = x.get("v")
        if type(v) is not str or not re.fullmatch(r"[a-z][a-z0-9_]{0,31}", v):
            raise PayloadError("bad tf dtype")
        return TFDType(v)
    if t == "tfshape":
        v = x.get("v")
        return TFShape(None if v is None else tuple(_tf_shape(v)))
    if t == "bytes":
        a, b = _blob(x, offs)
        return bytes(memoryview(body)[a:b])
    if t == "dtype":
        v = x.get("v")
        if type(v) is not str or v not in _DTYPES:
            raise PayloadError("unknown dtype")
        return _DTYPES[v]
    if t == "device":
        try:
            return torch.device(str(x.get("v"))[:32])
        except RuntimeError:
            raise PayloadError("bad device") from None
    if t == "complex":
        re_, im = _dec(x.get("re"), body, offs, lim, depth + 1), _dec(x.get("im"), body, offs, lim, depth + 1)
        if type(re_) not in (int, float) or type(im) not in (int, float):
            raise PayloadError("bad complex")
        return complex(re_, im)
    if t == "float":
        if x.get("v") not in ("nan", "inf", "-inf"):
            raise PayloadError("bad float")
        return float(x["v"])
    if t == "bigint":
        v = x.get("v")
        if type(v) is not str or len(v) > 4000:
            raise PayloadError("bad integer")
        try:
            return int(v)
        except ValueError:
            raise PayloadError("bad integer") from None
    if t == "unsupported":
        return Unsupported(str(x.get("type"))[:100], str(x.get("detail", ""))[:200])
    raise PayloadError(f"unknown node type {str(t)[:40]!r}")


def _blob(x: dict, offs: list) -> tuple[int, int]:
    i = x.get("blob")
    if type(i) is not int or not 0 <= i < len(offs):
        raise PayloadError("bad blob reference")
    return offs[i]


def _shape(x: dict) -> list[int]:
    shape = x.get("shape")
    if type(shape) is not list or len(shape) > 32 or not all(type(n) is int and n >= 0 for n in shape):
        raise PayloadError("bad shape")
    return shape


def _dec_tensor(x: dict, body: bytes | bytearray, offs: list) -> torch.Tensor:
    name = x.get("dtype")
    if type(name) is not str or name not in _DTYPES:
        raise PayloadError("unknown tensor dtype")
    shape = _shape(x)
    a, b = _blob(x, offs)
    numel, np_dtype = math.prod(shape), _NP_OF[name]
    if numel * np_dtype.itemsize != b - a:
        raise PayloadError(f"tensor claims shape {shape} ({numel * np_dtype.itemsize} bytes) but carries {b - a}")
    # one copy, from the frame into a new (aligned, writable) array the tensor then owns
    t = torch.from_numpy(np.frombuffer(body, np_dtype, numel, a).reshape(shape).copy())
    if name == "bfloat16":
        t = t.view(torch.bfloat16)
    if x.get("rg") is True and (t.is_floating_point() or t.is_complex()):
        t.requires_grad_(True)
    return t


def _tf_shape(v: Any) -> list[int | None]:
    if type(v) is not list or len(v) > 32 or not all(n is None or (type(n) is int and n >= 0) for n in v):
        raise PayloadError("a TensorFlow shape that is not a list of sizes, or of more than 32 dimensions")
    return v


def _tf_text(x: dict, key: str) -> str:
    v = x.get(key, "")
    if type(v) is not str or len(v) > 256:
        raise PayloadError(f"bad tf {key}")
    return v


def _dec_tf(x: dict, body: bytes | bytearray, offs: list, lim: Limits, depth: int) -> TFTensor:
    """A TF value, every part checked against the others: sizes against bytes (`_dec_tensor`), then the
    values against the shape, the row splits against the values, the indices against the dense shape."""
    kind, name = x.get("kind"), x.get("dtype")
    if kind not in TF_KINDS or type(name) is not str or name not in _DTYPES:
        raise PayloadError("bad tf value")
    raw_shape = x.get("shape")
    shape = None if raw_shape is None and kind == "Variable" else _tf_shape(raw_shape)
    dims = shape or []  # only a Variable's may be unknown (None), and neither branch below is a Variable's

    def part(node: Any, dtype: str) -> torch.Tensor:
        if depth + 1 > lim.max_depth:
            raise PayloadError(f"structure nested deeper than {lim.max_depth} levels")
        if type(node) is not dict or node.get("t") != "tensor" or node.get("dtype") != dtype:
            raise PayloadError("bad tf values")
        return _dec_tensor(node, body, offs)

    values = part(x.get("v"), name)
    splits: tuple[torch.Tensor, ...] = ()
    indices = None
    trainable = None
    if kind == "RaggedTensor":
        raw = x.get("splits")
        if type(raw) is not list or not 1 <= len(raw) <= 32 or values.dim() < 1:
            raise PayloadError("bad ragged tensor")
        splits = tuple(part(s, "int64") for s in raw)
        ends = [len(s) - 1 for s in splits[1:]] + [values.shape[0]]
        for s, end in zip(splits, ends):
            if s.dim() != 1 or len(s) < 1 or s[0] != 0 or s[-1] != end or bool((s[1:] < s[:-1]).any()):
                raise PayloadError("ragged row splits do not fit the values")
        known = [len(splits[0]) - 1] + [None] * len(splits) + list(values.shape[1:])
        if len(dims) != len(known) or any(d is not None and k is not None and d != k for d, k in zip(dims, known)):
            raise PayloadError("ragged shape does not fit the values")
    elif kind == "SparseTensor":
        indices = part(x.get("indices"), "int64")
        if None in dims or values.dim() != 1 or tuple(indices.shape) != (len(values), len(dims)):
            raise PayloadError("sparse indices do not fit the values")
        if len(values) and bool(((indices < 0) | (indices >= torch.tensor(dims or [0]))).any()):
            raise PayloadError("sparse indices outside the dense shape")
    elif shape is not None and (
        len(dims) != values.dim() or any(d is not None and d != n for d, n in zip(shape, values.shape))
    ):
        raise PayloadError("tf shape does not fit the values")
    if kind == "Variable":
        trainable = x.get("trainable")
        if type(trainable) is not bool:
            raise PayloadError("bad tf variable")
    return TFTensor(
        kind,
        name,
        None if shape is None else tuple(shape),
        _tf_text(x, "device"),
        values,
        splits,
        indices,
        _tf_text(x, "name"),
        trainable,
    )


def _dec_ndarray(x: dict, body: bytes | bytearray, offs: list) -> np.ndarray:
    try:
        dtype = np.dtype(str(x.get("dtype"))[:8])
    except TypeError:
        raise PayloadError("bad array dtype") from None
    if dtype.kind not in _NP_KINDS or dtype.fields is not None:
        raise PayloadError("forbidden array dtype")
    shape = _shape(x)
    a, b = _blob(x, offs)
    if math.prod(shape) * dtype.itemsize != b - a:
        raise PayloadError(f"array claims shape {shape} but carries {b - a} bytes")
    return np.frombuffer(body, np.uint8, b - a, a).view(dtype).reshape(shape).copy()


def copy_decoded(x: Any) -> Any:
    """A copy of a value `decode` returned, as a second decode of the same bytes would return it (fresh
    tensors and arrays, new containers), at a fraction of the cost: the reference's cached answers are
    handed to every submission's tests, and a test that modifies one must not change the next's."""
    tx = type(x)
    if tx is torch.Tensor:
        return x.detach().clone().requires_grad_(x.requires_grad)
    if tx is np.ndarray:
        return x.copy()
    if tx is list or tx is tuple:
        out = [copy_decoded(v) for v in x]
        return out if tx is list else tuple(out)
    if tx is dict:
        return {k: copy_decoded(v) for k, v in x.items()}
    if tx is TFTensor:
        return dataclasses.replace(
            x,
            values=x.values.clone(),
            row_splits=tuple(s.clone() for s in x.row_splits),
            indices=None if x.indices is None else x.indices.clone(),
        )
    return x  # None, bool, int, float, complex, str, bytes, dtype, device, TFDType, TFShape, Unsupported: immutable


# ---------------------------------------------------------------- framing over a stream


def write_message(stream: BinaryIO, obj: Any) -> None:
    stream.write(encode(obj))
    stream.flush()


def body_length(head: bytes, limits: Limits = DEFAULT_LIMITS) -> int:
    """Length of the body announced by a frame header, refused before a byte of it is read if too large."""
    magic, n = _HEADER.unpack(head)
    if magic != MAGIC:
        raise PayloadError("the stream holds something that is not a protocol message")
    if n > limits.max_bytes:
        raise PayloadError(f"a result of {n / 2**20:.1f} MiB is over the {limits.max_bytes / 2**20:.0f} MiB limit")
    return n


def decode_message(data: bytes, limits: Limits = FROM_GRADER) -> Any:
    """Decode one whole framed message the grader wrote (as `encode` made it, header included)."""
    return decode(data[HEADER_SIZE : HEADER_SIZE + body_length(data[:HEADER_SIZE], limits)], limits)


def read_frame(stream: BinaryIO, limits: Limits = FROM_GRADER) -> bytes:
    """Read one framed body (the worker reading the grader's requests); refuses (without reading
    it) a body longer than the limit.  The trusted side reads frames in `process.WorkerProcess`."""
    return _read_exact(stream, body_length(_read_exact(stream, HEADER_SIZE), limits))


def _read_exact(stream: BinaryIO, n: int) -> bytes:
    chunks, left = [], n
    while left:
        chunk = stream.read(min(left, 1 << 20))
        if not chunk:
            raise EOFError("worker closed the channel")
        chunks.append(chunk)
        left -= len(chunk)
    return b"".join(chunks)
