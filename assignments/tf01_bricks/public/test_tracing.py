import pytest

from autograder.judge.checks import assert_close, assert_equal, assert_true

# g's arguments, in order: (what, the number of traces after the call).  A new shape or dtype of a tensor
# argument traces again, a Python number traces once per value; a matching call reuses its graph.
CALLS = [(("tensor", [1.0, 2.0], "float32"), 1), (("tensor", [3.0, 4.0], "float32"), 1),
         (("tensor", [1.0, 2.0, 3.0], "float32"), 2), (("float", 1.0), 3), (("float", 2.0), 4), (("float", 2.0), 4),
         (("tensor", [1, 2], "int32"), 5), (("tensor", [5.0, 6.0], "float32"), 5)]


@pytest.mark.points(2)
@pytest.mark.hint("Append to the list inside the tf.function's body: Python code there runs only while TensorFlow "
                  "traces (a new shape or dtype, a new Python value), not on calls that reuse a graph.")
def test_make_traced_counts_traces(student, probes):
    """make_traced(f): g returns f(x), and traces grows only when g traces"""
    got = student(probes.traced, "double", [c for c, _ in CALLS])
    what = ("g(x) for x = [1., 2.], [3., 4.], [1., 2., 3.], 1.0, 2.0, 2.0, an int32 [1, 2], [5., 6.]")
    assert_equal(got["traces"], [n for _, n in CALLS], name=f"len(traces) after each call of {what}")
    want = [probes.tf_value([2.0, 4.0]), probes.tf_value([6.0, 8.0]), probes.tf_value([2.0, 4.0, 6.0]),
            probes.tf_value(2.0), probes.tf_value(4.0), probes.tf_value(4.0), probes.tf_value([2, 4], "int32"),
            probes.tf_value([10.0, 12.0])]
    assert_close(got["outputs"], want, name=f"the results of {what} with f(x) = x * 2")


@pytest.mark.points(2)
@pytest.mark.hint("A Python counter inside a tf.function runs only while tracing; count with a tf.Variable's "
                  "assign_add, an op the graph runs on every call.")
def test_call_counter_counts_every_call(student, probes):
    """CallCounter counts every call, traced or not"""
    got = student(probes.call_counter, [[1.0, 2.0], [3.0], [1.0, 1.0], [[1.0, 2.0], [3.0, 4.0]], [2.0]])
    assert_true(got["is_variable"] is True, "CallCounter().calls should be a tf.Variable.")
    assert_close(got["outputs"], [probes.tf_value(v) for v in (3.0, 3.0, 2.0, 10.0, 2.0)],
                 name="the sums returned by five calls")
    assert_close(got["calls"], [probes.tf_value(n, "int64") for n in (1, 2, 3, 4, 5)],
                 name="counter.calls after each of five calls (shapes [2], [1], [2], [2, 2], [1])")
