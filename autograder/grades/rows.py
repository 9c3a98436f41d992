"""What counts: one row per student (score after the late policy, overrides and the counted version,
identity, per-test results), read by every export, the workspace and the LMS targets.

One policy for every export (Canvas and Moodle CSV, grades CSV/JSON, Canvas passback, LTI), decided
here in `GradeRow.export_score` and `GradeRow.blank_reason` and nowhere else:
- ungradable (the grader itself failed: `crashed` with no test run) and provisional (a grader or host
  fault touched it) results are always *blank*, never 0 and never a score: nbgrader's "a failed run
  shows as 0.0" is exactly what an export must not do.  The reason goes where the format has a comment;
- roster students with no submission (`status = "missing"`) are blank, or 0 with `missing="zero"`.
A blank grade changes nothing in the LMS (Canvas cell left empty, Moodle row and LMS score not sent).
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any, Iterable, Protocol

from autograder.config.deadline import LatePolicy, assignment_policy
from autograder.grades.counting import Version, counting
from autograder.grades.late import LateResult, apply_late_policy
from autograder.grades.overrides import Override, apply_tests, apply_whole, in_force
from autograder.grades.rubric import Applied, Bounds, Marks, pending
from autograder.grades.rubric import score as rubric_score
from autograder.intake.roster import Identity, Roster, identities_for, match_roster
from autograder.judge.results import SubmissionResult
from autograder.notebook.cells import exercise_key, exercise_order

MISSING_POLICIES = ("blank", "zero")  # what an export gives a roster student with no submission


@dataclass
class GradeRow:
    identity: Identity
    submission_id: str  # "" for a student with no submission
    result: SubmissionResult | None
    late: LateResult | None
    status: str  # the submission status, or "missing"
    order: tuple[str, ...] = ()  # the assignment's exercises in the notebook's order (`AssignmentGrades.order`)

    @property
    def gradable(self) -> bool:
        """False when there is no trustworthy score to send (grader failure, a provisional result that
        a grader or host fault touched, no submission)."""
        if self.result is None or self.result.provisional:
            return False
        return not (self.result.status == "crashed" and not self.result.tests)

    @property
    def raw_score(self) -> float | None:
        return self.result.score if self.gradable and self.result else None

    @property
    def score(self) -> float | None:
        if not self.gradable:
            return None
        return self.late.score if self.late else self.result.score  # type: ignore[union-attr]

    @property
    def pending(self) -> list[str]:
        """The exercises graded by hand still to be graded (`grades.rubric.pending`): the score is not final."""
        return pending(self.result) if self.gradable else []

    def export_score(self, missing: str = "blank") -> float | None:
        """The score an export writes: None means blank (see the module docstring)."""
        if missing not in MISSING_POLICIES:
            raise ValueError(f"missing must be one of {', '.join(MISSING_POLICIES)}")
        if self.result is None:
            return 0.0 if missing == "zero" else None
        return self.score

    @property
    def blank_reason(self) -> str:
        """Why `score` is blank ("" when it is not): instructor-facing, for comment columns and skip lists."""
        if self.result is None:
            return "no submission"
        if self.result.provisional:
            return "provisional: a grader or host fault; graded again on the next run"
        return "" if self.gradable else "not graded: the grader itself failed"

    @property
    def max_score(self) -> float | None:
        return self.result.max_score if self.result and self.result.tests else None

    def comment(self, points_possible: float | None = None) -> str:
        """A one-paragraph summary for an LMS feedback field (student-safe).  With `points_possible` the
        score is stated on the LMS's scale, the one the LMS shows next to the comment."""
        if self.result is None:
            return "No submission was received."
        if not self.gradable:
            return "Your submission could not be graded because of a grader problem; your instructor has been told."
        r = self.result
        if points_possible and r.max_score and points_possible != r.max_score and self.score is not None:
            scaled = round(self.score * points_possible / r.max_score, 4)
            bits = [f"Score: {scaled:g}/{points_possible:g} ({self.score:g}/{r.max_score:g} in the grader's points)."]
        else:
            bits = [f"Score: {self.score:g}/{r.max_score:g}."]
        if r.message:
            bits.append(sentence(r.message, 300))
        said = [
            line
            for t in r.tests
            if (t.is_override and t.exercise) or (t.is_manual and t.outcome != "pending")
            for line in t.message.splitlines()
            if line.strip()
        ]  # the applied rubric items' texts
        if said:
            bits.append(sentence("Comments: " + "; ".join(said), 600))
        if self.late and self.late.explanation:
            bits.append(sentence("Late: " + self.late.explanation))
        if self.pending:
            bits.append(
                sentence("Still to be graded by hand: " + ", ".join(self.pending) + "; this score is not final yet")
            )
        key = exercise_key(self.order)
        failed = sorted(
            (t for t in r.tests if t.outcome not in ("passed", "skipped", "pending") and not t.is_manual),
            key=lambda t: key(t.exercise),
        )
        if failed:
            bits.append(
                sentence(
                    "Not passed: "
                    + "; ".join(f"{t.name} ({t.outcome})" for t in failed[:10])
                    + ("; and more" if len(failed) > 10 else "")
                )
            )
        return " ".join(bits)


def sentence(text: str, cap: int = 0) -> str:
    """`text` as one sentence of an LMS comment: capitalised, ending in a full stop (cut at a word with
    an ellipsis past `cap` characters), so that the parts of a comment never run together."""
    text = " ".join(text.split())
    if cap and len(text) > cap:
        text = text[:cap].rsplit(" ", 1)[0].rstrip(",;:") + "…"
    text = text[:1].upper() + text[1:]
    return text if text.endswith((".", "!", "?", "…")) else text + "."


def _late(r: SubmissionResult, who: Identity, policy: LatePolicy | None) -> LateResult:
    """A submission time the kit knows (the LMS's, timestamp.txt, the download's file time) decides; the
    LMS's late flag (Canvas's `LATE`) counts only when there is none.  An extension applies under any of
    the student's ids."""
    return apply_late_policy(r.score, r.max_score, who.submitted_at, policy, student_id=who.ids(), late_flag=who.late)


def grade_rows(
    results: Iterable[SubmissionResult],
    identities: dict[str, Identity] | None = None,
    *,
    policy: LatePolicy | None = None,
    roster: list[Identity] | None = None,
    order: Iterable[str] = (),
) -> list[GradeRow]:
    """Rows for every graded submission, plus roster students without one (status "missing"); `order`: the
    exercises in the notebook's order, which every face lists them in."""
    order = tuple(order)
    identities = identities or {}
    rows: list[GradeRow] = []
    covered: set[str] = set()
    for r in results:
        if r.submission_id.startswith("__"):
            continue  # the reference run
        who = identities.get(r.submission_id) or Identity(student_id=r.submission_id)
        late = _late(r, who, policy) if policy or who.late else None
        rows.append(GradeRow(who, r.submission_id, r, late, r.status, order))
        covered.update(x.casefold() for x in who.ids())
    for s in roster or []:
        if not {x.casefold() for x in s.ids()} & covered:
            rows.append(GradeRow(s, "", None, None, "missing", order))
    return rows


class Stored(Protocol):
    """What grades are computed from: one results folder as the store keeps it (`store.folder.ResultsFolder`).
    Grades come before the store in the pipeline, so they name what they read and the store provides it."""

    out: Path

    def results(self, assignment: str) -> list[SubmissionResult]:
        """The gradebook's results, each submission's graded last."""

    def identities(self, assignment: str) -> dict[str, Identity]:
        """Who each submission is, as the LMS wrote it at intake (`identities.json`)."""

    def versions(self, assignment: str, submission_id: str) -> list[Version]:
        """Every kept graded version of a submission, oldest first."""

    def record(self, assignment: str, submission_id: str, sha256: str) -> SubmissionResult:
        """The stored record of one kept version (OSError/ValueError/KeyError when it cannot be read)."""

    def marks(self, assignment: str, submission_id: str | None = None) -> Marks:
        """What staff added (overrides, rubric items and where they are applied, line comments)."""


DEFAULT_BOUNDS = Bounds()  # course.toml without [rubric]: items keep an exercise within 0 and its points


def derive(
    counted: SubmissionResult,
    marks: Marks,
    manual: Any = (),
    bounds: Bounds = DEFAULT_BOUNDS,
    overrides: list[Override] | None = None,
) -> tuple[SubmissionResult, list[Override], list[Applied]]:
    """(the result as shown and exported, its stale overrides, its stale rubric applications): the counted
    version with the test overrides in force, then the rubric (`grades.rubric.score`), then the whole-submission
    override.  `overrides`: those in force instead of the trail's (what a clear would leave)."""
    applied, stale = in_force(marks.overrides, counted)
    if overrides is not None:
        applied = overrides
    shown, stale_rubric = rubric_score(apply_tests(counted, applied), marks.items, marks.applied, manual, bounds)
    return apply_whole(shown, applied), stale, stale_rubric


@dataclass
class AssignmentGrades:
    """One assignment's grades as every command shows and exports them (`read_grades`)."""

    assignment: Any  # autograder.config.assignment.Assignment
    out: Path  # the results folder
    results: list[SubmissionResult]  # with the overrides in force
    rows: list[GradeRow]
    roster: Any  # intake.roster.Roster | None
    warnings: list[str]  # for the instructor: stale overrides, unmatched keys and submissions
    counted: list[SubmissionResult] = field(default_factory=list)  # the counted versions, before overrides
    course: Any = None  # what these grades were computed with (`again`)
    roster_csv: Path | None = None
    stored: Stored | None = None  # where they were read from (`again`, `with_results`)
    identities: dict[str, Identity] = field(default_factory=dict)  # submission id -> who, matched to the roster
    policy: LatePolicy | None = None
    stale: dict[str, list[Any]] = field(default_factory=dict)  # submission id -> its stale overrides
    notes: tuple[list[str], list[str]] = ([], [])  # the other warnings: (before the stale ones, after them)
    marks: Marks = field(default_factory=Marks)  # what staff added: overrides, rubric items, applications, notes
    bounds: Bounds = Bounds()  # course.toml [rubric]
    stale_rubric: dict[str, list[Applied]] = field(default_factory=dict)  # submission id -> its stale applications
    order: tuple[str, ...] = ()  # the exercises in the notebook's order (the master's `check()` lines)

    def derive(self, counted: SubmissionResult, overrides: list[Override] | None = None) -> SubmissionResult:
        """`counted` as these grades show it (`derive`), with `overrides` in force instead of the trail's."""
        return derive(counted, self.marks.of(counted.submission_id), self.assignment.manual, self.bounds, overrides)[0]

    def again(self) -> "AssignmentGrades":
        """The same assignment's grades read again (after an override, a regrade)."""
        assert self.stored is not None
        return read_grades(self.assignment, self.stored, roster_csv=self.roster_csv, course=self.course)

    def with_overrides_of(self, submission_ids: Iterable[str]) -> "AssignmentGrades":
        """These grades with the marks (overrides, rubric) of `submission_ids` read again, every other row
        as it is: what `again()` gives when only those submissions' marks changed (the gradebook's
        results, identities, roster and policies unchanged), at the cost of those rows.  Each changed row
        goes through the steps `read_grades` takes (`derive`, `grade_rows`)."""

        changed = set(submission_ids)
        assert self.stored is not None
        marks = self.stored.marks(self.assignment.id)
        results, rows = list(self.results), list(self.rows)
        stale, stale_rubric = dict(self.stale), dict(self.stale_rubric)
        at = {r.submission_id: i for i, r in enumerate(rows) if r.result is not None}
        for i, r in enumerate(self.counted):
            if r.submission_id not in changed:
                continue
            results[i], stale[r.submission_id], stale_rubric[r.submission_id] = derive(
                r, marks.of(r.submission_id), self.assignment.manual, self.bounds
            )
            if r.submission_id in at:
                rows[at[r.submission_id]] = grade_rows(
                    [results[i]], self.identities, policy=self.policy, order=self.order
                )[0]
        ids = [r.submission_id for r in self.counted]
        stale = {sid: stale[sid] for sid in ids if stale.get(sid)}
        stale_rubric = {sid: stale_rubric[sid] for sid in ids if stale_rubric.get(sid)}
        return replace(
            self,
            results=results,
            rows=rows,
            stale=stale,
            marks=marks,
            stale_rubric=stale_rubric,
            warnings=_warnings(self.assignment.id, self.notes, stale, self.counted, stale_rubric, marks),
        )

    def with_results(self, stored: list[SubmissionResult]) -> "AssignmentGrades":
        """These grades with `stored` (results stored again, a re-grade, of submissions they hold) in place of
        the gradebook's they were read from: what `again()` gives when nothing else changed (no submission
        added, identities, roster and policies unchanged), at the cost of those rows.  The version that
        counts is chosen as `read_grades` chooses it (`_counting`), then `with_overrides_of`."""
        assert self.stored is not None
        ids = {r.submission_id for r in self.counted}
        if any(r.submission_id not in ids for r in stored):
            raise ValueError("with_results takes results of submissions these grades hold: read them again")
        now = {
            r.submission_id: r
            for r in _counting(self.stored, self.assignment.id, stored, self.course, self.policy, self.identities)
        }
        counted = [now.get(r.submission_id, r) for r in self.counted]
        return replace(self, counted=counted).with_overrides_of(now)


def _warnings(
    assignment: str,
    notes: tuple[list[str], list[str]],
    stale: dict[str, list[Any]],
    counted: list[SubmissionResult],
    stale_rubric: dict[str, list[Applied]] | None = None,
    marks: Marks | None = None,
) -> list[str]:
    """The instructor's warnings: `notes[0]`, the provisional results (one line per reason), the stale
    overrides, `notes[1]`."""
    by_reason: dict[str, list[str]] = {}
    for r in counted:
        if r.provisional:
            by_reason.setdefault(r.provisional, []).append(r.submission_id)
    provisional = [
        f"{len(ids)} submission{'s are' if len(ids) > 1 else ' is'} provisional ({why}): "
        + ", ".join(ids[:10])
        + (f" and {len(ids) - 10} more" if len(ids) > 10 else "")
        + "; left blank in every export until graded again"
        for why, ids in by_reason.items()
    ]
    return notes[0] + provisional + stale_warnings(assignment, stale, stale_rubric or {}, marks) + notes[1]


def stale_warnings(
    assignment: str, stale: dict[str, list[Any]], stale_rubric: dict[str, list[Applied]], marks: Marks | None
) -> list[str]:
    """One warning per override and per rubric item made on a version that no longer counts."""
    return [
        f"override #{o.id} of {o.submission_id} ({o.target}) is stale: it was made on another version than the "
        f"one that counts; not applied (see `autograder override {assignment} --list`)"
        for old in stale.values()
        for o in old
    ] + stale_applications(assignment, stale_rubric, marks)


def stale_applications(assignment: str, stale: dict[str, list[Applied]], marks: Marks | None) -> list[str]:
    """One warning per rubric item applied to a version that no longer counts."""
    titles = {i.id: i.title for i in (marks.items if marks else [])}
    return [
        f"rubric item #{a.item_id} ({titles.get(a.item_id, '?')}) of {a.submission_id} is stale: it was applied "
        f"to another version than the one that counts; not applied (apply it again: `autograder rubric "
        f"{assignment} --apply {a.item_id} {a.submission_id}`)"
        for old in stale.values()
        for a in old
    ]


def _counting(
    stored: Stored,
    assignment: str,
    results: list[SubmissionResult],
    course: Any,
    policy: LatePolicy | None,
    identities: dict[str, Identity],
) -> list[SubmissionResult]:
    """`results` (the gradebook's) with each replaced by the graded version `[course] counts` chooses
    (`grades.counting.counting`; a student's own due date, extensions included)."""
    counts = course.table("course").get("counts", "latest") if course else "latest"
    if counts == "latest":
        return results

    def due(sid: str) -> Any:
        return policy.due_for(identities[sid].ids()) if policy and sid in identities else None

    return counting(
        results,
        counts,
        due,
        lambda sid: stored.versions(assignment, sid),
        lambda sid, sha: stored.record(assignment, sid, sha),
    )[0]


def read_grades(a: Any, stored: Stored, *, roster_csv: Path | None = None, course: Any = None) -> AssignmentGrades:
    """Everything a command needs to show or send one assignment's grades, decided once, here: the graded
    results (the gradebook's) with the instructor overrides in force, who is who (as the LMS wrote it at
    intake, matched to the roster), the late policy (manifest, then the course file), and warnings for
    whatever names nobody (a stale override, an extension key, a submission off the roster).  The faces read
    it through `store.folder.assignment_grades` and print or show `warnings`."""

    out = stored.out
    results = stored.results(a.id)
    unmatched: list[str] = []
    identities = identities_for([r.submission_id for r in results], stored.identities(a.id))
    roster = Roster.read_csv(roster_csv) if roster_csv else None
    match = match_roster(identities, roster)
    for sid in match.unmatched:
        unmatched.append(f"submission {sid} is not on the roster")
    policy = assignment_policy(a.root / "manifest.toml", course, a.id)
    counted = _counting(stored, a.id, results, course, policy, match.matched)
    # An override or a rubric item belongs to the version it was made on (its sha256): on any other version, the
    # counted one included, it is stale, listed and never applied.
    marks, bounds = stored.marks(a.id), Bounds.of(course)
    results, by_sid, by_sid_rubric = [], {}, {}
    for r in counted:
        shown, old, old_rubric = derive(r, marks.of(r.submission_id), a.manual, bounds)
        results.append(shown)
        if old:
            by_sid[r.submission_id] = old
        if old_rubric:
            by_sid_rubric[r.submission_id] = old_rubric
    extensions: list[str] = []
    if policy is not None:
        people = [s.ids() for s in roster.students] if roster else [w.ids() for w in match.matched.values()]
        for key in policy.unknown_extensions(people):
            extensions.append(
                f"{a.id}: the extension for {key!r} names nobody "
                + ("on the roster (login, LMS user id, SIS id or email)" if roster else "who submitted")
                + ": not applied"
            )
    order = tuple(exercise_order(a.solution))
    rows = grade_rows(results, match.matched, policy=policy, roster=roster.students if roster else None, order=order)
    notes = (unmatched, extensions)
    return AssignmentGrades(
        a,
        out,
        results,
        rows,
        roster,
        _warnings(a.id, notes, by_sid, counted, by_sid_rubric, marks),
        counted,
        course,
        roster_csv,
        stored,
        match.matched,
        policy,
        by_sid,
        notes,
        marks,
        bounds,
        by_sid_rubric,
        order,
    )
