"""The master's gate: one rule, wherever a class, a Gradescope submission or `check-solutions` is graded.

A master short of full marks against the current tests means a broken assignment, a broken sandbox or a
faulty host: grading then would charge every student for it, so nothing is graded.  Every face asks
`check_master` (the pipeline before a class, Gradescope's runner before its one submission, `check-solutions`
for each assignment) and none decides it by its own rule.
"""

from __future__ import annotations

from autograder.judge.results import SubmissionResult


class MasterFailed(Exception):
    """The master notebook does not score full marks against the current tests: grading a class
    then would charge every student for a broken assignment or a broken sandbox, so nobody is graded."""


def check_master(reference: SubmissionResult) -> None:
    """Raise `MasterFailed`, naming what failed, unless the master earned every point of every test."""
    bad = [t for t in reference.tests if t.outcome not in ("passed", "skipped") or t.score < t.max_score]
    if (
        reference.tests
        and not bad
        and not reference.problems
        and not reference.provisional
        and reference.score == reference.max_score
    ):
        return
    # a fault of the grader or the host says nothing about the master: name it first
    why = [f"grader or host fault: {reference.provisional}"] if reference.provisional else []
    why += [
        f"the master notebook scores {reference.score:g}/{reference.max_score:g} against its own tests "
        f"({reference.status}{': ' + reference.message if reference.message else ''})"
    ]
    if not reference.tests:
        why.append("no test ran")
    why += [f"{t.id}: {t.outcome}: {t.message.strip()[:300]}" for t in bad[:3]]
    if len(bad) > 3:
        why.append(f"... and {len(bad) - 3} more tests")
    why += [p.strip()[:800] for p in reference.problems[:1]]
    raise MasterFailed("\n  ".join(why))
