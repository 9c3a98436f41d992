"""How a class is graded (the device, the isolation, the reference cache), apart from the grading itself: the grade
command and the pipeline hand it to judges without importing torch (`judge.session` does)."""
from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

from autograder.execute.sandbox import Isolation, choose_isolation


@dataclass
class GradeOptions:
    device: str = "auto"                 # auto | cpu | cuda
    isolation: Isolation = field(default_factory=lambda: choose_isolation(allow_weak=False))
    cache_dir: Path | None = None         # reference cache root (per assignment version below it)

    def devices(self) -> tuple[str, ...]:
        return {"auto": ("cpu", "cuda"), "cpu": ("cpu",), "cuda": ("cuda",)}[self.device]
