import struct

import numpy as np
import pytest
import torch
from hypothesis import given, settings
from hypothesis import strategies as st

from autograder.execute import wire


def roundtrip(x):
    return wire.decode_message(wire.encode(x))


def test_plain_data_roundtrips():
    x = {"a": [1, 2.5, "s", None, True], "b": (1, (2, 3)), 3: b"raw", "c": complex(1, -2),
         "big": 2**70, "nan": float("nan"), "dt": torch.float64, "dev": torch.device("cpu")}
    y = roundtrip(x)
    assert y["a"] == [1, 2.5, "s", None, True] and y["b"] == (1, (2, 3)) and y[3] == b"raw"
    assert y["c"] == complex(1, -2) and y["big"] == 2**70 and y["nan"] != y["nan"]
    assert y["dt"] is torch.float64 and y["dev"] == torch.device("cpu")


@pytest.mark.parametrize("dtype", [torch.float16, torch.bfloat16, torch.float32, torch.float64, torch.int64,
                                   torch.int8, torch.uint8, torch.bool, torch.complex64])
def test_tensors_roundtrip_exactly(dtype):
    t = (torch.randn(3, 4) * 10).to(dtype)
    back = roundtrip(t[:, ::2])  # non-contiguous on the way out
    assert type(back) is torch.Tensor and back.dtype == dtype and back.shape == (3, 2)
    assert torch.equal(back, t[:, ::2])


def test_requires_grad_and_parameter_become_plain_tensors():
    p = torch.nn.Parameter(torch.ones(2))
    back = roundtrip([p, torch.ones(1, requires_grad=True) * 2])
    assert type(back[0]) is torch.Tensor and back[0].requires_grad and back[1].requires_grad


def test_subclasses_and_objects_are_marked_unsupported():
    class Sneaky(torch.Tensor):
        pass

    class Rigged:
        def __eq__(self, other):
            return True

    back = roundtrip([torch.ones(2).as_subclass(Sneaky), Rigged(), np.array(["a"], dtype=object)])
    assert all(isinstance(b, wire.Unsupported) for b in back)
    assert back[0].type_name == "Sneaky" and back[1].type_name == "Rigged"


def _frame(tree, blobs=()):
    import json

    head = json.dumps({"tree": tree, "blobs": [len(b) for b in blobs]}).encode()
    return struct.pack(">Q", len(head)) + head + b"".join(blobs)


@pytest.mark.parametrize("body", [
    _frame({"t": "tensor", "dtype": "float32", "shape": [100000, 100000], "blob": 0}, [b"1234"]),
    _frame({"t": "tensor", "dtype": "float32", "shape": [-1], "blob": 0}, [b"1234"]),
    _frame({"t": "ndarray", "dtype": "O", "shape": [1], "blob": 0}, [b"12345678"]),
    _frame({"t": "pickle", "v": "cos\nsystem\n"}),
    _frame({"t": "tensor", "dtype": "float32", "shape": [1], "blob": 5}, [b"1234"]),
    _frame({"t": "list", "v": [1]}, [b"extra"])[:-2],
    b"\x00" * 3,
])
def test_hostile_payloads_are_refused(body):
    with pytest.raises(wire.PayloadError):
        wire.decode(body)


def test_deep_nesting_and_size_limits():
    deep = {"t": "list", "v": []}
    node = deep
    for _ in range(200):
        child = {"t": "list", "v": []}
        node["v"].append(child)
        node = child
    with pytest.raises(wire.PayloadError):
        wire.decode(_frame(deep))
    with pytest.raises(wire.PayloadError):
        wire.decode(wire.encode(torch.zeros(1000))[12:], wire.Limits(max_bytes=100))


scalars = st.one_of(st.none(), st.booleans(), st.integers(), st.floats(allow_nan=False), st.text(max_size=20))
values = st.recursive(scalars, lambda inner: st.one_of(
    st.lists(inner, max_size=4), st.tuples(inner, inner),
    st.dictionaries(st.text(max_size=5), inner, max_size=4)), max_leaves=20)


@settings(max_examples=200, deadline=None)
@given(values)
def test_property_plain_values_roundtrip(x):
    assert roundtrip(x) == x


@settings(max_examples=60, deadline=None)
@given(st.lists(st.integers(0, 4), min_size=0, max_size=4), st.sampled_from([torch.float32, torch.float64, torch.int32]))
def test_property_tensor_shapes_roundtrip(shape, dtype):
    t = torch.arange(int(np.prod(shape)) if shape else 1).reshape(shape).to(dtype)
    back = roundtrip(t)
    assert back.shape == t.shape and back.dtype == dtype and torch.equal(back, t)


@settings(max_examples=300, deadline=None)
@given(st.binary(max_size=200))
def test_property_random_bytes_never_crash_decoder(blob):
    try:
        wire.decode(blob)
    except wire.PayloadError:
        pass
