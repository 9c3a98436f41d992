"""Rubric items, and a submission's score derived from the items applied to it: never stored on its own.

An item belongs to one exercise of an assignment: a title, points (positive, negative, or 0 for a pure
comment), the text the student reads, a note only staff see, and a key (1-9, 0) to apply it.  The store keeps
the items, where each is applied (to which submission, on which version of its notebook, by whom) and the
audit trail of every change (`store.marks.Marks`); these are the rules, decided on what it hands in (`Marks`).

The scoring rule (docs/workspace.md, "Rubric items"), with P an exercise's points and floor and ceiling the
course file's `[rubric]` (fractions of P, 0 and 1 by default):
- an autograded exercise: its score is its autograded points plus the points of its applied items, kept within
  floor·P and ceiling·P (never past the autograded points the other way: a +1 never lowers a score);
- an exercise graded by hand (the manifest's `[manual.EXERCISE]`): the points of its applied items within the
  same bounds, starting from 0; it is *pending* until one of its items (a 0-point one counts) is applied.
The adjustment is one line of the result (`RUBRIC_LINE` + exercise, 0 points possible, the applied items' texts
as its message; a manual exercise is its own line, `MANUAL_LINE`), so that everything that sums the tests
(exports, feedback, reports, passback, the nbgrader gradebook, which sums per exercise) shows the same score.
Order: test overrides, then the rubric, then a whole-submission override (`rows.derive`).

An application holds on the version it was made on (its sha256), as an override does: a changed notebook makes
it stale (listed, never applied) until it is applied again.  Items change retroactively: an item's points are
read whenever a score is, so an edit re-scores everyone who has it, and a deleted item stops counting.

Public surface: `Item`, `Applied`, `LineNote`, `Marks` (what the store hands in; `.of(submission)`), `Bounds`;
`score` (the rule), `pending`, `exercise_points`, `exercises`, `failure_groups` (identical failures, to apply
one item to a group), `progress` (graded / needs a look per exercise, per TA), `export_items` / `import_items`
(the rubric file), `check_item`, `next_key`, `check_key`, `RubricError`.  Every write goes through `pipeline`
(`rubric_add`, `rubric_edit`, `rubric_delete`, `rubric_apply`, `rubric_unapply`, `rubric_import`,
`add_line_note`; `set_group` without a score), which re-scores and logs who it touched.
"""

from __future__ import annotations

import copy
import math
from dataclasses import dataclass, field
from typing import Any, Iterable

from autograder.grades.overrides import Override
from autograder.judge.results import MANUAL_LINE, RUBRIC_LINE, SubmissionResult, TestResult

KEYS = "1234567890"  # the keys that apply an item, in the order items get them
MAX_TITLE = 200
MAX_TEXT = 2000
MAX_POINTS = 1000


class RubricError(ValueError):
    """A rubric item or an application that cannot be recorded."""


@dataclass(frozen=True)
class Item:
    id: int
    assignment: str
    exercise: str
    title: str
    points: float
    comment: str = ""  # what the student reads
    note: str = ""  # what only staff read
    key: str = ""  # 1-9, 0, or "" past ten items of an exercise
    deleted: bool = False

    def text(self) -> str:
        """The item as the student reads it: its title, points and comment."""
        pts = f" ({self.points:+g})" if self.points else ""
        return f"{self.title}{pts}" + (f": {self.comment}" if self.comment else "")


@dataclass(frozen=True)
class Applied:
    item_id: int
    submission_id: str
    sha256: str  # the version of the notebook it was applied to
    by: str
    at: float


@dataclass(frozen=True)
class LineNote:
    """A comment on a line of a cell of the student's code, shown in their feedback at that line."""

    id: int
    submission_id: str
    sha256: str
    cell: int  # the code cell's position among all cells, as `notebook.cells.cell_name` counts
    line: int  # 1-based line of that cell; 0: the whole cell
    code: str  # the line as it was when the comment was made (what the feedback quotes)
    text: str
    by: str
    at: float


@dataclass
class Marks:
    """What staff added to an assignment's results, as the store hands it in (`store.marks.Marks.marks`)."""

    overrides: list[Override] = field(default_factory=list)
    items: list[Item] = field(default_factory=list)  # deleted ones included (the trail names them)
    applied: list[Applied] = field(default_factory=list)
    notes: list[LineNote] = field(default_factory=list)

    def of(self, submission_id: str) -> "Marks":
        """The marks of one submission (every item: items are the assignment's); indexed once, so that reading a
        class costs one pass over its marks, not one per student."""
        index = self.__dict__.get("_index")
        if index is None:
            index = {}
            marks: tuple[list[Any], ...] = (self.overrides, self.applied, self.notes)
            for kind, rows in enumerate(marks):
                for row in rows:
                    index.setdefault(row.submission_id, ([], [], []))[kind].append(row)
            self.__dict__["_index"] = index
        o, a, n = index.get(submission_id, ([], [], []))
        return Marks(list(o), self.items, list(a), list(n))


@dataclass(frozen=True)
class Bounds:
    """Where an exercise's score may go with its items applied, as fractions of its points (course.toml
    `[rubric] floor` and `ceiling`)."""

    floor: float = 0.0
    ceiling: float = 1.0

    @classmethod
    def of(cls, course: Any) -> "Bounds":
        from autograder.config.course import CourseError  # what every command reports as a bad course file

        t = course.table("rubric") if course is not None else {}
        try:
            b = cls(float(t.get("floor", 0.0)), float(t.get("ceiling", 1.0)))
        except (TypeError, ValueError):
            raise CourseError("[rubric] floor and ceiling are numbers (fractions of an exercise's points)") from None
        if not (math.isfinite(b.floor) and math.isfinite(b.ceiling) and b.floor <= b.ceiling and b.ceiling >= 0):
            raise CourseError("[rubric] floor must be at most ceiling, ceiling at least 0")
        return b


def check_item(title: str, points: float, comment: str = "", note: str = "") -> tuple[str, float, str, str]:
    """The fields of an item, validated (a clear `RubricError` otherwise)."""
    title, comment, note = title.strip(), comment.strip(), note.strip()
    if not title or len(title) > MAX_TITLE:
        raise RubricError(f"an item's title is 1 to {MAX_TITLE} characters")
    if len(comment) > MAX_TEXT or len(note) > MAX_TEXT:
        raise RubricError(f"an item's comment and note are at most {MAX_TEXT} characters")
    if not (math.isfinite(points) and abs(points) <= MAX_POINTS):
        raise RubricError(f"an item's points are a number from -{MAX_POINTS} to {MAX_POINTS}")
    return title, float(points), comment, note


def next_key(items: Iterable[Item], exercise: str) -> str:
    """The first key (1-9, 0) no live item of `exercise` has; "" when all ten are taken."""
    taken = {i.key for i in items if i.exercise == exercise and not i.deleted}
    return next((k for k in KEYS if k not in taken), "")


def check_key(items: Iterable[Item], exercise: str, key: str, item_id: int = 0) -> str:
    if key not in tuple(KEYS) + ("",):
        raise RubricError("an item's key is one of 1-9 and 0")
    if key and any(i.key == key and i.exercise == exercise and not i.deleted and i.id != item_id for i in items):
        raise RubricError(f"key {key} already applies another item of {exercise}")
    return key


def exercises(results: Iterable[SubmissionResult], manual: Iterable[Any] = ()) -> list[str]:
    """Every exercise an item may belong to: those of the graded tests, then those graded by hand."""
    seen: dict[str, None] = {}
    for r in results:
        for t in r.tests:
            if t.exercise and not t.is_override:
                seen[t.exercise] = None
    return list(seen) + [m.exercise for m in manual if m.exercise not in seen]


def _gradable(r: SubmissionResult) -> bool:
    return bool(r.tests) and not r.provisional and bool(r.sha256)


def score(
    result: SubmissionResult,
    items: list[Item],
    applied: list[Applied],
    manual: Iterable[Any] = (),
    bounds: Bounds = Bounds(),
) -> tuple[SubmissionResult, list[Applied]]:
    """(`result` with its rubric lines, the applications that are stale): see the module docstring."""
    if not _gradable(result):
        return result, []
    live = {i.id: i for i in items if not i.deleted}
    mine = [a for a in applied if a.submission_id == result.submission_id and a.item_id in live]
    now = [a for a in mine if a.sha256 == result.sha256]
    stale = [a for a in mine if a.sha256 != result.sha256]
    by_ex: dict[str, list[Item]] = {}
    for a in sorted(now, key=lambda a: a.item_id):
        it = live[a.item_id]
        by_ex.setdefault(it.exercise, []).append(it)
    tests = list(result.tests)
    for m in manual:
        its = by_ex.pop(m.exercise, None)
        if its is None:
            tests.append(
                TestResult(
                    MANUAL_LINE + m.exercise,
                    m.title,
                    m.exercise,
                    "public",
                    m.points,
                    0.0,
                    "pending",
                    "graded by hand: not graded yet",
                )
            )
            continue
        got = _within(0.0, sum(i.points for i in its), m.points, bounds)
        outcome = "passed" if got >= m.points else "partial" if got > 0 else "failed"
        tests.append(
            TestResult(
                MANUAL_LINE + m.exercise,
                m.title,
                m.exercise,
                "public",
                m.points,
                got,
                outcome,
                "\n".join(i.text() for i in its),
            )
        )
    for ex, its in by_ex.items():
        mine_t = [t for t in result.tests if t.exercise == ex and not t.is_override]
        auto, top = sum(t.score for t in mine_t), sum(t.max_score for t in mine_t)
        adjust = round(_within(auto, sum(i.points for i in its), top, bounds) - auto, 4)
        tests.append(
            TestResult(
                RUBRIC_LINE + ex, f"Rubric: {ex}", ex, "public", 0.0, adjust, "passed", "\n".join(i.text() for i in its)
            )
        )
    shown = copy.copy(result)  # not `replace`: that bounds the whole result again (~1 ms), and staff's lines are
    shown.tests = tests  # small and trusted; the worker's fields are as bounded as they were
    return shown, stale


def _within(auto: float, points: float, top: float, b: Bounds) -> float:
    """auto + points, kept within [floor·top, ceiling·top] widened to hold `auto` (items never push the other way)."""
    lo, hi = min(b.floor * top, auto), max(b.ceiling * top, auto)
    return round(min(hi, max(lo, auto + points)), 4)


def failure_groups(results: Iterable[SubmissionResult], exercise: str) -> dict[tuple, list[str]]:
    """The gradable submissions grouped by identical failures in `exercise` (the same tests not passed, with the
    same outcomes and messages; `()`: none failed), largest group first: one rubric item applied to a whole group
    (the workspace's grade by exercise, `autograder rubric --apply ITEM --like STUDENT`)."""
    groups: dict[tuple, list[str]] = {}
    for r in results:
        mine = [t for t in r.tests if t.exercise == exercise and not t.is_override and not t.is_manual]
        if not mine or not _gradable(r):
            continue
        key = tuple((t.id, t.outcome, t.message) for t in mine if t.outcome not in ("passed", "skipped"))
        groups.setdefault(key, []).append(r.submission_id)
    return dict(sorted(groups.items(), key=lambda kv: (not kv[0], -len(kv[1]))))


def exercise_points(result: SubmissionResult) -> dict[str, tuple[float, float]]:
    """{exercise: (points, points possible)} as the result is shown: its tests, an exercise graded by hand, and its
    rubric line (a line `is_override` with an exercise) counted, so that every face's per-exercise points add up
    to the total (a whole-score override, which has no exercise, aside)."""
    out: dict[str, list[float]] = {}
    for t in result.tests:
        if t.exercise:
            p = out.setdefault(t.exercise, [0.0, 0.0])
            p[0] += t.score
            p[1] += t.max_score
    return {ex: (round(a, 4), round(b, 4)) for ex, (a, b) in out.items()}


def pending(result: SubmissionResult | None) -> list[str]:
    """The exercises graded by hand that still need a look in `result` (as `score` left them)."""
    return [t.exercise for t in (result.tests if result else []) if t.is_manual and t.outcome == "pending"]


def progress(results: list[SubmissionResult], marks: Marks) -> tuple[dict[str, tuple[int, int]], dict[str, int]]:
    """({exercise: (graded, of)}, {staff member: submissions × exercises they applied an item to}): an exercise of
    a submission is graded when the grader graded it (a test ran) or, graded by hand, once an item is applied."""
    per: dict[str, list[int]] = {}
    for r in results:
        if not _gradable(r):
            continue
        for ex in dict.fromkeys(t.exercise for t in r.tests if t.exercise and not t.is_override):
            done = not any(t.exercise == ex and t.is_manual and t.outcome == "pending" for t in r.tests)
            c = per.setdefault(ex, [0, 0])
            c[0] += done
            c[1] += 1
    live = {i.id: i for i in marks.items if not i.deleted}
    by: dict[str, set[tuple[str, str]]] = {}
    for a in marks.applied:
        if a.item_id in live:
            by.setdefault(a.by, set()).add((a.submission_id, live[a.item_id].exercise))
    return {ex: (c[0], c[1]) for ex, c in per.items()}, {who: len(s) for who, s in sorted(by.items())}


def export_items(items: list[Item]) -> str:
    """The live items as a TOML file kept beside the assignment (`assignments/ID/rubric.toml`), to import
    next term (`import_items`).  Strings are JSON-escaped, which TOML basic strings accept."""
    import json

    out = ["# Rubric items: autograder rubric ASSIGNMENT --import this file (docs/cli.md)", ""]
    for i in items:
        if i.deleted:
            continue
        out += [
            "[[item]]",
            f"exercise = {json.dumps(i.exercise, ensure_ascii=False)}",
            f"title = {json.dumps(i.title, ensure_ascii=False)}",
            f"points = {i.points!r}",
            f"comment = {json.dumps(i.comment, ensure_ascii=False)}",
            f"note = {json.dumps(i.note, ensure_ascii=False)}",
            f"key = {json.dumps(i.key)}",
            "",
        ]
    return "\n".join(out)


def import_items(text: str) -> list[dict[str, Any]]:
    """The items of a rubric file (`export_items`), validated: dicts of exercise, title, points, comment, note,
    key.  A `RubricError` names the item that is wrong."""
    from autograder.config.compat import tomllib

    try:
        data = tomllib.loads(text)
    except tomllib.TOMLDecodeError as e:
        raise RubricError(f"not a rubric file: {e}") from None
    if set(data) - {"item"} or type(data.get("item", [])) is not list:
        raise RubricError("a rubric file holds [[item]] tables only")
    out = []
    for n, t in enumerate(data.get("item", []), start=1):
        if (
            type(t) is not dict
            or set(t) - {"exercise", "title", "points", "comment", "note", "key"}
            or not isinstance(t.get("exercise"), str)
            or type(t.get("points")) not in (int, float)
        ):
            raise RubricError(f"item {n}: exercise, title and points are required (comment, note, key optional)")
        title, points, comment, note = check_item(
            str(t.get("title", "")), t["points"], str(t.get("comment", "")), str(t.get("note", ""))
        )
        out.append(
            {
                "exercise": t["exercise"],
                "title": title,
                "points": points,
                "comment": comment,
                "note": note,
                "key": str(t.get("key", "")),
            }
        )
    return out
