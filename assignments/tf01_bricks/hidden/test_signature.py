import pytest
import torch

from autograder.judge.checks import assert_close, assert_loop_free


@pytest.mark.points(3)
def test_signature_values_random(student, reference, probes, rng):
    """standardize and power_mean agree with the reference on vectors of random lengths"""
    xs = [torch.randn(int(torch.randint(2, 30, (), generator=rng)), generator=rng) * 3 for _ in range(6)]
    ps = [float(torch.empty(()).uniform_(0.5, 4.0, generator=rng)) for _ in range(6)]
    got, want = student(probes.signature_values, xs, ps), reference(probes.signature_values, xs, ps)
    for key in ("standardize", "power_mean"):
        assert_close(got[key], want[key], name=f"{key} on six random vectors", rtol=1e-5, atol=1e-5)


# A trace costs ~15 ms of CPU; a call of a traced graph well under 1 ms.  Over 60 new lengths (or 60 new Python-float
# exponents) a function that retraces on each call spends 0.8 s or more, one traced once about 0.02 s
# (assert_loop_free's limit: 0.15 s, or 10 x the reference's own cost).
N_CALLS = 60


@pytest.mark.points(4)
def test_no_retracing(student, reference, probes, seed):
    """standardize and power_mean trace once: the CPU time the grader measures over 60 new lengths and 60 new exponents (and the right values)"""
    reference(probes.signature_warm)
    student(probes.signature_warm)
    for name, what in [("standardize", "vectors of 60 new lengths"), ("power_mean", "60 new Python-float exponents p")]:
        want = reference(probes.signature_many, name, N_CALLS, seed % 100_000)
        # a retrace costs about 12 of these calls (a loop 10-100): power_mean without its signature took 0.33 s against
        # 10 x the reference's 0.027 s, and kept its points when the reference was measured on a loaded machine
        got = assert_loop_free(student, probes.signature_many, name, N_CALLS, seed % 100_000, reference_cpu=want["cpu"],
                               name=f"{name} on {what}", ratio=4,
                               advice=f"{name} traces a new graph on each call. Give it an input_signature "
                                      "(tf.TensorSpec([None], tf.float32) for x, tf.TensorSpec([], tf.float32) for p).")
        assert_close(got["values"], want["values"], name=f"{name} on {what}", rtol=1e-5, atol=1e-5)
