import pytest

from autograder.judge.checks import assert_equal


@pytest.mark.points(2)
@pytest.mark.hint("Stop exactly when len(values) - best_index(values, mode) > patience.")
def test_book_example(student, probes):
    """the example of the notebook: val losses 5, 3, 4, 4 with patience 2"""
    got = student(probes.early, [5.0, 3.0, 4.0, 4.0], 2, "min")
    assert_equal(got, [[0, False], [1, False], [1, False], [1, True]],
                 name="[best_index, should_stop] after each epoch")


@pytest.mark.points(1)
@pytest.mark.hint("In mode 'max' larger is better; on ties the earliest index stays the best.")
def test_max_mode_with_ties(student, probes):
    """mode 'max' with a tie: 1, 3, 3, 2 with patience 1"""
    got = student(probes.early, [1.0, 3.0, 3.0, 2.0], 1, "max")
    assert_equal(got, [[0, False], [1, False], [1, True], [1, True]],
                 name="[best_index, should_stop] after each epoch")
