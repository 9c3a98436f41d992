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


# A trace costs ~15-20 ms of CPU; a graph call a fraction of one.  Over 40 new lengths and 40 new Python-float
# exponents a function that retraces per call spends 0.6 s or more, one traced once a few hundredths.
N_CALLS = 40


@pytest.mark.points(4)
def test_no_retracing(student, reference, probes, seed):
    """standardize and power_mean trace once: the CPU time the grader measures over 40 new lengths and exponents (and the right values)"""
    reference(probes.signature_warm)
    want = reference(probes.signature_many, N_CALLS, seed % 100_000)
    student(probes.signature_warm)
    got = assert_loop_free(student, probes.signature_many, N_CALLS, seed % 100_000, reference_cpu=want["cpu"],
                           name=f"{N_CALLS} calls of standardize and of power_mean with new lengths and exponents",
                           advice="they trace a new graph on each call. Give each an input_signature "
                                  "(tf.TensorSpec([None], tf.float32), and tf.TensorSpec([], tf.float32) for p).")
    for key in ("standardize", "power_mean"):
        assert_close(got[key], want[key], name=f"{key} over {N_CALLS} calls", rtol=1e-5, atol=1e-5)
