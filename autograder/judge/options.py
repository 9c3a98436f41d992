"""How a class is graded (the device, the isolation, the reference cache, the course secret and its variants),
apart from the grading itself: the pipeline hands it to judges (local processes, Dask workers) with each task,
without importing torch (`judge.session` does).  It is the one way a course's settings reach a judge: nothing
travels through the environment."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

from autograder.config.course import PER_STUDENT
from autograder.config.secret import Secret, find_secret
from autograder.execute.sandbox import Isolation, choose_isolation


@dataclass
class GradeOptions:
    device: str = "auto"  # auto | cpu | cuda
    isolation: Isolation = field(default_factory=lambda: choose_isolation(allow_weak=False))
    cache_dir: Path | None = None  # reference cache root (per assignment version below it)
    # the course secret, found where the options are built (a face, or a test standing for one), never in a judge
    secret: Secret = field(default_factory=find_secret)
    variants: int | None = PER_STUDENT  # hidden-input variants: one per student, or N (course.toml `variants`)

    def devices(self) -> tuple[str, ...]:
        return {"auto": ("cpu", "cuda"), "cpu": ("cpu",), "cuda": ("cuda",)}[self.device]
