import pytest

from autograder.judge.checks import assert_close, assert_true


@pytest.mark.points(3)
@pytest.mark.hint("Nest two tapes: take the first gradient with the inner tape *inside* the outer tape's block, "
                  "then ask the outer tape for the gradient of that gradient.")
def test_derivatives_of_cube(student, probes):
    """derivatives of x**3 at a few points"""
    got = student(probes.derivatives, [1.0, 2.0, -1.0], "cube")
    assert_true(type(got) is tuple and len(got) == 3, "derivatives should return a tuple (y, dy, d2y).")
    want = (probes.tf_value([1.0, 8.0, -1.0]), probes.tf_value([3.0, 12.0, 3.0]), probes.tf_value([6.0, 12.0, -6.0]))
    assert_close(got, want, name="derivatives(x**3) at [1, 2, -1]")
