"""Scores and statuses of one graded submission, and their JSON forms.

`results.json` follows Gradescope's schema (score, max_score, execution_time, output,
tests[] with name/score/max_score/status/output/visibility) so it can be uploaded as is,
extended with what an instructor needs to trust a score: submission hash, assignment
version, seed, torch version, device, determinism flags, isolation level, cell errors.
It is what a student may see, so hidden tests' messages follow the feedback policy; the
full messages go to the instructor-only record.
"""

from __future__ import annotations

import json
from dataclasses import MISSING, asdict, dataclass, field, fields, replace
from typing import Any

import autograder
from autograder.config.assignment import Assignment
from autograder.config.files import writable
from autograder.config.limits import MAX_LONG_TEXT, MAX_OUTPUT, MAX_RESULT_BYTES, clip, clip_frames, clip_notes


def _json_size(x: Any) -> int:
    return len(json.dumps(x, indent=2, default=str))  # ASCII: characters are bytes, as the files hold them at most


OVERRIDE_LINE_ID = "override::whole-submission"  # the line a whole-submission override adds (`grades.overrides`)
RUBRIC_LINE = "rubric::"  # + exercise: the line an exercise's applied rubric items add (`grades.rubric`)
MANUAL_LINE = "manual::"  # + exercise: an exercise graded by hand, its points from its rubric items
SUBMISSION_STATUSES = ("graded", "invalid", "timeout", "crashed")
TEST_OUTCOMES = ("passed", "partial", "failed", "error", "timeout", "crashed", "skipped", "pending")


@dataclass
class TestResult:
    id: str  # "hidden/test_dtypes.py::test_cast[cpu]"
    name: str  # what a student reads: the test's docstring
    exercise: str
    kind: str  # public | hidden
    max_score: float
    score: float
    outcome: str  # one of TEST_OUTCOMES
    message: str = ""  # full message (instructor); students see it per policy
    hint: str = ""
    duration: float = 0.0
    device: str | None = None
    reason: str = ""  # why it failed, naming no input (a cost check's): shown whatever the policy

    @property
    def is_override(self) -> bool:
        """A line staff added, not a test a page lists: a whole-submission override, or an exercise's rubric
        adjustment (`RUBRIC_LINE`); part of the sum, so that everything that sums the tests agrees."""
        return self.id == OVERRIDE_LINE_ID or self.id.startswith(RUBRIC_LINE)

    @property
    def is_manual(self) -> bool:
        """An exercise graded by hand (the manifest's `[manual.EXERCISE]`): pending until a rubric item is applied."""
        return self.id.startswith(MANUAL_LINE)

    @property
    def file(self) -> str:
        """The test file it comes from, relative to the assignment folder: "hidden/test_dtypes.py"."""
        return self.id.split("::")[0]

    def student_output(self, hidden_policy: str) -> str:
        if self.outcome in ("passed", "skipped") and not self.message:
            return self.message
        if self.kind == "hidden" and hidden_policy == "summary":
            said = {"passed": "", "skipped": self.message}.get(self.outcome, self.outcome)
            return f"{said}: {self.reason}" if self.reason and said == self.outcome else said
        text = self.message
        if self.hint and self.outcome not in ("passed", "skipped"):
            text += f"\nHint: {self.hint}"
        return text


@dataclass
class CellIssue:
    """A notebook cell that raised, hung, crashed its worker, or used a disabled feature."""

    cell: int
    status: str  # error | timeout | crashed | note
    type: str = ""
    message: str = ""
    code: str = ""  # the student's cell source, for feedback
    frames: list[dict] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)

    def bounded(self) -> "CellIssue":
        frames, cut = clip_frames(self.frames)
        message = (f"[cut: {cut} more frames] " if cut else "") + self.message
        return replace(
            self,
            type=clip(self.type, 100),
            message=clip(message),
            code=clip(self.code, MAX_LONG_TEXT),
            frames=frames,
            notes=clip_notes(self.notes),
        )

    def summary_only(self) -> "CellIssue":
        return CellIssue(
            self.cell, self.status, clip(self.type, 60), "[cut: this cell's report is past the result's size limit]"
        )


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
    environment: dict[
        str, Any
    ]  # seed_source, secret_fingerprint, torch_version, device, determinism, isolation, versions
    hidden_policy: str = "summary"
    stdout: str = ""
    stderr: str = ""
    problems: list[str] = field(default_factory=list)  # assignment problems found while grading
    provisional: str = ""  # why this result is not final (a grader or host fault): re-graded on the next run
    cell_time: float = 0.0  # of execution_time, wall seconds in the notebook's own cells (the rest: tests, engine)
    slowest_cell_cpu: float = (
        0.0  # CPU seconds of the notebook's slowest finished cell (check-solutions vs cell_timeout)
    )

    def __post_init__(self) -> None:
        """Bound everything the result holds (see MAX_*), whatever the submission sent."""
        self.submission_id, self.source, self.message = (
            writable(self.submission_id),
            clip(self.source),
            clip(self.message),
        )
        self.stdout, self.stderr = clip(self.stdout, MAX_OUTPUT), clip(self.stderr, MAX_OUTPUT)
        self.problems = [clip(p, MAX_LONG_TEXT) for p in self.problems]
        self.tests = [
            replace(
                t, name=clip(t.name), message=clip(t.message, MAX_LONG_TEXT), hint=clip(t.hint), reason=clip(t.reason)
            )
            for t in self.tests
        ]
        # every cell keeps at least its summary; details are kept in order while the whole fits
        full = [c.bounded() for c in self.cells]
        short = [c.summary_only() for c in full]
        self.cells = []
        budget = MAX_RESULT_BYTES - _json_size(asdict(self)) - sum(_json_size([[asdict(c)]]) for c in short)
        for i, c in enumerate(full):
            budget -= _json_size([[asdict(c)]]) - _json_size([[asdict(short[i])]])  # indented as in the record
            if budget < 0:
                full[i:] = short[i:]
                break
        self.cells = full

    @property
    def score(self) -> float:
        return round(sum(t.score for t in self.tests), 4)

    @property
    def max_score(self) -> float:
        return round(sum(t.max_score for t in self.tests), 4)

    def summary_line(self) -> str:
        return f"{self.score:g}/{self.max_score:g} points" + (
            f" · {self.status}: {self.message}" if self.message else ""
        )

    def to_results_json(self) -> dict[str, Any]:
        """What may be shown to the student (Gradescope schema + extensions)."""
        tests = []
        for i, t in enumerate(self.tests, start=1):
            entry: dict[str, Any] = {
                "name": t.name,
                "number": str(i),
                "score": t.score,
                "max_score": t.max_score,
                "output": t.student_output(self.hidden_policy),
                "visibility": "visible",
                "tags": [t.exercise, t.kind],
                "outcome": t.outcome,
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
            **{
                k: self.environment.get(k)
                for k in (
                    "assignment_version",
                    "grader_version",
                    "device",
                    "secret_fingerprint",
                    "torch_version",
                    "determinism",
                    "isolation",
                )
            },
            "cell_errors": [asdict(c) for c in self.cells],
        }

    def to_record(self) -> dict[str, Any]:
        """Everything, for the instructor (gradebook, reports)."""
        d = asdict(self)
        d["score"], d["max_score"] = self.score, self.max_score
        return d

    @classmethod
    def from_record(cls, d: dict[str, Any]) -> "SubmissionResult":
        """A result from a record anyone may have made (a worker's report, a Dask task's): bounded here."""
        return cls(**_fields(d))

    @classmethod
    def from_stored(cls, d: dict[str, Any]) -> "SubmissionResult":
        """A record the kit itself stored (the gradebook, the kept versions) from a result `from_record` or
        the constructor already bounded: read back as it is, without bounding it again (a class's first
        page reads a thousand).  Never for anything a worker sent."""
        d = _fields(d)
        unknown = d.keys() - _FIELDS.keys()
        if unknown:
            raise TypeError(f"unexpected fields in a stored result: {', '.join(sorted(unknown))}")
        r = object.__new__(cls)
        for name, f in _FIELDS.items():
            if name in d:
                r.__dict__[name] = d[name]
            elif f.default is not MISSING:
                r.__dict__[name] = f.default
            elif f.default_factory is not MISSING:
                r.__dict__[name] = f.default_factory()
            else:
                raise TypeError(f"a stored result has no {name!r}")
        return r


def _fields(d: dict[str, Any]) -> dict[str, Any]:
    """A record's fields as the constructor takes them (its computed score and max_score dropped)."""
    d = dict(d)
    d.pop("score", None)
    d.pop("max_score", None)
    d["tests"] = [TestResult(**t) for t in d["tests"]]
    d["cells"] = [CellIssue(**c) for c in d["cells"]]
    return d


_FIELDS = {f.name: f for f in fields(SubmissionResult)}


def submission_status(*, invalid: bool, tests: list[TestResult], cells: list[CellIssue], out_of_time: bool) -> str:
    """invalid > timeout > crashed > graded: the worst thing that happened, stated once."""
    if invalid:
        return "invalid"
    if out_of_time or any(c.status == "timeout" for c in cells) or any(t.outcome == "timeout" for t in tests):
        return "timeout"
    if any(c.status == "crashed" for c in cells) or any(t.outcome == "crashed" for t in tests):
        return "crashed"
    return "graded"


WORSE = {"graded": 0, "crashed": 1, "timeout": 2, "invalid": 3}  # a status, by how bad it is


def tests_to_rerun(stored: SubmissionResult, assignment: Assignment) -> list[str] | None:
    """The test files a re-grade of an unchanged notebook must run after the assignment changed,
    or None when nothing of the stored grade may be kept (a change outside the test files).

    Kept: results of test files whose content did not change.  Run again: changed and new files,
    and files with a test that timed out or crashed (those depend on the machine, not the notebook)."""
    env = stored.environment
    if env.get("base_version") != assignment.base_version() or env.get("grader_version") != autograder.__version__:
        return None
    old, now = env.get("test_files") or {}, assignment.test_files()
    flaky = {t.file for t in stored.tests if t.outcome in ("timeout", "crashed")}
    return [f for f, digest in now.items() if old.get(f) != digest or f in flaky]


def in_file_order(assignment: Assignment, tests: list[TestResult]) -> list[TestResult]:
    """`tests` in the assignment's test-file order (stable: each file keeps its own order)."""
    order = {f: i for i, f in enumerate(assignment.test_files())}
    return sorted(tests, key=lambda t: order.get(t.file, len(order)))


def combine(assignment: Assignment, parts: list[SubmissionResult]) -> SubmissionResult:
    """One result from gradings of the same notebook on disjoint sets of test files (the reference
    pass split over the judges): tests in the assignment's file order, the worst status, every problem."""
    tests = in_file_order(assignment, [t for p in parts for t in p.tests])
    status = max((p.status for p in parts), key=WORSE.__getitem__)
    return replace(
        parts[0],
        tests=tests,
        status=status,
        message=next((p.message for p in parts if p.message), ""),
        problems=[x for p in parts for x in p.problems] or ([] if tests else ["no tests were collected"]),
        provisional=next((p.provisional for p in parts if p.provisional), ""),
        execution_time=max(p.execution_time for p in parts),
    )
