"""The toy TensorFlow kit (tests/fixtures/tfkit) and a class of its notebooks graded in a grader process of its own:
the engine and attack tests of the TensorFlow track read the results, and whether that process (the trusted
side) ever imported TensorFlow, which this one does in other tests."""

from __future__ import annotations

import json
import subprocess
import sys
import textwrap
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
TF_KIT = ROOT / "tests" / "fixtures" / "tfkit"
MASTER = TF_KIT / "solutions" / "tftoy.ipynb"
PROBES = TF_KIT / "assignments" / "tftoy" / "probes.py"
# what TensorFlow and Keras print on their own (C++ logging, absl, TF's Python logger): never in a result
TF_LOG = ("absl", "oneDNN", "cpu_feature_guard", "All log messages before", "retracing", "tensorflow/core")

_GRADE = textwrap.dedent("""
    import json, sys
    from pathlib import Path
    from autograder.config.assignment import load_assignment
    from autograder.intake.submissions import Submission
    from autograder.judge.session import GradeOptions, close_references
    from autograder.pipeline import grade_class

    kit, out, jobs, *paths = sys.argv[1:]
    assignment = load_assignment("tftoy", Path(kit))
    subs = [Submission(Path(p).stem, Path(p), Path(p).name) for p in paths]
    options = GradeOptions()
    try:
        run = grade_class(assignment, subs, out=Path(out), jobs=int(jobs), options=options)
    finally:
        close_references()
        options.isolation.close()
    print(json.dumps({
        "isolation": options.isolation.name,
        "tf_modules": sorted(m for m in sys.modules if m.split(".")[0] in ("tensorflow", "keras", "tf_keras")),
        "results": {r.submission_id: {
            "score": r.score, "status": r.status, "message": r.message, "stdout": r.stdout, "stderr": r.stderr,
            "determinism": r.environment.get("determinism"),
            "cells": [[c.cell, c.status, c.type, c.message] for c in r.cells],
            "tests": {t.id.split("::")[-1]: [t.outcome, t.message] for t in r.tests}} for r in run.results}}))
""")


def grade(notebooks: list[Path], out: Path, jobs: int = 1, timeout: float = 1200) -> dict:
    """Grade `notebooks` (each a submission named by its stem) as a class of tftoy, in a new grader process."""
    proc = subprocess.run(
        [sys.executable, "-c", _GRADE, str(TF_KIT), str(out), str(jobs), *map(str, notebooks)],
        capture_output=True,
        text=True,
        timeout=timeout,
        cwd=ROOT,
    )
    assert proc.returncode == 0, proc.stderr[-3000:]
    return json.loads(proc.stdout.strip().splitlines()[-1])
