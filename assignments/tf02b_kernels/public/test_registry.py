import pytest

from autograder.judge.checks import assert_equal, assert_true


def _has(got):
    return got.get("has") if type(got) is dict else got


@pytest.mark.points(2)
@pytest.mark.hint("get_registered_kernels_for_op(name).kernel lists the kernels; each has .device_type and .constraint "
                  "(name 'T', allowed_values.list.type: DataType numbers, compare with dtype.as_datatype_enum).")
def test_softmax_kernels(student, probes):
    """kernel_devices and has_kernel for Softmax: CPU kernels for float32 but not int32"""
    got = student(probes.registry, "Softmax", "CPU", "float32")
    assert_true(type(got) is dict and {"devices", "has"} <= set(got) and type(got["devices"]) is list
                and all(type(d) is str for d in got["devices"]),
                f"kernel_devices('Softmax') should be a list, has_kernel a bool: got {type(got).__name__}.")
    assert_equal("CPU" in got["devices"], True, name="'CPU' in kernel_devices('Softmax')")
    assert_equal(got["devices"] == sorted(set(got["devices"])), True, name="kernel_devices('Softmax') sorted without repeats")
    assert_equal(got["has"], True, name="has_kernel('Softmax', 'CPU', tf.float32)")
    assert_equal(_has(student(probes.registry, "Softmax", "CPU", "int32")), False, name="has_kernel('Softmax', 'CPU', tf.int32)")
    assert_equal(_has(student(probes.registry, "Softmax", "TPU", "float32")), False, name="has_kernel('Softmax', 'TPU', tf.float32)")


@pytest.mark.points(1)
@pytest.mark.hint("The last dimension has stride 1; each one before it, the product of the sizes after it (a size 0 counts as 1).")
def test_dense_strides_known(student, probes):
    """dense_strides of a few shapes"""
    for shape, want in [((2, 3, 4), (12, 4, 1)), ((5,), (1,)), ((3, 0, 2), (2, 2, 1))]:
        assert_equal(student(probes.dense_strides, shape), want, name=f"dense_strides({shape})")
