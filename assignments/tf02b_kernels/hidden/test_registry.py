import pytest
import torch

from autograder.judge.checks import assert_close, assert_equal, assert_true

# ops with kernels on several device types and dtype constraints that differ between them
OPS = ("Softmax", "MatMul", "AddV2", "Cumsum", "Relu", "Sqrt", "BiasAdd", "Cast", "Transpose", "ArgMax")
DEVICES = ("CPU", "GPU", "XLA_CPU_JIT", "TPU")
DTYPES = ("float32", "float64", "int32", "int64", "bool", "float16", "complex64", "string")


@pytest.mark.points(4)
def test_kernel_lookup_random(student, reference, probes, rng, helpers):
    """kernel_devices and has_kernel agree with TensorFlow's kernel registry on random ops, devices and dtypes.  The
    registry only grows as TensorFlow loads parts of itself, so the probe reads it beside the student's answer; what
    a worker says the registry holds is its own claim, so it must hold at least what the master's worker read"""
    # fixed edges: a device with no kernel, a dtype outside the constraint, and kernels with no constraint on T
    # (Identity's and Reshape's CPU kernels accept any dtype), which a random op, device and dtype rarely draw
    asks = [("Softmax", "TPU", "float32"), ("Softmax", "CPU", "int32"), ("Identity", "CPU", "string"),
            ("Reshape", "CPU", "complex64")]
    for _ in range(8):
        asks.append((OPS[helpers.randint(rng, 0, len(OPS) - 1)], DEVICES[helpers.randint(rng, 0, len(DEVICES) - 1)],
                     DTYPES[helpers.randint(rng, 0, len(DTYPES) - 1)]))
    for op, device, dtype in asks:
        got = student(probes.registry, op, device, dtype)
        assert_true(type(got) is dict and {"devices", "has", "registry_devices", "registry_has"} <= set(got),
                    f"kernel_devices / has_kernel for {op!r}: no answer ({type(got).__name__}).")
        want = reference(probes.registry, op, device, dtype)
        seen = got["registry_devices"]
        assert_true(type(seen) is list and all(type(d) is str for d in seen) and set(want["registry_devices"]) <= set(seen)
                    and type(got["registry_has"]) is bool and got["registry_has"] >= want["registry_has"],
                    f"kernel_devices / has_kernel for {op!r}: the registry read beside your answer is not TensorFlow's.")
        assert_close(got["devices"], seen, name=f"kernel_devices({op!r})")
        assert_equal(got["has"], got["registry_has"], name=f"has_kernel({op!r}, {device!r}, tf.{dtype})")


@pytest.mark.points(3)
def test_dense_strides_random(student, probes, rng, helpers):
    """dense_strides gives the row-major element strides of random shapes, zero-size dimensions included"""
    for _ in range(6):
        shape = [helpers.randint(rng, 0 if helpers.randint(rng, 0, 3) == 0 else 1, 6) for _ in range(helpers.randint(rng, 1, 5))]
        want = tuple(torch.empty([max(s, 1) for s in shape]).stride())
        assert_equal(student(probes.dense_strides, shape), want, name=f"dense_strides({tuple(shape)})")


