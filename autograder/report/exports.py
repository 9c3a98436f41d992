"""Final grades for export: one row per student (score after the late policy, identity, per-test results),
and the generic CSV / JSON forms.  Canvas and Moodle formats live in `canvas_csv.py` and `moodle_csv.py`.

One policy for every export (Canvas and Moodle CSV, grades CSV/JSON, Canvas passback, LTI), decided
here in `GradeRow.export_score` and `GradeRow.blank_reason` and nowhere else:
- ungradable (the grader itself failed: `crashed` with no test run) and provisional (a grader or host
  fault touched it) results are always *blank*, never 0 and never a score: nbgrader's "a failed run
  shows as 0.0" is exactly what an export must not do.  The reason goes where the format has a comment;
- roster students with no submission (`status = "missing"`) are blank, or 0 with `missing="zero"`.
A blank grade changes nothing in the LMS (Canvas cell left empty, Moodle row and LMS score not sent).
"""
from __future__ import annotations

import csv
import io
import json
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any, Iterable

from autograder.intake.roster import Identity
from autograder.report.escape import csv_row
from autograder.report.files import write_atomic
from autograder.score.late import LatePolicy, LateResult, apply_late_policy
from autograder.score.results import SubmissionResult

MISSING_POLICIES = ("blank", "zero")   # what an export gives a roster student with no submission


@dataclass
class GradeRow:
    identity: Identity
    submission_id: str                 # "" for a student with no submission
    result: SubmissionResult | None
    late: LateResult | None
    status: str                        # the submission status, or "missing"

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
        if points_possible and r.max_score and points_possible != r.max_score:
            scaled = round(self.score * points_possible / r.max_score, 4)
            bits = [f"Score: {scaled:g}/{points_possible:g} ({self.score:g}/{r.max_score:g} in the grader's points)."]
        else:
            bits = [f"Score: {self.score:g}/{r.max_score:g}."]
        if r.message:
            bits.append(sentence(r.message, 300))
        if self.late and self.late.explanation:
            bits.append(sentence("Late: " + self.late.explanation))
        failed = [t for t in r.tests if t.outcome not in ("passed", "skipped")]
        if failed:
            bits.append(sentence("Not passed: " + "; ".join(f"{t.name} ({t.outcome})" for t in failed[:10])
                                 + ("; and more" if len(failed) > 10 else "")))
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
    return apply_late_policy(r.score, r.max_score, who.submitted_at, policy, student_id=who.ids(),
                             late_flag=who.late)


def grade_rows(
    results: Iterable[SubmissionResult],
    identities: dict[str, Identity] | None = None,
    *,
    policy: LatePolicy | None = None,
    roster: list[Identity] | None = None,
) -> list[GradeRow]:
    """Rows for every graded submission, plus roster students without one (status "missing")."""
    identities = identities or {}
    rows: list[GradeRow] = []
    covered: set[str] = set()
    for r in results:
        if r.submission_id.startswith("__"):
            continue  # the reference run
        who = identities.get(r.submission_id) or Identity(student_id=r.submission_id)
        late = _late(r, who, policy) if policy or who.late else None
        rows.append(GradeRow(who, r.submission_id, r, late, r.status))
        covered.update(x.casefold() for x in who.ids())
    for s in roster or []:
        if not {x.casefold() for x in s.ids()} & covered:
            rows.append(GradeRow(s, "", None, None, "missing"))
    return rows


def _fmt(x: float | None) -> str:
    return "" if x is None else f"{x:g}"


def per_test_columns(rows: list[GradeRow]) -> list[tuple[str, str]]:
    """(test id, display name) in first-seen order."""
    cols: dict[str, str] = {}
    for row in rows:
        for t in row.result.tests if row.result else []:
            cols.setdefault(t.id, t.name)
    return list(cols.items())


def generic_table(rows: list[GradeRow], missing: str = "blank") -> tuple[list[str], list[list[str]]]:
    tests = per_test_columns(rows)
    header = ["student_id", "name", "email", "sis_id", "section", "submission_id", "status", "raw_score",
              "late_penalty", "score", "max_score", "submitted_at", "late", "late_explanation"]
    for tid, _ in tests:
        header += [f"{tid} score", f"{tid} outcome"]
    header.append("message")
    body = []
    for row in rows:
        who, r = row.identity, row.result
        by_id = {t.id: t for t in r.tests} if r else {}
        line = [who.student_id, who.name, who.email, who.sis_id, who.section, row.submission_id, row.status,
                _fmt(row.raw_score), _fmt(row.late.penalty if row.late and row.gradable else None), _fmt(row.export_score(missing)),
                _fmt(row.max_score), who.submitted_at.isoformat() if who.submitted_at else "",
                "" if row.late is None and who.late is None else str(bool((row.late and row.late.late) or who.late)).lower(),
                row.late.explanation if row.late else ""]
        for tid, _ in tests:
            t = by_id.get(tid)
            line += ["" if t is None or t.outcome == "skipped" else f"{t.score:g}", t.outcome if t else ""]
        line.append("; ".join(x for x in (row.blank_reason, r.message if r else "") if x))
        body.append(line)
    return header, body


def write_csv(path: Path, header: list[str], body: list[list[str]], *, bom: bool = False) -> None:
    """Every field, header included, goes through `escape.csv_cell` here, not in the callers."""
    buf = io.StringIO()
    w = csv.writer(buf, quoting=csv.QUOTE_MINIMAL, lineterminator="\r\n")
    w.writerow(csv_row(header))
    w.writerows(csv_row(line) for line in body)
    write_atomic(path, ("\ufeff" if bom else "") + buf.getvalue())


def write_generic_csv(path: Path, rows: list[GradeRow], missing: str = "blank") -> None:
    header, body = generic_table(rows, missing)
    write_csv(path, header, body)


def generic_json(rows: list[GradeRow], assignment: str, missing: str = "blank") -> dict[str, Any]:
    students = []
    for row in rows:
        r = row.result
        students.append({
            "identity": row.identity.to_json(),
            "submission_id": row.submission_id or None,
            "status": row.status,
            "raw_score": row.raw_score,
            "score": row.export_score(missing),
            "blank_reason": row.blank_reason,
            "max_score": row.max_score,
            "late": None if row.late is None else {
                "late": row.late.late, "penalty": row.late.penalty,
                "late_by_seconds": row.late.late_by.total_seconds(), "explanation": row.late.explanation},
            "message": r.message if r else "",
            "tests": [{"id": t.id, "name": t.name, "exercise": t.exercise, "kind": t.kind, "outcome": t.outcome,
                       "score": t.score, "max_score": t.max_score} for t in (r.tests if r else [])],
        })
    return {"assignment": assignment, "students": students}


def write_generic_json(path: Path, rows: list[GradeRow], assignment: str, missing: str = "blank") -> None:
    write_atomic(path, json.dumps(generic_json(rows, assignment, missing), indent=2, ensure_ascii=False, allow_nan=False) + "\n")


@dataclass
class AssignmentGrades:
    """One assignment's grades as every command shows and exports them (see `assignment_grades`)."""

    assignment: Any                    # autograder.assignment.Assignment
    out: Path                          # the results folder
    results: list[SubmissionResult]    # with the overrides in force
    rows: list[GradeRow]
    roster: Any                        # intake.roster.Roster | None
    warnings: list[str]                # for the instructor: stale overrides, unmatched keys and submissions
    counted: list[SubmissionResult] = field(default_factory=list)   # the counted versions, before overrides
    course: Any = None                 # what these grades were computed with (`again`)
    roster_csv: Path | None = None
    identities: dict[str, Identity] = field(default_factory=dict)   # submission id -> who, matched to the roster
    policy: LatePolicy | None = None
    stale: dict[str, list[Any]] = field(default_factory=dict)       # submission id -> its stale overrides
    notes: tuple[list[str], list[str]] = ([], [])   # the other warnings: (before the stale ones, after them)

    def again(self) -> "AssignmentGrades":
        """The same assignment's grades read again (after an override, a regrade)."""
        return assignment_grades(self.assignment.kit, self.assignment.id, self.out, roster_csv=self.roster_csv,
                                 course=self.course)

    def with_overrides_of(self, submission_ids: Iterable[str]) -> "AssignmentGrades":
        """These grades with the overrides of `submission_ids` read again from the audit trail, every other row
        as it is: what `again()` gives when only those submissions' overrides changed (the gradebook's
        results, identities, roster and policies unchanged), at the cost of those rows.  Each changed row
        goes through the steps `assignment_grades` takes (`score.overrides.in_force` and `apply`,
        `grade_rows`)."""
        from autograder.score.overrides import apply, history, in_force

        changed = set(submission_ids)
        results, rows, stale = list(self.results), list(self.rows), dict(self.stale)
        at = {r.submission_id: i for i, r in enumerate(rows) if r.result is not None}
        for i, r in enumerate(self.counted):
            if r.submission_id not in changed:
                continue
            applied, old = in_force(history(self.out / "gradebook.sqlite", self.assignment.id, r.submission_id), r)
            results[i] = apply(r, applied)
            stale[r.submission_id] = old
            if r.submission_id in at:
                rows[at[r.submission_id]] = grade_rows([results[i]], self.identities, policy=self.policy)[0]
        stale = {r.submission_id: stale[r.submission_id] for r in self.counted if stale.get(r.submission_id)}
        return replace(self, results=results, rows=rows, stale=stale,
                       warnings=_warnings(self.assignment.id, self.notes, stale))

    def with_results(self, stored: list[SubmissionResult]) -> "AssignmentGrades":
        """These grades with `stored` (results stored again, a re-grade, of submissions they hold) in place of
        the gradebook's they were read from: what `again()` gives when nothing else changed (no submission
        added, identities, roster and policies unchanged), at the cost of those rows.  The version that
        counts is chosen as `assignment_grades` chooses it (`_counting`), then `with_overrides_of`."""
        ids = {r.submission_id for r in self.counted}
        if any(r.submission_id not in ids for r in stored):
            raise ValueError("with_results takes results of submissions these grades hold: read them again")
        now = {r.submission_id: r for r in _counting(self.out, self.assignment.id, stored, self.course, self.policy,
                                                      self.identities)}
        counted = [now.get(r.submission_id, r) for r in self.counted]
        return replace(self, counted=counted).with_overrides_of(now)


def _warnings(assignment: str, notes: tuple[list[str], list[str]], stale: dict[str, list[Any]]) -> list[str]:
    return notes[0] + [
        f"override #{o.id} of {o.submission_id} ({o.target}) is stale: it was made on another version than the "
        f"one that counts; not applied (see `autograder override {assignment} --list`)"
        for old in stale.values() for o in old] + notes[1]


def _counting(out: Path, assignment: str, results: list[SubmissionResult], course: Any, policy: LatePolicy | None,
              identities: dict[str, Identity]) -> list[SubmissionResult]:
    """`results` (the gradebook's) with each replaced by the graded version `[course] counts` chooses
    (`report.history.counting`; a student's own due date, extensions included)."""
    counts = course.table("course").get("counts", "latest") if course else "latest"
    if counts == "latest":
        return results
    from autograder.report.history import counting

    due = (lambda sid: policy.due_for(identities[sid].ids()) if policy and sid in identities else None)
    return counting(out, assignment, results, counts, due)[0]


def assignment_grades(kit: Path, assignment: str, out: Path, *, roster_csv: Path | None = None,
                      course: Any = None) -> AssignmentGrades:
    """Everything a command needs to show or send one assignment's grades, decided once, here: the graded
    results (`OUT/gradebook.sqlite`) with the instructor overrides in force, who is who (`identities.json`
    written at intake, matched to the roster), the late policy (manifest, then the course file), and
    warnings for whatever names nobody (a stale override, an extension key, a submission off the roster).
    The CLI and any other face call this and print or show `warnings`."""
    from autograder.assignment import load_assignment
    from autograder.intake.roster import Roster, identities_for, match_roster, read_identities
    from autograder.report.gradebook import Gradebook
    from autograder.score.late import assignment_policy
    from autograder.score.overrides import effective

    a = load_assignment(assignment, kit)
    out = out.resolve()
    gb = Gradebook(out / "gradebook.sqlite")
    try:
        results = gb.all(a.id)
    finally:
        gb.close()
    unmatched: list[str] = []
    identities = identities_for([r.submission_id for r in results], read_identities(out / a.id / "identities.json"))
    roster = Roster.read_csv(roster_csv) if roster_csv else None
    match = match_roster(identities, roster)
    for sid in match.unmatched:
        unmatched.append(f"submission {sid} is not on the roster")
    policy = assignment_policy(a.root / "manifest.toml", course, a.id)
    counted = _counting(out, a.id, results, course, policy, match.matched)
    # An override belongs to the version it was made on (its sha256): on any other version, the counted one
    # included, it is stale, listed and never applied.
    results, stale = effective(out / "gradebook.sqlite", counted)
    extensions: list[str] = []
    if policy is not None:
        people = [s.ids() for s in roster.students] if roster else [w.ids() for w in match.matched.values()]
        for key in policy.unknown_extensions(people):
            extensions.append(f"{a.id}: the extension for {key!r} names nobody "
                              + ("on the roster (login, LMS user id, SIS id or email)" if roster else
                                 "who submitted") + ": not applied")
    rows = grade_rows(results, match.matched, policy=policy, roster=roster.students if roster else None)
    by_sid: dict[str, list[Any]] = {}
    for o in stale:
        by_sid.setdefault(o.submission_id, []).append(o)
    notes = (unmatched, extensions)
    return AssignmentGrades(a, out, results, rows, roster, _warnings(a.id, notes, by_sid), counted, course, roster_csv,
                            match.matched, policy, by_sid, notes)


EXPORT_FILES = {"canvas": "canvas.csv", "moodle": "moodle.csv", "csv": "grades_export.csv", "json": "grades_export.json"}


def write_export(fmt: str, dest: Path, grades: AssignmentGrades, *, name: str | None = None,
                 canvas_id: str | None = None, points: float | None = None, missing: str = "blank",
                 moodle_identity: str = "email") -> tuple[list[str], list[str]]:
    """One assignment's grades in an LMS import format (`fmt`: canvas, moodle, csv, json) at `dest`.
    Returns (students not exported, with why; Canvas cells left blank, with why)."""
    from autograder.report.canvas_csv import write_canvas_csv
    from autograder.report.moodle_csv import write_moodle_csv

    a, rows = grades.assignment, grades.rows
    if fmt == "canvas":
        canvas = write_canvas_csv(dest, rows, assignment_name=name or a.title, assignment_id=canvas_id,
                                  points_possible=points, missing=missing)
        return canvas.skipped, canvas.blanks
    if fmt == "moodle":
        return write_moodle_csv(dest, rows, item_name=name or a.title, identity=moodle_identity, grade_max=points,
                                missing=missing).skipped, []
    if fmt == "csv":
        write_generic_csv(dest, rows, missing)
    else:
        write_generic_json(dest, rows, a.id, missing)
    return [], []
