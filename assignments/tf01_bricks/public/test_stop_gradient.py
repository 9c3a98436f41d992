import pytest

from autograder.judge.checks import assert_close


@pytest.mark.points(3)
@pytest.mark.hint("tf.stop_gradient(t) has the value of t and no gradient: add to x a correction the tape must not "
                  "differentiate, so the value is round(x) and the gradient that of x.")
def test_straight_through_known_values(student, probes):
    """straight_through_round: rounded values, identity gradient"""
    got = student(probes.straight_through, [0.2, 1.7, -2.6, 3.0], [1.0, 2.0, 3.0, -1.0])
    assert_close(got["y"], probes.tf_value([0.0, 2.0, -3.0, 3.0]), name="straight_through_round([0.2, 1.7, -2.6, 3.0])")
    assert_close(got["grad"], probes.tf_value([1.0, 2.0, 3.0, -1.0]),
                 name="the gradient of sum(v * straight_through_round(x)) for v = [1, 2, 3, -1] (it should be v)")
