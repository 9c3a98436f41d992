"""Instructor and TA overrides of one test's score or a whole submission's score: an audit trail.

The rules only: the trail is kept by the store (`store.marks.Marks`: `overrides`, `add_override`), which hands it
in; `record` and `change` validate and return the row to append.  Each override is a row of the gradebook's
`overrides` table (who, when, old -> new, comment), never
updated or deleted; the latest row for a (submission, test) is the one in force.  It holds while the
submission's sha256 is the one it was made against, so it survives re-grades of the same notebook; a
changed notebook makes it *stale*: listed, never applied, until someone re-applies it to the version that
counts (a new row, the same score and comment), acknowledges it (a row that keeps it unapplied and stops the
warning) or clears it (a row that gives the grader's score back).  Each row says which of these it is
(`action`: set, reapply, clear, ack) and who made it.  Overrides are applied by the trusted side
to copies of the results whenever scores are shown or exported (feedback pages, grades.csv, every
export); the engine's stored result is never changed.  A whole-submission override sets the score
*before* the late policy (an extension in course.toml waives lateness), through one extra line worth
the difference, so that everything that sums the tests agrees.  Test overrides apply before the rubric
items (`grades.rubric`), a whole-submission one after them (`rows.derive`).  The student reads its author
as `shown_name` gives it: never a Unix account.  An ungradable or provisional result cannot be overridden:
grade it again first.
"""

from __future__ import annotations

import math
import time
from dataclasses import dataclass, replace
from typing import Callable

from autograder.judge.results import OVERRIDE_LINE_ID, SubmissionResult, TestResult

WHOLE = ""
APPLIED = ("set", "reapply")  # the actions whose row sets a score
ACTIONS = APPLIED + ("clear", "ack")
MAX_COMMENT = 2000


class OverrideError(ValueError):
    """An override that cannot be recorded."""


@dataclass(frozen=True)
class Override:
    id: int
    assignment: str
    submission_id: str
    test_id: str
    sha256: str
    old_score: float
    new_score: float
    comment: str
    by: str
    at: float
    action: str = "set"

    @property
    def target(self) -> str:
        return self.test_id or "whole submission"

    @property
    def sets(self) -> bool:
        """True for a row that sets a score (`set`, `reapply`); `clear` and `ack` rows set none."""
        return self.action in APPLIED


def in_force(trail: list[Override], result: SubmissionResult) -> tuple[list[Override], list[Override]]:
    """(applied, stale): the latest override per test of this submission, split by whether the
    submission is still the one it was made against.  A test whose latest row clears or acknowledges
    has neither."""
    latest: dict[str, Override] = {}
    for o in trail:
        if o.submission_id == result.submission_id and o.assignment == result.assignment:
            latest[o.test_id] = o
    latest = {k: o for k, o in latest.items() if o.sets}
    applied = [o for o in latest.values() if o.sha256 == result.sha256 and result.sha256]
    return applied, [o for o in latest.values() if o not in applied]


def shown_name(by: str) -> str:
    """The name a student reads for the staff member `by`: `by` as typed (`--by`, the workspace's token name),
    but never the Unix account the command or the server ran as ("root"): that is "course staff"."""
    import pwd

    by = by.strip()
    try:
        pwd.getpwnam(by)
    except (KeyError, ValueError):
        return by or "course staff"
    return "course staff"


def apply_tests(result: SubmissionResult, applied: list[Override]) -> SubmissionResult:
    """A copy of `result` with the test overrides in force (a test's score set by hand)."""
    by_test = {o.test_id: o for o in applied if o.test_id}
    if not by_test:
        return result
    tests, notes = [], []
    for t in result.tests:
        o = by_test.get(t.id)
        if o is None:
            tests.append(t)
            continue
        outcome = "passed" if o.new_score >= t.max_score else "partial" if o.new_score > 0 else "failed"
        note = f"Score set to {o.new_score:g}/{t.max_score:g} by {shown_name(o.by)}: {o.comment}"
        tests.append(
            replace(t, score=o.new_score, outcome=outcome, message=(t.message + "\n" if t.message else "") + note)
        )
        notes.append(f"{t.name}: {note.rstrip('.')}.")  # the LMS comment quotes the result's message
    return replace(result, tests=tests, message=" ".join(notes + [result.message]).strip())


def apply_whole(result: SubmissionResult, applied: list[Override]) -> SubmissionResult:
    """A copy of `result` with the whole-submission override in force: one line worth the difference between the
    total it sets and the sum of every other line (tests, rubric lines)."""
    whole = next((o for o in applied if not o.test_id), None)
    if whole is None:
        return result
    note = f"Total set to {whole.new_score:g} by {shown_name(whole.by)}: {whole.comment}"
    adjust = round(whole.new_score - sum(t.score for t in result.tests), 4)
    tests = [
        *result.tests,
        TestResult(OVERRIDE_LINE_ID, "Instructor override of the total", "", "public", 0.0, adjust, "passed", note),
    ]
    return replace(result, tests=tests, message=f"{note} {result.message}".strip())  # LMS comments quote it


def apply(result: SubmissionResult, applied: list[Override]) -> SubmissionResult:
    """A copy of `result` with the overrides in force (test ones first, then the whole-submission one)."""
    return apply_whole(apply_tests(result, applied), applied) if applied else result


def record(
    trail: list[Override],
    result: SubmissionResult | None,
    shown: SubmissionResult | None = None,
    *,
    test_id: str = WHOLE,
    score: float,
    comment: str,
    by: str,
    at: float | None = None,
    action: str = "set",
) -> Override:
    """A validated override of `result` (the counted version) to append to `trail` (its id still 0): `old_score`
    is the score in force just before it, read from `shown` (the result as shown: overrides, rubric) or, without
    it, from `result` with the trail's overrides."""
    if result is None:
        raise OverrideError("no graded submission by that id: grade it first")
    if result.provisional or (result.status == "crashed" and not result.tests) or not result.sha256:
        raise OverrideError("this result is ungradable or provisional: grade it again before overriding it")
    comment, by = comment.strip(), by.strip()
    if not comment:
        raise OverrideError("--comment is required: say why (it is kept in the audit trail)")
    if len(comment) > MAX_COMMENT:
        raise OverrideError(f"--comment is longer than {MAX_COMMENT} characters")
    if not by:
        raise OverrideError("--by is required (who made the override)")
    current = shown if shown is not None else apply(result, in_force(trail, result)[0])
    if test_id:
        test_id = resolve_test(test_id, result)
        test = next(t for t in current.tests if t.id == test_id)
        old, top = test.score, test.max_score
    else:
        old, top = current.score, result.max_score
    if not (math.isfinite(score) and 0 <= score <= top):
        raise OverrideError(f"--score must be between 0 and {top:g}")
    return Override(
        0,
        result.assignment,
        result.submission_id,
        test_id,
        result.sha256,
        old,
        float(score),
        comment,
        by,
        time.time() if at is None else at,
        action,
    )


def resolve_override(key: str, result: SubmissionResult, candidates: list[Override]) -> Override:
    """The override among `candidates` (one per test, as `in_force` gives them) that `key` names: "" for the
    whole score, else a test as `resolve_test` names it (or an id only the override still holds)."""
    if key.strip():
        ids = {o.test_id for o in candidates if o.test_id}
        try:
            test_id = resolve_test(key, result)
        except OverrideError:
            if key.strip() not in ids:
                raise
            test_id = key.strip()
    else:
        test_id = WHOLE
    hit = next((o for o in candidates if o.test_id == test_id), None)
    if hit is None:
        raise OverrideError(f"no such override of {result.submission_id} ({test_id or 'whole submission'}) to change")
    return hit


def change(
    trail: list[Override],
    result: SubmissionResult | None,
    *,
    test: str,
    action: str,
    by: str,
    at: float | None = None,
    derive: Callable[[list[Override]], SubmissionResult] | None = None,
) -> Override:
    """Clear an override (in force or stale: the grader's score counts again), acknowledge a stale one
    (kept unapplied, no longer warned about) or re-apply a stale one to `result`, the version that counts
    (the same score and comment, the author `by`): the row to append to `trail`.  `derive` gives the result as
    shown with a list of overrides in force (default: `apply`), for the scores before and after."""
    if result is None:
        raise OverrideError("no graded submission by that id: grade it first")
    if action not in ("clear", "ack", "reapply"):
        raise OverrideError(f"unknown override action {action!r}")
    if not by.strip():
        raise OverrideError("--by is required (who made the change)")
    derive = derive or (lambda applied: apply(result, applied))
    applied, stale = in_force(trail, result)
    o = resolve_override(test, result, stale if action != "clear" else applied + stale)
    if action == "reapply":
        return record(
            trail,
            result,
            derive(applied),
            test_id=o.test_id,
            score=o.new_score,
            comment=o.comment,
            by=by,
            at=at,
            action="reapply",
        )
    shown = derive(applied)
    now = next((t.score for t in shown.tests if t.id == o.test_id), o.new_score) if o.test_id else shown.score
    after = derive([x for x in applied if x is not o])
    back = next((t.score for t in after.tests if t.id == o.test_id), o.new_score) if o.test_id else after.score
    why = f"cleared #{o.id}" if action == "clear" else f"acknowledged stale #{o.id}, not applied"
    return Override(
        0,
        result.assignment,
        result.submission_id,
        o.test_id,
        result.sha256,
        now,
        back if action == "clear" else now,
        why,
        by.strip(),
        time.time() if at is None else at,
        action,
    )


def resolve_test(key: str, result: SubmissionResult) -> str:
    """The id of the test `key` names in `result`: its id, its display name (as feedback and grades.csv
    show it), or a prefix of either that only one test has (case ignored)."""
    tests = [t for t in result.tests if t.id != OVERRIDE_LINE_ID]
    k = key.strip().casefold()
    for exact in (lambda t: t.id.casefold() == k, lambda t: t.name.casefold() == k):
        hits = [t for t in tests if exact(t)]
        if len(hits) == 1:
            return hits[0].id
        if hits:
            break
    else:
        hits = [t for t in tests if k and (t.id.casefold().startswith(k) or t.name.casefold().startswith(k))]
    if len(hits) == 1:
        return hits[0].id
    if hits:
        raise OverrideError(
            f"{key!r} names {len(hits)} tests; say which: "
            + "; ".join(f"{t.id} ({t.name})" for t in hits[:8])
            + ("; ..." if len(hits) > 8 else "")
        )
    import difflib

    near = difflib.get_close_matches(key, [t.name for t in tests] + [t.id for t in tests], n=3, cutoff=0.5)
    raise OverrideError(
        f"no test of this submission is named {key!r} (a test id, its name, or the start of "
        "either)" + (f"; did you mean: {'; '.join(near)}?" if near else "")
    )


def resolve_submission(key: str, people: list[tuple[str, tuple[str, ...]]]) -> str:
    """The submission id `key` names: a submission id, or any id of the student who made it (login, LMS
    user id, SIS id, email, as the roster and the LMS download hold them).  `people` holds (submission id,
    the student's ids) for every submission."""
    if any(sid == key for sid, _ in people):
        return key
    k = key.strip().casefold()
    hits = sorted({sid for sid, ids in people if k in {i.casefold() for i in ids}})
    if len(hits) == 1:
        return hits[0]
    if hits:
        raise OverrideError(f"{key!r} has {len(hits)} submissions; name one: {', '.join(hits)}")
    raise OverrideError(
        f"no submission or student {key!r} (a submission id as in grades.csv, or a student's "
        "login, LMS user id, SIS id or email)"
    )


def trail_lines(trail: list[Override], results: list[SubmissionResult]) -> list[str]:
    """The audit trail, one line per override, each with its state (in force, stale, superseded)."""
    from datetime import datetime, timezone

    by_id = {r.submission_id: r for r in results}
    mine: dict[str, list[Override]] = {}
    for o in trail:
        mine.setdefault(o.submission_id, []).append(o)
    lines = []
    for o in trail:
        r = by_id.get(o.submission_id)
        applied, stale = in_force(mine[o.submission_id], r) if r else ([], [])
        state = (
            "in force"
            if o in applied
            else "stale"
            if o in stale
            else o.action
            if not o.sets
            else "superseded"
            if r
            else "no result"
        )
        when = datetime.fromtimestamp(o.at, timezone.utc).strftime("%Y-%m-%d %H:%M UTC")
        what = "re-applied: " if o.action == "reapply" else ""
        lines.append(
            f"#{o.id} {when} {o.by}: {o.submission_id} {o.target}: {o.old_score:g} -> {o.new_score:g} "
            f"[{state}] {what}{o.comment}"
        )
    return lines
