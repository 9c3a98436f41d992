"""Points for *how* code was built, held against attacks: an honest notebook that does not earn them sets the
bar, and each attack (that notebook plus a trick) must earn no more, all graded in one batch."""

from __future__ import annotations

from pathlib import Path

import nbformat

from autograder.config.assignment import load_assignment
from autograder.intake.submissions import Submission
from autograder.judge.results import SubmissionResult
from autograder.judge.session import GradeOptions
from autograder.pipeline import grade_class
from tests.nbfactory import edit

KIT = Path(__file__).resolve().parents[2]


def master_code(assignment: str) -> list[str]:
    """The sources of the code cells of `assignment`'s master notebook."""
    nb = nbformat.read(load_assignment(assignment, KIT).solution, as_version=4)
    return [c.source for c in nb.cells if c.cell_type == "code"]


def master_between(assignment: str, start: str, end: str) -> str:
    """`assignment`'s master text from `start` up to (not including) `end`, in the one cell holding both."""
    for src in master_code(assignment):
        if start in src and end in src[src.index(start) :]:
            i = src.index(start)
            return src[i : src.index(end, i)]
    raise AssertionError(f"{start!r}...{end!r} not in the master")


def grade_attacks(
    tmp: Path, assignment: str, honest: dict[str, str], attacks: dict[str, dict[str, str] | str]
) -> dict[str, SubmissionResult]:
    """Results by id, graded on the CPU in one batch: "honest", the master with the `honest` replacements, and
    "attack<i>" for the i-th attack, that notebook with the attack's own replacements (a dict) or with its
    code appended as a last cell (a str)."""
    a = load_assignment(assignment, KIT)
    n_cells = len(nbformat.read(a.solution, as_version=4).cells)
    subs = [Submission("honest", edit(a.solution, tmp / "honest.ipynb", replace=honest), "honest")]
    for i, (name, attack) in enumerate(attacks.items()):
        replace, insert = ({**honest, **attack}, None) if isinstance(attack, dict) else (honest, {n_cells: attack})
        subs.append(
            Submission(f"attack{i}", edit(a.solution, tmp / f"attack{i}.ipynb", replace=replace, insert=insert), name)
        )
    # The course-wide inputs (`make check-secrets` draws others): an attack's points come from the evidence, not the
    # draw, and under per-student variants each notebook that lost the kernel points sent the master through its
    # own variant's proof (a compile and the hidden tests again: tf02b's batch took 6 minutes of `make test`).
    run = grade_class(a, subs, out=tmp / "results", jobs=2, options=GradeOptions(device="cpu", variants=1))
    return {r.submission_id: r for r in run.results}


def guarded(r: SubmissionResult, tests: tuple[str, ...]) -> list:
    """`r`'s results of the tests named in `tests` (each parametrization of one included)."""
    return [t for t in r.tests if t.id.split("::")[-1].split("[")[0] in tests]


def points(r: SubmissionResult, tests: tuple[str, ...]) -> float:
    """What `r` earned in the tests named in `tests`."""
    return sum(t.score for t in guarded(r, tests))


def assert_no_more_than_honest(honest: SubmissionResult, r: SubmissionResult, tests: tuple[str, ...]) -> None:
    """The attack `r` earns none of the points of `tests`, no more than `honest` in all, and causes its own
    failures, never a grader error."""
    assert r.status in ("graded", "crashed", "timeout"), r.message
    assert points(r, tests) == 0, [(t.id, t.score, t.message[:200]) for t in guarded(r, tests) if t.score]
    assert r.score <= honest.score, (r.score, honest.score)
    assert not [t for t in r.tests if t.outcome == "error"], "an attack causes its own failures, never a grader error"
