"""The end-of-run table names a cell the way feedback pages and validate do (notebook.cells.cell_name)."""

import io

from autograder.grades.rows import grade_rows
from autograder.judge.results import CellIssue, SubmissionResult
from autograder.judge.session import _status_message
from autograder.notebook.cells import cell_name
from autograder.report.feedback import student_view
from autograder.report.table import print_table, rows

LOOP = "while True:  # wait for the data\n    pass\n"


def _result(status: str, cells: list[CellIssue]) -> SubmissionResult:
    return SubmissionResult(
        assignment="01_tensors",
        submission_id="alice",
        source="alice.ipynb",
        sha256="0" * 64,
        status=status,
        message=_status_message(status, cells),
        tests=[],
        cells=cells,
        execution_time=3.0,
        environment={},
    )


def test_a_stopped_cell_is_named_by_position_and_first_line():
    hung = _result("timeout", [CellIssue(cell=27, status="timeout", code=LOOP)])
    name = cell_name(27, LOOP)
    assert name == "cell 27 (while True:  # wait for the data)"
    assert hung.message == f"{name} did not finish in time; it was skipped and the rest graded"
    assert rows(grade_rows([hung]))[0][4] == hung.message  # whole in the table, not cut before what happened
    out = io.StringIO()
    print_table(grade_rows([hung]), "01_tensors", stream=out)
    assert "while True:" in out.getvalue() and "did not finish" in out.getvalue()
    view = student_view(hung)
    assert [c.name for c in view["cells"]] == [name]  # the feedback page's name for the same cell
    dead = _result("crashed", [CellIssue(cell=4, status="crashed", code="import os\nos._exit(3)")])
    assert dead.message == "cell 4 (import os) crashed the worker; it was skipped and the rest graded"
