"""The release's stub is one concept (`notebook/stub.py`): what release writes is what every reader knows again."""

from autograder.notebook.stub import ERROR, NOT_ANSWERED, PATTERN, not_answered
from autograder.student.release import strip_solutions


def test_the_released_stub_is_known_again_and_raises_its_error():
    released = strip_solutions("def f(x):\n    ### BEGIN SOLUTION\n    return 2 * x\n    ### END SOLUTION\n\ny = 1\n")
    assert released == "def f(x):\n    # YOUR CODE HERE\n    raise NotImplementedError()\n\ny = 1\n"
    assert PATTERN.search(released) and not PATTERN.search("def f(x):\n    return 2 * x\n")
    ns: dict = {}
    exec(released, ns)
    try:
        ns["f"](1)
    except Exception as exc:  # noqa: BLE001
        assert type(exc).__name__ == ERROR
    else:
        raise AssertionError("the stub returned")


def test_not_answered_names_what_still_raises():
    assert not_answered([]) == (
        f"{NOT_ANSWERED}: this exercise still raises NotImplementedError "
        "(replace the `# YOUR CODE HERE` stub with your code)"
    )
    assert not_answered(["`f`", "`g`"]).startswith(f"{NOT_ANSWERED}: `f`, `g` still raise NotImplementedError")
