"""TensorFlow values across the wire: encoded in the worker (where TensorFlow is loaded), decoded on the
trusted side to `TFTensor`/`TFDType`/`TFShape` without TensorFlow, under the same limits as every value;
compared by `checks` in the student's words.  TensorFlow is imported by the `tf` fixture only (its import
costs seconds), never at this module's level."""

import json
import os
import re
import struct
import subprocess
import sys

import numpy as np
import pytest
import torch

from autograder.execute import wire
from autograder.judge import checks

os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "2")


@pytest.fixture(scope="module")
def tf():
    return pytest.importorskip("tensorflow")


def roundtrip(x):
    return wire.decode(wire.encode(x)[wire.HEADER_SIZE :])


TF_DTYPES = [
    "float16",
    "bfloat16",
    "float32",
    "float64",
    "complex64",
    "complex128",
    "uint8",
    "int8",
    "int16",
    "int32",
    "int64",
    "bool",
]


@pytest.mark.parametrize("dtype", TF_DTYPES)
def test_eager_tensors_and_variables_roundtrip_in_every_dtype(tf, dtype):
    src = np.arange(-3, 3).reshape(2, 3) * 1.5
    t = tf.cast(tf.constant(src), dtype)
    v = tf.Variable(t, name="w", trainable=False)
    got_t, got_v = roundtrip([t, v])
    for got, kind in ((got_t, "Tensor"), (got_v, "Variable")):
        assert type(got) is wire.TFTensor and got.kind == kind and got.dtype == dtype and got.shape == (2, 3)
        assert got.values.dtype == getattr(torch, dtype) and got.device.endswith("device:CPU:0")
        wide = bool if dtype == "bool" else np.complex128 if dtype.startswith("complex") else np.float64
        want = torch.from_numpy(t.numpy().astype(wide))
        assert torch.equal(got.values.to(want.dtype), want)
    assert got_v.name == "w:0" and got_v.trainable is False and got_t.trainable is None


def test_scalars_ragged_sparse_dtypes_and_shapes_roundtrip(tf):
    ragged = tf.ragged.constant([[[1, 2], [3]], [[4]], []])
    sparse = tf.sparse.SparseTensor(indices=[[0, 1], [2, 3]], values=[1.5, -2.0], dense_shape=[3, 4])
    r, s, scalar, dt, shape, unknown = roundtrip(
        [ragged, sparse, tf.constant(7), tf.bfloat16, tf.TensorShape([None, 3]), tf.TensorShape(None)]
    )
    assert r.kind == "RaggedTensor" and r.dtype == "int32" and r.shape == (3, None, None)
    assert r.values.tolist() == [1, 2, 3, 4] and [x.tolist() for x in r.row_splits] == [[0, 2, 3, 3], [0, 2, 3, 4]]
    assert all(x.dtype == torch.int64 for x in r.row_splits)
    assert s.kind == "SparseTensor" and s.shape == (3, 4) and s.values.tolist() == [1.5, -2.0]
    assert s.indices.dtype == torch.int64 and s.indices.tolist() == [[0, 1], [2, 3]]
    assert scalar.shape == () and scalar.values.item() == 7 and scalar.dtype == "int32"
    assert dt == wire.TFDType("bfloat16") and shape == wire.TFShape((None, 3)) and unknown == wire.TFShape(None)


def test_keras_variables_cross_as_variables_named_by_their_path(tf):
    import keras

    layer = keras.layers.Dense(2, name="head")
    layer.build((None, 3))
    kernel, bias = roundtrip(layer.weights)
    assert kernel.kind == "Variable" and kernel.shape == (3, 2) and kernel.name == "head/kernel"
    assert torch.equal(kernel.values, torch.from_numpy(layer.kernel.numpy())) and bias.trainable is True


def test_strings_subclasses_and_lookalikes_are_unsupported(tf):
    class Lookalike:
        """Claims to be a tensor: a `numpy()` that returns what a check wants, a dtype, a shape."""

        dtype, shape = tf.float32, tf.TensorShape([2])

        def numpy(self):
            return np.ones(2, np.float32)

    Lookalike.__module__ = "tensorflow.python.framework.ops"
    Lookalike.__name__ = Lookalike.__qualname__ = "EagerTensor"

    class MyVariable(type(tf.Variable(0.0))):
        pass

    strings, lookalike, sub = roundtrip([tf.constant(["a", "b"]), Lookalike(), MyVariable(1.0)])
    assert strings == wire.Unsupported("tf.Tensor", "dtype string: send t.numpy().tolist() (a list of bytes)")
    assert type(lookalike) is wire.Unsupported and lookalike.type_name == "EagerTensor"
    assert type(sub) is wire.Unsupported and "subclass" in sub.detail


def test_a_decoded_tf_value_copies_like_a_second_decode(tf):
    r = roundtrip(tf.ragged.constant([[1.0], [2.0, 3.0]]))
    c = wire.copy_decoded(r)
    c.values.add_(1)
    c.row_splits[0].zero_()
    assert r.values.tolist() == [1.0, 2.0, 3.0] and r.row_splits[0].tolist() == [0, 1, 3]


def test_decoded_tf_values_encode_again_as_they_came(tf):
    """The reference's answers are cached on disk as the trusted side encodes them (probe/reference.py), without
    TensorFlow: a second grading of the class reads them back, so they must come back as the worker sent them."""
    import keras

    layer = keras.layers.Dense(2, name="head")
    layer.build((None, 3))
    first = roundtrip(
        [
            tf.constant([[1.5, -2.0]], tf.bfloat16),
            tf.Variable([1, 2], name="w", trainable=False),
            layer.kernel,
            tf.ragged.constant([[[1, 2], [3]], [[4]], []]),
            tf.sparse.SparseTensor(indices=[[0, 1], [2, 3]], values=[1.5, -2.0], dense_shape=[3, 4]),
            tf.complex(tf.ones([2]), tf.zeros([2])),
            tf.int64,
            tf.TensorShape([None, 3]),
            tf.TensorShape(None),
        ]
    )
    again = wire.decode_message(wire.encode(first))
    assert [type(x) for x in again] == [type(x) for x in first] and repr(again) == repr(first)
    for a, b in zip(again[:6], first[:6]):
        assert (a.kind, a.dtype, a.shape, a.device, a.name, a.trainable) == (
            b.kind,
            b.dtype,
            b.shape,
            b.device,
            b.name,
            b.trainable,
        )
        assert a.values.dtype == b.values.dtype and torch.equal(a.values, b.values)
        assert len(a.row_splits) == len(b.row_splits) and all(map(torch.equal, a.row_splits, b.row_splits))
        assert (a.indices is None) == (b.indices is None) and (a.indices is None or torch.equal(a.indices, b.indices))
    checks.assert_equal(again[3], first[3])
    assert (
        again[2].name == "head/kernel" and again[1].trainable is False and again[4].indices.tolist() == [[0, 1], [2, 3]]
    )
    assert again[6:] == first[6:] == [wire.TFDType("int64"), wire.TFShape((None, 3)), wire.TFShape(None)]


def test_the_table_of_tf_types_follows_the_modules_loaded(tf, monkeypatch):
    """The table is built once, on the first TF value, and kept while TensorFlow and Keras's backend are the
    modules it was built from: a worker whose first value comes before it imports TensorFlow (or Keras) still
    sends the later TF values as such."""
    import keras

    v = keras.Variable([1.0, 2.0], name="k")
    assert roundtrip(v).kind == "Variable"
    with monkeypatch.context() as m:
        m.delitem(sys.modules, "keras.src.backend")
        assert roundtrip(v) == wire.Unsupported("Variable")  # no TF type: neither sent nor named
        m.delitem(sys.modules, "tensorflow")
        assert roundtrip(tf.constant(1.0)) == wire.Unsupported("EagerTensor")
    assert roundtrip(tf.constant(1.0)).kind == "Tensor" and roundtrip(v).kind == "Variable"


# ---------------------------------------------------------------- hostile frames (no TensorFlow needed)


def _frame(tree, blobs=()):
    head = json.dumps({"tree": tree, "blobs": [len(b) for b in blobs]}).encode()
    return struct.pack(">Q", len(head)) + head + b"".join(blobs)


def _t(dtype, shape, blob):
    return {"t": "tensor", "dtype": dtype, "shape": shape, "blob": blob}


F4 = np.arange(4, dtype=np.float32).tobytes()
I64 = lambda *xs: np.array(xs, dtype=np.int64).tobytes()  # noqa: E731


@pytest.mark.parametrize(
    "body",
    [
        # a tensor claiming a huge shape over 16 bytes
        _frame(
            {"t": "tf", "kind": "Tensor", "dtype": "float32", "shape": [10**6], "v": _t("float32", [10**6], 0)}, [F4]
        ),
        # TF's shape and the values' disagree
        _frame({"t": "tf", "kind": "Tensor", "dtype": "float32", "shape": [2, 2], "v": _t("float32", [4], 0)}, [F4]),
        # the values' dtype is not the one announced
        _frame({"t": "tf", "kind": "Tensor", "dtype": "float64", "shape": [4], "v": _t("float32", [4], 0)}, [F4]),
        _frame({"t": "tf", "kind": "Module", "dtype": "float32", "shape": [4], "v": _t("float32", [4], 0)}, [F4]),
        _frame({"t": "tf", "kind": "Tensor", "dtype": "string", "shape": [4], "v": _t("float32", [4], 0)}, [F4]),
        # row splits pointing past the values, decreasing, or not starting at 0
        _frame(
            {
                "t": "tf",
                "kind": "RaggedTensor",
                "dtype": "float32",
                "shape": [2, None],
                "v": _t("float32", [4], 0),
                "splits": [_t("int64", [3], 1)],
            },
            [F4, I64(0, 2, 9)],
        ),
        _frame(
            {
                "t": "tf",
                "kind": "RaggedTensor",
                "dtype": "float32",
                "shape": [2, None],
                "v": _t("float32", [4], 0),
                "splits": [_t("int64", [3], 1)],
            },
            [F4, I64(0, 3, 2)],
        ),
        _frame(
            {
                "t": "tf",
                "kind": "RaggedTensor",
                "dtype": "float32",
                "shape": [2, None],
                "v": _t("float32", [4], 0),
                "splits": [_t("int64", [3], 1)],
            },
            [F4, I64(1, 2, 4)],
        ),
        _frame(
            {
                "t": "tf",
                "kind": "RaggedTensor",
                "dtype": "float32",
                "shape": [5, None],
                "v": _t("float32", [4], 0),
                "splits": [_t("int64", [3], 1)],
            },
            [F4, I64(0, 2, 4)],
        ),
        # sparse indices outside the dense shape, or not one row per value
        _frame(
            {
                "t": "tf",
                "kind": "SparseTensor",
                "dtype": "float32",
                "shape": [2, 2],
                "v": _t("float32", [1], 0),
                "indices": _t("int64", [1, 2], 1),
            },
            [F4[:4], I64(0, 5)],
        ),
        _frame(
            {
                "t": "tf",
                "kind": "SparseTensor",
                "dtype": "float32",
                "shape": [2, 2],
                "v": _t("float32", [4], 0),
                "indices": _t("int64", [1, 2], 1),
            },
            [F4, I64(0, 1)],
        ),
        _frame(
            {
                "t": "tf",
                "kind": "Variable",
                "dtype": "float32",
                "shape": [4],
                "v": _t("float32", [4], 0),
                "trainable": "yes",
            },
            [F4],
        ),
        _frame(
            {
                "t": "tf",
                "kind": "Tensor",
                "dtype": "float32",
                "shape": [4],
                "v": _t("float32", [4], 0),
                "device": "x" * 10_000,
            },
            [F4],
        ),
        _frame({"t": "tfdtype", "v": "__import__('os')"}),
        _frame({"t": "tfshape", "v": [-1]}),
        _frame({"t": "tfshape", "v": [1] * 33}),
    ],
)
def test_hostile_tf_frames_are_refused(body):
    with pytest.raises(wire.PayloadError):
        wire.decode(body)


def test_tf_values_obey_the_size_and_depth_limits(tf):
    big = wire.encode(tf.zeros([1000]))[wire.HEADER_SIZE :]
    with pytest.raises(wire.PayloadError):
        wire.decode(big, wire.Limits(max_bytes=1000))
    deep = [tf.constant(1.0)]
    for _ in range(70):
        deep = [deep]
    with pytest.raises(wire.PayloadError):
        wire.decode(wire.encode(deep)[wire.HEADER_SIZE :])
    tree = {"t": "tf", "kind": "Tensor", "dtype": "float32", "shape": [4], "v": _t("float32", [4], 0)}
    assert wire.decode(_frame(tree, [F4]), wire.Limits(max_depth=1)).values.tolist() == [0, 1, 2, 3]
    with pytest.raises(wire.PayloadError):
        wire.decode(_frame([tree], [F4]), wire.Limits(max_depth=1))


# ---------------------------------------------------------------- checks


def test_checks_compare_tf_values_in_the_students_words(tf):
    want = roundtrip(tf.constant([1.0, 2.0, 3.0]))
    checks.assert_close(roundtrip(tf.constant([1.0, 2.0, 3.0 + 1e-7])), want)
    checks.assert_equal(roundtrip(tf.constant([1.0, 2.0, 3.0])), want)
    cases = {
        "is a tf.Variable of dtype float64 and shape (3,); expected a tf.Tensor": tf.Variable(
            tf.constant([1.0, 2.0, 3.0], tf.float64)
        ),
        "is a tf.Tensor of dtype float64 and shape (3,); expected dtype float32": tf.constant(
            [1.0, 2.0, 3.0], tf.float64
        ),
        "is a tf.Tensor of dtype float32 and shape (1, 3); expected shape (3,)": tf.constant([[1.0, 2.0, 3.0]]),
        "1 of 3 values differ; first at index [2]: got 4, expected 3": tf.constant([1.0, 2.0, 4.0]),
        "should be a tf.Tensor of dtype float32 and shape (3,), but it is a numpy array of dtype float32 and shape (3,) "
        "(tf.constant or tf.convert_to_tensor makes one)": np.ones(3, np.float32),
    }
    for words, value in cases.items():
        with pytest.raises(checks.CheckFailed, match=re.escape(words)):
            checks.assert_close(roundtrip(value), want, name="your function")
    with pytest.raises(checks.CheckFailed, match="values differ"):
        checks.assert_equal(roundtrip(tf.constant([1.0, 2.0, 3.0 + 1e-6])), want)
    checks.assert_close(roundtrip(tf.constant([1.0, 2.0, 3.0], tf.float64)), want, check_dtype=False)


def test_checks_compare_where_ragged_and_sparse_values_sit(tf):
    want_r = roundtrip(tf.ragged.constant([[1, 2], [3]]))
    checks.assert_equal(roundtrip(tf.ragged.constant([[1, 2], [3]])), want_r)
    with pytest.raises(checks.CheckFailed, match=r"rows of lengths \[1, 2\], expected \[2, 1\]"):
        checks.assert_equal(roundtrip(tf.ragged.constant([[1], [2, 3]])), want_r)
    want_s = roundtrip(tf.sparse.SparseTensor([[0, 0], [1, 2]], [1.0, 2.0], [2, 3]))
    checks.assert_close(roundtrip(tf.sparse.SparseTensor([[0, 0], [1, 2]], [1.0, 2.0], [2, 3])), want_s)
    with pytest.raises(checks.CheckFailed, match=r"first stored at another position is number 1 \(got \[1, 1\]"):
        checks.assert_close(roundtrip(tf.sparse.SparseTensor([[0, 0], [1, 1]], [1.0, 2.0], [2, 3])), want_s)
    want_v = roundtrip(tf.Variable([1.0], trainable=False))
    with pytest.raises(checks.CheckFailed, match="trainable=True, expected trainable=False"):
        checks.assert_close(roundtrip(tf.Variable([1.0])), want_v)
    checks.assert_equal(roundtrip([tf.float32, tf.TensorShape([2])]), [wire.TFDType("float32"), wire.TFShape((2,))])
    with pytest.raises(checks.CheckFailed, match="is tf.float64, expected tf.float32"):
        checks.assert_equal(roundtrip(tf.float64), wire.TFDType("float32"))


def test_the_trusted_side_never_imports_tensorflow():
    code = (
        "import sys; import autograder.execute.wire, autograder.judge.checks, autograder.pipeline, "
        "autograder.execute.runner, autograder.cli; "
        "print(sorted(m for m in sys.modules if m.split('.')[0] in ('tensorflow', 'keras', 'tf_keras')))"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=300)
    assert out.returncode == 0, out.stderr
    assert out.stdout.strip() == "[]"
