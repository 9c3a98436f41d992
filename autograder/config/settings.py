"""How a class is graded and where its results are kept: one typed object, built by a face (a command from its
flags and the course file, the nbgrader interop, the bench, a test) and handed to `pipeline.grade`.  Nothing
below the faces reads a command line or the environment for these: what a layer needs travels in here."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

from autograder.config.course import PER_STUDENT, Course
from autograder.config.secret import Secret

DEVICES = ("auto", "cpu", "cuda")


class SettingsError(ValueError):
    """Settings the kit cannot grade with (a face shows it as a usage error)."""


@dataclass(frozen=True)
class GradeSettings:
    out: Path = Path("results")  # the results folder (the store's)
    jobs: int = 1  # submissions graded at once, lowered to fit `memory_budget_mb`
    memory_budget_mb: int | None = None  # what the jobs may use together (None: 80 % of what is available now)
    device: str = "auto"  # cpu | cuda | auto (CPU, and CUDA when present)
    scheduler: str | None = None  # a Dask scheduler's address; None: local judges
    allow_weak_isolation: bool = False  # grade without bubblewrap (rlimits only)
    force: bool = False  # grade again even where a stored grade stands
    secret: Secret = field(default_factory=Secret)  # found by the face (`config.secret.find_secret`)
    variants: int | None = PER_STUDENT  # hidden-input variants: one per student, or N
    course: Course | None = None  # the course file the face read, if any (late policy, counts)
    roster: Path | None = None  # the roster CSV the grades name students by (exports, the table)

    def notes(self) -> list[str]:
        """What the instructor should read about these settings before a class is graded."""
        if self.secret.is_default:
            return [
                "warning: no course secret (AUTOGRADER_SECRET, AUTOGRADER_SECRET_FILE or the course file's "
                "secret_file): hidden test inputs come from the public default seed"
            ]
        return []

    def __post_init__(self) -> None:
        if self.jobs < 1:
            raise SettingsError("--jobs must be at least 1")
        if self.device not in DEVICES:
            raise SettingsError(f"device {self.device!r}: one of {', '.join(DEVICES)}")
        if self.memory_budget_mb is not None and self.memory_budget_mb < 1:
            raise SettingsError("--memory-budget must be positive")
