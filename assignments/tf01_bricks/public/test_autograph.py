import pytest

from autograder.judge.checks import advise, assert_close

XS = [[1.0, 2.0, -1.0, 5.0], [1.5, 2.5], [], [-1.0, 2.0], [0.0, 3.0, 4.0, -0.5, 9.0]]
SUMS = [3.0, 4.0, 0.0, 0.0, 7.0]


@pytest.mark.points(3)
@pytest.mark.hint("Inside a tf.function, `for v in x:` and `if v < 0: break` on tensors become a tf.while_loop "
                  "(AutoGraph); keep the running total a tensor (total = tf.constant(0.0)).")
def test_prefix_sum_known_values(student, probes):
    """prefix_sum called directly and through one graph traced for any length"""
    got = student(probes.prefix_sum, XS)
    want = [probes.tf_value(s) for s in SUMS]
    assert_close(got["direct"], want, name="prefix_sum of [1, 2, -1, 5], [1.5, 2.5], [], [-1, 2], [0, 3, 4, -0.5, 9]")
    assert_close(got["graph"], want, name="the same through prefix_sum.get_concrete_function(tf.TensorSpec([None], tf.float32))")


@pytest.mark.points(0)
def test_advice_loop_in_the_graph(student, probes):
    """advice: the traced graph holds a while loop"""
    got = student(probes.prefix_sum, XS)
    advise(bool(got["loop_ops"]), "the graph of prefix_sum holds no while loop: a Python `for` over a tensor inside a "
                                  "tf.function becomes one (AutoGraph).")
