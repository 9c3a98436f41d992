import math

import pytest

from autograder.judge.checks import advise, assert_close


@pytest.mark.points(3)
@pytest.mark.hint("Decorate the function you return with @tf.function(input_signature=[tf.TensorSpec([None], tf.float32), ...]); "
                  "standardize divides by tf.math.reduce_std, power_mean is mean(x ** p) ** (1 / p).")
def test_signature_known_values(student, probes):
    """make_standardize() and make_power_mean() on small vectors (p as a tensor, then as a Python float)"""
    got = student(probes.signature_values, [[1.0, 2.0, 3.0], [-1.0, 0.0, 3.0]], [2.0, 1.0])
    s = math.sqrt(2 / 3)
    assert_close(got["standardize"][0], probes.tf_value([-1 / s, 0.0, 1 / s]), name="standardize([1, 2, 3])")
    # power_mean gets |x| + 0.5: [1.5, 2.5, 3.5] then [1.5, 0.5, 3.5]
    assert_close(got["power_mean"][0], probes.tf_value(math.sqrt((1.5 ** 2 + 2.5 ** 2 + 3.5 ** 2) / 3)),
                 name="power_mean([1.5, 2.5, 3.5], tf.constant(2.0))")
    assert_close(got["power_mean"][1], probes.tf_value((1.5 + 0.5 + 3.5) / 3), name="power_mean([1.5, 0.5, 3.5], 1.0)")


@pytest.mark.points(0)
def test_advice_traced_once(student, probes):
    """advice: each function traced once for vectors of several lengths and several exponents"""
    xs = [[1.0, 2.0], [1.0, 2.0, 3.0], [4.0, 1.0, 2.0, 3.0], [0.5, 1.0, 1.5, 2.0, 9.0]]
    got = student(probes.signature_values, xs, [1.0, 2.0, 3.0, 0.5])
    advise(got["tracing_counts"] == [1, 1],
           f"standardize and power_mean traced {got['tracing_counts'][0]} and {got['tracing_counts'][1]} time(s) for four "
           "lengths and exponents: give each an input_signature with a [None] dimension (and a TensorSpec for p), "
           "so one graph serves every call.")
