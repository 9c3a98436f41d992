from autograder.judge.results import SubmissionResult
from autograder.report.progress import progress


def _result(sid: str) -> SubmissionResult:
    return SubmissionResult(
        assignment="a",
        submission_id=sid,
        source=sid,
        sha256="",
        status="graded",
        message="",
        tests=[],
        cells=[],
        execution_time=0.1,
        environment={},
    )


def test_plain_lines_when_not_a_terminal(capsys):
    with progress(2, "grading a", interactive=False) as on_result:
        on_result(_result("alice"), False)
        on_result(_result("bob"), True)
    assert capsys.readouterr().err.splitlines() == ["alice\t0/0\tgraded", "bob\t0/0\tgraded\treused"]


def test_bar_on_a_terminal_counts_results(capsys):
    with progress(2, "grading a", interactive=True) as on_result:
        on_result(_result("alice"), False)
        on_result(_result("bob"), False)
    out = capsys.readouterr().out
    assert "2/2" in out and "/min" in out
