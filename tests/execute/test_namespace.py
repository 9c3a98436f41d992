import builtins

import pytest

from autograder.execute.namespace import MissingAnswer, StudentNamespace, cell_filename, describe_exception


def test_builtins_and_name_errors_work_in_student_namespace():
    ns = StudentNamespace(__name__="__main__", __builtins__=builtins)
    exec("x = len(range(3))\nclass A:\n    def f(self):\n        return super().__init__ is not None\nok = A().f()", ns)
    assert ns["x"] == 3 and ns["ok"] is True
    with pytest.raises(NameError):
        exec("undefined_name + 1", ns)


def test_missing_answer_message():
    ns = StudentNamespace()
    with pytest.raises(MissingAnswer) as e:
        ns["sigmoid"]
    assert "does not define `sigmoid`" in str(e.value)


def test_describe_exception_keeps_cell_frames():
    try:
        src = "def f():\n    return 1 / 0\nf()"
        exec(compile(src, cell_filename(7, src), "exec"), {})
    except ZeroDivisionError as exc:
        d = describe_exception(exc)
    assert d["type"] == "ZeroDivisionError" and d["frames"][-1] == {"cell": 7, "line": 2, "code": "return 1 / 0"}
