"""Scores and statuses of one graded submission, and their JSON forms.

`results.json` follows Gradescope's schema (score, max_score, execution_time, output,
tests[] with name/score/max_score/status/output/visibility) so it can be uploaded as is,
extended with what an instructor needs to trust a score: submission hash, assignment
version, seed, torch version, device, determinism flags, isolation level, cell errors.
It is what a student may see, so hidden tests' messages follow the feedback policy; the
full messages go to the instructor-only record.
"""
from __future__ import annotations

from dataclasses import asdict, dataclass, field
from typing import Any

SUBMISSION_STATUSES = ("graded", "invalid", "timeout", "crashed")
TEST_OUTCOMES = ("passed", "partial", "failed", "error", "timeout", "crashed", "skipped")


@dataclass
class TestResult:
    id: str            # "hidden/test_dtypes.py::test_cast[cpu]"
    name: str          # what a student reads: the test's docstring
    exercise: str
    kind: str          # public | hidden
    max_score: float
    score: float
    outcome: str       # one of TEST_OUTCOMES
    message: str = ""  # full message (instructor); students see it per policy
    hint: str = ""
    duration: float = 0.0
    device: str | None = None

    @property
    def file(self) -> str:
        """The test file it comes from, relative to the assignment folder: "hidden/test_dtypes.py"."""
        return self.id.split("::")[0]

    def student_output(self, hidden_policy: str) -> str:
        if self.outcome in ("passed", "skipped") and not self.message:
            return self.message
        if self.kind == "hidden" and hidden_policy == "summary":
            return {"passed": "", "skipped": self.message}.get(self.outcome, self.outcome)
        text = self.message
        if self.hint and self.outcome not in ("passed", "skipped"):
            text += f"\nHint: {self.hint}"
        return text


@dataclass
class CellIssue:
    """A notebook cell that raised, hung, crashed its worker, or used a disabled feature."""

    cell: int
    status: str                  # error | timeout | crashed | note
    type: str = ""
    message: str = ""
    code: str = ""               # the student's cell source, for feedback
    frames: list[dict] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)


@dataclass
class SubmissionResult:
    assignment: str
    submission_id: str
    source: str
    sha256: str
    status: str
    message: str
    tests: list[TestResult]
    cells: list[CellIssue]
    execution_time: float
    environment: dict[str, Any]   # seed_source, secret_fingerprint, torch_version, device, determinism, isolation, versions
    hidden_policy: str = "summary"
    stdout: str = ""
    stderr: str = ""
    problems: list[str] = field(default_factory=list)  # assignment problems found while grading

    @property
    def score(self) -> float:
        return round(sum(t.score for t in self.tests), 4)

    @property
    def max_score(self) -> float:
        return round(sum(t.max_score for t in self.tests), 4)

    def summary_line(self) -> str:
        return f"{self.score:g}/{self.max_score:g} points" + (f" · {self.status}: {self.message}" if self.message else "")

    def to_results_json(self) -> dict[str, Any]:
        """What may be shown to the student (Gradescope schema + extensions)."""
        tests = []
        for i, t in enumerate(self.tests, start=1):
            entry: dict[str, Any] = {
                "name": t.name, "number": str(i), "score": t.score, "max_score": t.max_score,
                "output": t.student_output(self.hidden_policy), "visibility": "visible",
                "tags": [t.exercise, t.kind], "outcome": t.outcome,
            }
            if t.outcome != "skipped":
                entry["status"] = "passed" if t.outcome == "passed" else "failed"
            tests.append(entry)
        return {
            "score": self.score,
            "max_score": self.max_score,
            "execution_time": round(self.execution_time, 3),
            "output": self.summary_line(),
            "visibility": "visible",
            "stdout_visibility": "hidden",
            "tests": tests,
            "status": self.status,
            "message": self.message,
            "assignment": self.assignment,
            "submission_id": self.submission_id,
            "submission_sha256": self.sha256,
            # no seed and no seed source: only a non-invertible fingerprint of the course secret
            **{k: self.environment.get(k) for k in ("assignment_version", "grader_version", "device", "secret_fingerprint",
                                                    "torch_version", "determinism", "isolation")},
            "cell_errors": [asdict(c) for c in self.cells],
        }

    def to_record(self) -> dict[str, Any]:
        """Everything, for the instructor (gradebook, reports)."""
        d = asdict(self)
        d["score"], d["max_score"] = self.score, self.max_score
        return d

    @classmethod
    def from_record(cls, d: dict[str, Any]) -> "SubmissionResult":
        d = dict(d)
        d.pop("score", None)
        d.pop("max_score", None)
        d["tests"] = [TestResult(**t) for t in d["tests"]]
        d["cells"] = [CellIssue(**c) for c in d["cells"]]
        return cls(**d)


def submission_status(*, invalid: bool, tests: list[TestResult], cells: list[CellIssue], out_of_time: bool) -> str:
    """invalid > timeout > crashed > graded: the worst thing that happened, stated once."""
    if invalid:
        return "invalid"
    if out_of_time or any(c.status == "timeout" for c in cells) or any(t.outcome == "timeout" for t in tests):
        return "timeout"
    if any(c.status == "crashed" for c in cells) or any(t.outcome == "crashed" for t in tests):
        return "crashed"
    return "graded"
