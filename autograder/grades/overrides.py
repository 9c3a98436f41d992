"""Instructor and TA overrides of one test's score or a whole submission's score: an audit trail.

Each override is a row of the gradebook's `overrides` table (who, when, old -> new, comment), never
updated or deleted; the latest row for a (submission, test) is the one in force.  It holds while the
submission's sha256 is the one it was made against, so it survives re-grades of the same notebook; a
changed notebook makes it *stale*: listed, never applied, until someone re-applies it to the version that
counts (a new row, the same score and comment), acknowledges it (a row that keeps it unapplied and stops the
warning) or clears it (a row that gives the grader's score back).  Each row says which of these it is
(`action`: set, reapply, clear, ack) and who made it.  Overrides are applied by the trusted side
to copies of the results whenever scores are shown or exported (feedback pages, grades.csv, every
export); the engine's stored result is never changed.  A whole-submission override sets the score
*before* the late policy (an extension in course.toml waives lateness), through one extra line worth
the difference, so that everything that sums the tests agrees.  An ungradable or provisional result
cannot be overridden: grade it again first.
"""
from __future__ import annotations

import math
import sqlite3
import time
from dataclasses import dataclass, replace
from pathlib import Path

from autograder.judge.results import OVERRIDE_LINE_ID, SubmissionResult, TestResult

SCHEMA = """
CREATE TABLE IF NOT EXISTS overrides (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    assignment TEXT NOT NULL,
    submission_id TEXT NOT NULL,
    test_id TEXT NOT NULL,          -- '' for the whole submission
    sha256 TEXT NOT NULL,           -- the submission it was made against
    old_score REAL NOT NULL,
    new_score REAL NOT NULL,
    comment TEXT NOT NULL,
    by TEXT NOT NULL,
    at REAL NOT NULL,
    action TEXT NOT NULL DEFAULT 'set'   -- set | reapply | clear | ack
);
CREATE TABLE IF NOT EXISTS comment_bank (   -- comments kept per exercise, to reuse across students
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    assignment TEXT NOT NULL,
    exercise TEXT NOT NULL,
    text TEXT NOT NULL,
    by TEXT NOT NULL,
    at REAL NOT NULL,
    UNIQUE (assignment, exercise, text)
);
"""
WHOLE = ""
APPLIED = ("set", "reapply")        # the actions whose row sets a score
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


def _connect(db: Path) -> sqlite3.Connection:
    conn = sqlite3.connect(db, timeout=60, isolation_level=None)
    conn.execute("PRAGMA busy_timeout=60000")
    conn.executescript(SCHEMA)
    if "action" not in {r[1] for r in conn.execute("PRAGMA table_info(overrides)")}:   # a trail from before actions
        conn.execute("ALTER TABLE overrides ADD COLUMN action TEXT NOT NULL DEFAULT 'set'")
    return conn


def history(db: Path, assignment: str, submission_id: str | None = None) -> list[Override]:
    """Every override ever recorded, oldest first (the audit trail)."""
    if not db.is_file():
        return []
    conn = _connect(db)
    try:
        q = "SELECT * FROM overrides WHERE assignment=?" + (" AND submission_id=?" if submission_id else "")
        rows = conn.execute(q + " ORDER BY id", (assignment, submission_id) if submission_id else (assignment,))
        return [Override(*r) for r in rows.fetchall()]
    finally:
        conn.close()


def changed_since(db: Path, assignment: str, after: int) -> tuple[int, set[str]]:
    """(the id of the latest override of `assignment`, the submissions with an override newer than `after`):
    what a reader that applied the trail up to `after` must apply again (ids only grow: rows are never
    updated or deleted)."""
    if not db.is_file():
        return 0, set()
    conn = _connect(db)
    try:
        rows = conn.execute("SELECT id, submission_id FROM overrides WHERE assignment=? AND id>? ORDER BY id",
                            (assignment, after)).fetchall()
        return (rows[-1][0] if rows else after), {sid for _, sid in rows}
    finally:
        conn.close()


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


def apply(result: SubmissionResult, applied: list[Override]) -> SubmissionResult:
    """A copy of `result` with the overrides in force (test ones first, then the whole-submission one)."""
    if not applied:
        return result
    by_test = {o.test_id: o for o in applied if o.test_id}
    tests, notes = [], []
    for t in result.tests:
        o = by_test.get(t.id)
        if o is None:
            tests.append(t)
            continue
        outcome = "passed" if o.new_score >= t.max_score else "partial" if o.new_score > 0 else "failed"
        note = f"Score set to {o.new_score:g}/{t.max_score:g} by {o.by}: {o.comment}"
        tests.append(replace(t, score=o.new_score, outcome=outcome,
                             message=(t.message + "\n" if t.message else "") + note))
        notes.append(f"{t.name}: {note.rstrip('.')}.")   # the LMS comment quotes the result's message
    message = " ".join(notes + [result.message]).strip()
    whole = next((o for o in applied if not o.test_id), None)
    if whole is None:
        return replace(result, tests=tests, message=message)
    note = f"Total set to {whole.new_score:g} by {whole.by}: {whole.comment}"
    adjust = round(whole.new_score - sum(t.score for t in tests), 4)
    tests.append(TestResult(OVERRIDE_LINE_ID, "Instructor override of the total", "", "public", 0.0, adjust,
                            "passed", note))
    return replace(result, tests=tests, message=f"{note} {message}".strip())   # LMS comments quote it


def effective(db: Path, results: list[SubmissionResult]) -> tuple[list[SubmissionResult], list[Override]]:
    """The results as shown and exported, and the stale overrides (to report, never to apply)."""
    if not results:
        return results, []
    trail = history(db, results[0].assignment)
    out, stale = [], []
    for r in results:
        applied, old = in_force(trail, r)
        out.append(apply(r, applied))
        stale += old
    return out, stale


def record(db: Path, result: SubmissionResult | None, *, test_id: str = WHOLE, score: float, comment: str,
           by: str, at: float | None = None, action: str = "set") -> Override:
    """Validate and append one override; `old_score` is the score in force just before it."""
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
    current = apply(result, in_force(history(db, result.assignment, result.submission_id), result)[0])
    if test_id:
        test_id = resolve_test(test_id, result)
        test = next(t for t in current.tests if t.id == test_id)
        old, top = test.score, test.max_score
    else:
        old, top = current.score, result.max_score
    if not (math.isfinite(score) and 0 <= score <= top):
        raise OverrideError(f"--score must be between 0 and {top:g}")
    return _append(db, Override(0, result.assignment, result.submission_id, test_id, result.sha256, old,
                                float(score), comment, by, time.time() if at is None else at, action))


def _append(db: Path, o: Override) -> Override:
    conn = _connect(db)
    try:
        with conn:
            cur = conn.execute("INSERT INTO overrides (assignment, submission_id, test_id, sha256, old_score, "
                               "new_score, comment, by, at, action) VALUES (?,?,?,?,?,?,?,?,?,?)",
                               (o.assignment, o.submission_id, o.test_id, o.sha256, o.old_score, o.new_score,
                                o.comment, o.by, o.at, o.action))
        return replace(o, id=int(cur.lastrowid or 0))
    finally:
        conn.close()


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


def change(db: Path, result: SubmissionResult | None, *, test: str, action: str, by: str,
           at: float | None = None) -> Override:
    """Clear an override (in force or stale: the grader's score counts again), acknowledge a stale one
    (kept unapplied, no longer warned about) or re-apply a stale one to `result`, the version that counts
    (the same score and comment, the author `by`).  Each is one more row of the trail."""
    if result is None:
        raise OverrideError("no graded submission by that id: grade it first")
    if action not in ("clear", "ack", "reapply"):
        raise OverrideError(f"unknown override action {action!r}")
    if not by.strip():
        raise OverrideError("--by is required (who made the change)")
    applied, stale = in_force(history(db, result.assignment, result.submission_id), result)
    o = resolve_override(test, result, stale if action != "clear" else applied + stale)
    if action == "reapply":
        return record(db, result, test_id=o.test_id, score=o.new_score, comment=o.comment, by=by, at=at,
                      action="reapply")
    shown = apply(result, applied)
    now = (next((t.score for t in shown.tests if t.id == o.test_id), o.new_score) if o.test_id else shown.score)
    after = apply(result, [x for x in applied if x is not o])
    back = (next((t.score for t in after.tests if t.id == o.test_id), o.new_score) if o.test_id else after.score)
    why = f"cleared #{o.id}" if action == "clear" else f"acknowledged stale #{o.id}, not applied"
    return _append(db, Override(0, result.assignment, result.submission_id, o.test_id, result.sha256, now,
                                back if action == "clear" else now, why, by.strip(),
                                time.time() if at is None else at, action))


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
        raise OverrideError(f"{key!r} names {len(hits)} tests; say which: "
                            + "; ".join(f"{t.id} ({t.name})" for t in hits[:8]) + ("; ..." if len(hits) > 8 else ""))
    import difflib

    near = difflib.get_close_matches(key, [t.name for t in tests] + [t.id for t in tests], n=3, cutoff=0.5)
    raise OverrideError(f"no test of this submission is named {key!r} (a test id, its name, or the start of "
                        "either)" + (f"; did you mean: {'; '.join(near)}?" if near else ""))


def bank(db: Path, assignment: str, exercise: str) -> list[tuple[str, str]]:
    """The comment bank of one exercise: (comment, who first saved it), oldest first.  Each use of a comment
    is an override row (its author, its time): the bank keeps only the text."""
    if not db.is_file():
        return []
    conn = _connect(db)
    try:
        return [tuple(r) for r in conn.execute("SELECT text, by FROM comment_bank WHERE assignment=? AND exercise=? "
                                                "ORDER BY id", (assignment, exercise))]
    finally:
        conn.close()


def save_comment(db: Path, assignment: str, exercise: str, text: str, by: str) -> None:
    """Add `text` to the exercise's comment bank (once: saving it again changes nothing)."""
    text = text.strip()
    if not text or len(text) > MAX_COMMENT:
        raise OverrideError(f"a comment is 1 to {MAX_COMMENT} characters")
    conn = _connect(db)
    try:
        with conn:
            conn.execute("INSERT OR IGNORE INTO comment_bank (assignment, exercise, text, by, at) VALUES (?,?,?,?,?)",
                         (assignment, exercise, text, by.strip(), time.time()))
    finally:
        conn.close()


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
    raise OverrideError(f"no submission or student {key!r} (a submission id as in grades.csv, or a student's "
                        "login, LMS user id, SIS id or email)")


def trail_lines(db: Path, assignment: str, results: list[SubmissionResult], submission: str | None = None) -> list[str]:
    """The audit trail, one line per override, each with its state (in force, stale, superseded)."""
    from datetime import datetime, timezone

    by_id = {r.submission_id: r for r in results}
    lines = []
    for o in history(db, assignment, submission):
        r = by_id.get(o.submission_id)
        applied, stale = in_force(history(db, assignment, o.submission_id), r) if r else ([], [])
        state = ("in force" if o in applied else "stale" if o in stale else o.action if not o.sets
                 else "superseded" if r else "no result")
        when = datetime.fromtimestamp(o.at, timezone.utc).strftime("%Y-%m-%d %H:%M UTC")
        what = "re-applied: " if o.action == "reapply" else ""
        lines.append(f"#{o.id} {when} {o.by}: {o.submission_id} {o.target}: {o.old_score:g} -> {o.new_score:g} "
                     f"[{state}] {what}{o.comment}")
    return lines
