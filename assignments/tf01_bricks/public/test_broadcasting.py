import pytest

from autograder.judge.checks import assert_close


@pytest.mark.points(1)
@pytest.mark.hint("Reduce over the rows (axis 0) with keepdims=True so the means broadcast across each column.")
def test_center_columns_known_values(student, probes):
    """center_columns of a 2x3 matrix"""
    got = student(probes.center_columns, [[1.0, 2.0, 0.0], [3.0, 6.0, 5.0]])
    assert_close(got, probes.tf_value([[-1.0, -2.0, -2.5], [1.0, 2.0, 2.5]]), name="center_columns([[1, 2, 0], [3, 6, 5]])")


@pytest.mark.points(2)
@pytest.mark.hint("Insert size-1 axes (x[:, None, :] or tf.expand_dims) so that the difference broadcasts to "
                  "[n, m, d], then sum the squares over the last axis.")
def test_pairwise_sq_dists_known_values(student, probes):
    """pairwise_sq_dists of 3 points against 2"""
    a = [[0.0, 0.0], [1.0, 1.0], [2.0, 0.0]]
    b = [[1.0, 0.0], [0.0, 3.0]]
    got = student(probes.pairwise_sq_dists, a, b)
    assert_close(got, probes.tf_value([[1.0, 9.0], [1.0, 5.0], [1.0, 13.0]]), name="pairwise_sq_dists of 3 points against 2")
