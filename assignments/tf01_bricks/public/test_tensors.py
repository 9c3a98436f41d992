import pytest

from autograder.judge.checks import assert_close, assert_true


@pytest.mark.points(1)
@pytest.mark.hint("A tf.Variable changes in place with v.assign(...); return the variable you were given.")
def test_scale_in_place_known_values(student, probes):
    """scale_in_place multiplies the variable it was given, in place"""
    got = student(probes.scale_in_place, [[1.0, -2.0], [0.5, 4.0]], 3.0)
    assert_true(got["same"] is True, "scale_in_place should return the variable it was given (the same object), "
                                     "changed in place with assign, not a new tensor or a new variable.")
    assert_close(got["value"], probes.tf_value([[3.0, -6.0], [1.5, 12.0]], kind="Variable"),
                 name="the variable [[1, -2], [0.5, 4]] after scale_in_place(v, 3.0)")


@pytest.mark.points(2)
@pytest.mark.hint("v.assign_add(x) adds in place; a list holding v itself shows its latest value everywhere: "
                  "append a snapshot, v.read_value().")
def test_running_sum_known_values(student, probes):
    """running_sum adds in place and returns a snapshot after each addition"""
    got = student(probes.running_sum, [0.0, 0.0], [[1.0, 2.0], [3.0, 4.0], [-1.0, 0.5]])
    want = [probes.tf_value([1.0, 2.0]), probes.tf_value([4.0, 6.0]), probes.tf_value([3.0, 6.5])]
    assert_close(got["snapshots"], want, name="the snapshots of running_sum([0, 0], [[1, 2], [3, 4], [-1, 0.5]])")
    assert_close(got["final"], probes.tf_value([3.0, 6.5], kind="Variable"), name="the variable after running_sum")


@pytest.mark.points(1)
@pytest.mark.hint("The mean of an integer tensor is an integer in TensorFlow: tf.cast to float32 first.")
def test_int_mean_known_values(student, probes):
    """int_mean of small int32 tensors"""
    assert_close(student(probes.int_mean, [1, 2], "int32"), probes.tf_value(1.5), name="int_mean([1, 2])")
    assert_close(student(probes.int_mean, [[1, 2, 4], [7, 0, 0]], "int64"), probes.tf_value(14 / 6),
                 name="int_mean([[1, 2, 4], [7, 0, 0]]) (int64)")
