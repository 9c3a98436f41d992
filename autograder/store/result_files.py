"""Per-submission result files: OUT/ASSIGNMENT/<id>/results.json and instructor.json, written atomically."""

from __future__ import annotations

from pathlib import Path

from autograder.config.files import write_json
from autograder.judge.results import SubmissionResult


def write_submission(out: Path, result: SubmissionResult) -> Path:
    """DIR/ASSIGNMENT/<id>/results.json (student-safe) and instructor.json (everything)."""
    folder = out / result.assignment / result.submission_id
    write_json(folder / "instructor.json", result.to_record())
    write_json(folder / "results.json", result.to_results_json())
    return folder
