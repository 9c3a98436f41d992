"""The score table goes to the `sys.stdout` of the moment, not the one of import time.

A default bound at import keeps whatever stream was `sys.stdout` then: imported under a test's captured
output, every later `autograder grade` in the same process wrote to that closed stream and failed
("I/O operation on closed file")."""

import importlib
import io
import sys


def test_default_stream_is_the_stdout_of_the_call(monkeypatch):
    at_import = io.StringIO()
    monkeypatch.setattr(sys, "stdout", at_import)
    import autograder.report.table as table

    table = importlib.reload(table)
    at_import.close()
    now = io.StringIO()
    monkeypatch.setattr(sys, "stdout", now)
    table.print_table([], "an empty class")
    assert "student" in now.getvalue()
