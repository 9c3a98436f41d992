"""SubmissionResult objects built directly (no grading), for the export/feedback/passback tests."""

from __future__ import annotations

from autograder.judge.results import CellIssue, SubmissionResult, TestResult

ENV = {
    "assignment_version": "3e0d9b0c7f1a2b44",
    "grader_version": "0.1.0",
    "device": "cpu",
    "seed_source": "env",
    "secret_fingerprint": "0123456789abcdef",
    "torch_version": "2.13.0+cpu",
    "determinism": {"use_deterministic_algorithms": "warn_only", "cudnn_benchmark": False, "threads": 1},
    "isolation": "bubblewrap",
}

TESTS = [  # id, name, exercise, kind, max
    ("public/test_double.py::test_double_small", "double() on a known vector", "double", "public", 1.0),
    ("hidden/test_double.py::test_double_random", "double() agrees with the reference", "double", "hidden", 3.0),
    ("hidden/test_double.py::test_double_partial", "double() keeps the dtype", "double", "hidden", 2.0),
    ("hidden/test_double.py::test_answer", "ANSWER is right", "answer", "hidden", 2.0),
    ("hidden/test_later.py::test_later", "later() works", "later", "hidden", 2.0),
]


def result(
    sid: str,
    fractions=(1, 1, 1, 1, 1),
    *,
    status="graded",
    message="",
    policy="summary",
    hidden_msg="tensors differ at index 3: got 5.0, expected 6.0",
    cells=None,
    time=3.0,
) -> SubmissionResult:
    tests = []
    for (tid, name, ex, kind, mx), frac in zip(TESTS, fractions):
        outcome = frac if isinstance(frac, str) else ("passed" if frac == 1 else "partial" if frac > 0 else "failed")
        score = mx * (frac if not isinstance(frac, str) else 0)
        msg = "" if outcome == "passed" else (hidden_msg if kind == "hidden" else "expected [2., 4.], got [1., 2.]")
        hint = "Multiplying a tensor by a Python number is elementwise." if kind == "public" else ""
        tests.append(TestResult(tid, name, ex, kind, mx, score, outcome, msg, hint, duration=0.1))
    return SubmissionResult(
        assignment="toy",
        submission_id=sid,
        source=f"{sid}.ipynb",
        sha256="ab" * 32,
        status=status,
        message=message,
        tests=tests,
        cells=cells or [],
        execution_time=time,
        environment=dict(ENV),
        hidden_policy=policy,
    )


def cell_error() -> CellIssue:
    return CellIssue(
        cell=3,
        status="error",
        type="ZeroDivisionError",
        message="division by zero",
        code="x = 1 / 0  # <script>alert(1)</script>",
        frames=[{"line": 1}],
    )


def grader_failure(sid: str) -> SubmissionResult:
    return SubmissionResult(
        assignment="toy",
        submission_id=sid,
        source=f"{sid}.ipynb",
        sha256="",
        status="crashed",
        message="the grader itself failed on this submission",
        tests=[],
        cells=[],
        execution_time=0.0,
        environment=dict(ENV),
        problems=["Traceback ..."],
    )
