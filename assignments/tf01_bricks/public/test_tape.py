import pytest

from autograder.judge.checks import advise, assert_close, assert_true


@pytest.mark.points(2)
@pytest.mark.hint("A tape records a constant only after tape.watch(x); without it the gradient is None.")
def test_value_and_grad_of_a_constant(student, probes):
    """value_and_grad of sum(x**2) at a constant x"""
    got = student(probes.value_and_grad, [1.0, -2.0, 3.0], "square_sum")
    result = got["result"]
    assert_true(type(result) is tuple and len(result) == 2, "value_and_grad should return a pair (f(x), df/dx).")
    assert_close(result[0], probes.tf_value(14.0), name="f(x) for f = sum(x**2) at x = [1, -2, 3]")
    assert_close(result[1], probes.tf_value([2.0, -4.0, 6.0]), name="df/dx for f = sum(x**2) at x = [1, -2, 3]")


@pytest.mark.points(2)
@pytest.mark.hint("A tape answers one gradient call unless it is made with tf.GradientTape(persistent=True).")
def test_two_grads_from_one_tape(student, probes):
    """two_grads of sum(x**2) and sum(x**3 - 2x) under one tape"""
    got = student(probes.two_grads, [1.0, 2.0], "square_sum", "poly")
    assert_close(got["result"], (probes.tf_value([2.0, 4.0]), probes.tf_value([1.0, 10.0])),
                 name="(df/dx, dg/dx) for f = sum(x**2), g = sum(x**3 - 2x) at x = [1, 2]")


@pytest.mark.points(0)
def test_advice_each_function_once(student, probes):
    """advice: two_grads runs f and g once each, under one tape"""
    got = student(probes.two_grads, [1.0, 2.0], "square_sum", "poly")
    advise(got["calls"] == [1, 1], f"two_grads called f {got['calls'][0]} time(s) and g {got['calls'][1]} time(s): "
                                   "record both once under one persistent tape and ask it for two gradients.")
