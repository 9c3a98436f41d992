import numpy as np
import pytest

from autograder.judge.checks import assert_close, assert_equal, assert_true, tf_device

DEVICES = ["/device:CPU:1", "/device:CPU:2", "/device:CPU:0"]


def _results(got, first, rest, call):
    assert_true(first in got, f"{call} should return a pair (result, list of the per-device pieces), but it "
                              f"returned {got.get('shape_of_result')}.")
    pieces = got[rest]
    assert_true(isinstance(pieces, list) and all(p.get("type") == "Tensor" for p in pieces) and len(pieces) == 3,
                f"{call}: the pieces should be a list of 3 tf.Tensors, one per device.")
    return got[first], pieces


@pytest.mark.points(3)
@pytest.mark.hint("Split with tf.split(x, chunk_sizes(n, k)); reduce each chunk inside `with tf.device(devices[i]):` "
                  "and add the partials with tf.add_n inside `with tf.device(devices[0]):`.")
def test_parallel_sum_small(student, probes):
    """parallel_sum of 10 rows over CPU:1, CPU:2, CPU:0 (4, 3 and 3 rows)"""
    x = np.arange(30, dtype=np.float32).reshape(10, 3)
    call = "parallel_sum(x of 10 rows, ['/device:CPU:1', '/device:CPU:2', '/device:CPU:0'])"
    total, partials = _results(student(probes.parallel_sum, x, DEVICES), "total", "partials", call)
    for i, (p, rows) in enumerate(zip(partials, (x[:4], x[4:7], x[7:]))):
        assert_close(p["value"], rows.sum(axis=0), name=f"partials[{i}] of {call}")
        assert_equal(tf_device(p["device"]), DEVICES[i], name=f"the device of partials[{i}] of {call}")
    assert_close(total["value"], x.sum(axis=0), name=f"the total of {call}")
    assert_equal(tf_device(total["device"]), DEVICES[0], name=f"the device of the total of {call}")


@pytest.mark.points(3)
@pytest.mark.hint("The same split of A's rows; each chunk @ B on its device; tf.concat(parts, axis=0) on devices[0].")
def test_parallel_matmul_small(student, probes):
    """parallel_matmul of a 7 x 2 by 2 x 3 product over CPU:1, CPU:2, CPU:0 (3, 2 and 2 rows)"""
    A = np.arange(14, dtype=np.float32).reshape(7, 2) / 4
    B = np.array([[1.0, 0.0, -1.0], [2.0, 0.5, 0.0]], dtype=np.float32)
    call = "parallel_matmul(A of 7 rows, B, ['/device:CPU:1', '/device:CPU:2', '/device:CPU:0'])"
    C, parts = _results(student(probes.parallel_matmul, A, B, DEVICES), "C", "parts", call)
    for i, (p, rows) in enumerate(zip(parts, (A[:3], A[3:5], A[5:]))):
        assert_close(p["value"], rows @ B, name=f"parts[{i}] of {call}")
        assert_equal(tf_device(p["device"]), DEVICES[i], name=f"the device of parts[{i}] of {call}")
    assert_close(C["value"], A @ B, name=f"C of {call}")
    assert_equal(tf_device(C["device"]), DEVICES[0], name=f"the device of C of {call}")
