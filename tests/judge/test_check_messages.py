"""What a student reads when a check fails: their values in words, never the kit's structures."""

import numpy as np
import pytest

from autograder.execute.backend import ProbeError
from autograder.execute.namespace import UNDEFINED, MissingAnswer
from autograder.judge import checks
from autograder.judge.plugin import _classify


def fails(fn, *args, **kw) -> str:
    with pytest.raises(checks.CheckFailed) as e:
        fn(*args, **kw)
    return str(e.value)


@pytest.mark.parametrize("check", [checks.assert_equal, checks.assert_close])
def test_a_raised_error_is_said_in_words(check):
    stub = fails(check, {"error": "NotImplementedError"}, {"out": (5, 4, 3)}, name="broadcast_shape((5, 1, 3), (4, 1))")
    assert stub == (
        "not answered yet: broadcast_shape((5, 1, 3), (4, 1)) still raises NotImplementedError "
        "(replace the `# YOUR CODE HERE` stub with your code)"
    )
    msg = fails(check, {"error": "TypeError", "library_calls": 0}, {"out": (5, 4, 3)}, name="broadcast_shape(a, b)")
    assert msg == "broadcast_shape(a, b): your code raised TypeError; it should return (5, 4, 3)."
    assert (
        fails(check, {"out": 3}, {"error": "ValueError"}, name="f(x)")
        == "f(x) should raise ValueError, but it returned 3."
    )
    assert fails(check, {"out": (5, 4)}, {"out": (5, 4, 3)}, name="g") in (
        "g is (5, 4), expected (5, 4, 3).",
        "g has 2 items, expected 3.",
    )
    for text in (stub, msg):
        assert "{" not in text and "[" not in text.split(")")[-1] and "'" not in text.replace("exercise's", "")


def test_fields_are_named_in_words():
    want = {"at_call": np.ones(3), "after_change": np.ones(3)}
    msg = fails(
        checks.assert_close, {"at_call": np.ones(3), "after_change": np.zeros(3)}, want, name="share(t), then t += 1"
    )
    assert msg.startswith("share(t), then t += 1 (after change): 3 of 3 values differ") and "['" not in msg
    assert (
        fails(checks.assert_close, {"at_call": np.ones(3)}, want, name="share(t)")
        == "share(t) has no value for after change."
    )
    assert "keys" not in fails(checks.assert_equal, {"a": 1, "z": 2}, {"a": 1}, name="r")


def test_an_untouched_stub_is_not_answered_yet():
    err = {
        "type": "NotImplementedError",
        "message": "",
        "frames": [{"cell": 30, "line": 2, "code": "raise NotImplementedError"}],
    }
    outcome, message = _classify(ProbeError(err))
    assert outcome == "failed" and message.startswith("not answered yet") and "cell 30, line 2" in message
    outcome, message = _classify(ProbeError({**err, "type": "ZeroDivisionError", "message": "division by zero"}))
    assert (
        message == "your code raised ZeroDivisionError: division by zero (cell 30, line 2: raise NotImplementedError)"
    )


def test_a_name_no_cell_defined_is_said_as_such():
    """A probe's lookup of a name the notebook never defined (its cell raised first, or was deleted) is not an error of
    the student's code, and reads as what it is; the same error raised inside the student's function (a global it
    uses is missing) says where."""
    missing = str(MissingAnswer("fit"))
    outcome, message = _classify(ProbeError({"type": "MissingAnswer", "message": missing, "frames": []}))
    assert outcome == "failed" and message == missing and message.startswith(UNDEFINED)
    frames = [{"cell": 7, "line": 3, "code": "return helper(x)"}]
    outcome, message = _classify(ProbeError({"type": "MissingAnswer", "message": missing, "frames": frames}))
    assert message == f"your code raised MissingAnswer: {missing} (cell 7, line 3: return helper(x))"


def test_a_global_no_cell_defined_met_in_the_students_code_reads_as_undefined():
    """A function of the notebook's that uses a global no cell defined (the cell that defines it raised before the
    def) raises NameError inside the student's code: said as the probe's lookup of that name is, with where, so
    that `pipeline._prove_variant` owes no proof for it (its message starts with UNDEFINED).  Any other error of
    theirs, an UnboundLocalError included, stays what it is."""
    frames = [{"cell": 23, "line": 6, "code": "ds = make_dataset(X, y)"}]
    err = {"type": "NameError", "message": "name 'make_dataset' is not defined", "frames": frames}
    outcome, message = _classify(ProbeError(err))
    assert outcome == "failed"
    assert message == f"{UNDEFINED} `make_dataset`, which your code uses (cell 23, line 6: ds = make_dataset(X, y))"
    unbound = {**err, "type": "UnboundLocalError", "message": "cannot access local variable 'ds' where it is not"}
    assert _classify(ProbeError(unbound))[1].startswith("your code raised UnboundLocalError")
    other = {**err, "message": "free variable 'ds' referenced before assignment in enclosing scope"}
    assert _classify(ProbeError(other))[1].startswith("your code raised NameError")


def test_a_long_list_says_where_it_differs():
    """A sequence too long to print whole is not "a list, expected a list": the first item that differs, or the lengths."""
    seen = [[False, True]] * 30
    want = [[False, True]] * 12 + [[True, True]] + [[False, True]] * 17
    assert fails(checks.assert_equal, seen, want, name="what the callback saw") == (
        "what the callback saw differs first at item 12 (counting from 0): [False, True], expected [True, True]."
    )
    msg = fails(checks.assert_equal, list(range(40)), list(range(41)), name="the steps")
    assert msg.startswith("the steps has 40 items, expected 41: [0, 1, 2,") and "a list" not in msg


def test_a_tensorflow_value_carried_as_torch_is_named_as_tensorflow_names_it():
    """tf02b's probes carry the ops' outputs back as torch tensors: `as_tf` makes the messages say tf.Tensor and
    TensorFlow's dtype, never torch's (a student of the TensorFlow track never wrote torch.float32)."""
    import torch

    x = torch.arange(6, dtype=torch.float32).reshape(2, 3)
    checks.assert_tf(checks.as_tf(x.clone()), checks.as_tf(x), name="KitSilu")
    for got, said in [
        (x.double(), "KitSilu is a tf.Tensor of dtype float64 and shape (2, 3); expected dtype float32."),
        (x[:1], "KitSilu is a tf.Tensor of dtype float32 and shape (1, 3); expected shape (2, 3)."),
        (x.numpy(), "KitSilu should be a tf.Tensor of dtype float32 and shape (2, 3), but it is a numpy array"),
        (None, "KitSilu should be a tf.Tensor of dtype float32 and shape (2, 3), but it is None."),
    ]:
        msg = fails(checks.assert_tf, checks.as_tf(got), checks.as_tf(x), name="KitSilu")
        assert msg.startswith(said) and "torch" not in msg
    assert checks.as_tf([1, 2]) == [1, 2]  # anything else unchanged: the check says what it is
