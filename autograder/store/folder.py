"""OUT, the results folder, read back as grades: the gradebook's results, the identities the LMS wrote at
intake and every kept version (`store.history`), offered to `grades.rows.read_grades` as its `Stored`.

Grades come before the store in the pipeline (what counts is decided without knowing how it is kept); this
is where the two meet, so every face reads one assignment's grades with `assignment_grades` and nothing
else opens the folder's files to compute them."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from autograder.config.assignment import load_assignment
from autograder.grades.counting import Version
from autograder.grades.rows import AssignmentGrades, read_grades
from autograder.grades.rubric import Marks
from autograder.intake.roster import Identity, read_identities, record_identities
from autograder.judge.results import SubmissionResult
from autograder.store.database import Gradebook, gradebook_path
from autograder.store.history import folder, versions
from autograder.store.marks import Marks as MarkStore

IDENTITIES = "identities.json"  # per assignment: who each submission is, as intake found it


def identities_path(out: Path, assignment: str) -> Path:
    return Path(out) / assignment / IDENTITIES


class ResultsFolder:
    """One results folder, as `grades.rows.Stored`."""

    def __init__(self, out: Path) -> None:
        self.out = out.resolve()

    @property
    def gradebook(self) -> Path:
        return gradebook_path(self.out)

    def results(self, assignment: str) -> list[SubmissionResult]:
        gb = Gradebook(self.gradebook)
        try:
            return gb.all(assignment)
        finally:
            gb.close()

    def identities(self, assignment: str) -> dict[str, Identity]:
        return read_identities(identities_path(self.out, assignment))

    def record_identities(self, assignment: str, found: dict[str, Identity]) -> None:
        """What one intake found, added to what earlier intakes of the assignment recorded."""
        record_identities(identities_path(self.out, assignment), found)

    def marks(self, assignment: str, submission_id: str | None = None) -> Marks:
        return MarkStore(self.out).marks(assignment, submission_id)

    def versions(self, assignment: str, submission_id: str) -> list[Version]:
        return versions(self.out, assignment, submission_id)

    def record(self, assignment: str, submission_id: str, sha256: str) -> SubmissionResult:
        d = json.loads((folder(self.out, assignment, submission_id) / f"{sha256}.json").read_text(encoding="utf-8"))
        return SubmissionResult.from_stored(d["record"])


def assignment_grades(
    kit: Path, assignment: str, out: Path, *, roster_csv: Path | None = None, course: Any = None
) -> AssignmentGrades:
    """One assignment's grades as every command shows and exports them (`grades.rows.read_grades`), read
    from the results folder `out`."""
    return read_grades(load_assignment(assignment, kit), ResultsFolder(out), roster_csv=roster_csv, course=course)
