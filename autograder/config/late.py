"""Late submissions: the deadline policy of an assignment, applied as a pure function.

The manifest may hold::

    [deadline]
    due = "2026-10-01T23:59:00+00:00"   # ISO 8601 with an offset (a naive time is read as UTC)
    grace_minutes = 15                   # submissions within the grace period are on time
    penalty_percent = 10                 # percent deducted per period (or part of one) late
    period = "day"                       # "day" or "hour"
    max_penalty_percent = 50             # never deduct more than this
    of = "max_score"                     # the percent is of "max_score" (default) or of the "score" earned
    cutoff_days = 7                      # optional: later than this scores 0
    [deadline.extensions]
    alice = "2026-10-03T23:59:00+00:00"  # a new due date for one student ...
    bob = 2                              # ... or extra days

The trusted side calls `apply_late_policy` on the final score only; the engine's scores are
never changed in place.  An extension may be keyed by any id the roster holds for the student
(login, LMS user id, SIS id, email).  A known submission time always decides; only when it is
unknown and the LMS says the submission is late (Canvas's `LATE` marker) is one period's penalty
applied, and the explanation says why.
"""
from __future__ import annotations

import math
from dataclasses import dataclass, field
from datetime import datetime, timedelta, timezone
from pathlib import Path
from typing import Any, Iterable, Mapping

from autograder.config.compat import tomllib


class LatePolicyError(ValueError):
    """A `[deadline]` table that cannot be used."""


def parse_time(value: Any) -> datetime:
    """An aware datetime from ISO 8601 text (or a datetime); naive times and a trailing `UTC`/`Z` mean UTC."""
    if isinstance(value, datetime):
        dt = value
    else:
        text = str(value).strip()
        if text.endswith(" UTC") or text.endswith(" GMT"):
            text = text[:-4]
        if text.endswith("Z"):
            text = text[:-1] + "+00:00"
        try:
            dt = datetime.fromisoformat(text)
        except ValueError:
            raise LatePolicyError(f"not a date and time: {value!r}") from None
    return dt if dt.tzinfo else dt.replace(tzinfo=timezone.utc)


@dataclass(frozen=True)
class LatePolicy:
    due: datetime
    grace: timedelta = timedelta(0)
    penalty_percent: float = 0.0
    period: str = "day"
    max_penalty_percent: float = 100.0
    of: str = "max_score"
    cutoff: timedelta | None = None
    extensions: Mapping[str, datetime] = field(default_factory=dict)

    @property
    def period_length(self) -> timedelta:
        return timedelta(hours=1) if self.period == "hour" else timedelta(days=1)

    def extension_key(self, ids: "str | Iterable[str] | None") -> str | None:
        """The extension key that names this student: any of their ids (login, LMS user id, SIS id, email,
        the kit's student id), compared without case.  None when no extension is theirs."""
        wanted = {i.strip().casefold() for i in ([ids] if isinstance(ids, str) else ids or []) if i and i.strip()}
        return next((k for k in self.extensions if k.strip().casefold() in wanted), None)

    def due_for(self, ids: "str | Iterable[str] | None") -> datetime:
        key = self.extension_key(ids)
        return self.due if key is None else self.extensions[key]

    def unknown_extensions(self, people: "Iterable[Iterable[str]]") -> list[str]:
        """Extension keys that name none of `people` (each given by all of their ids): a typo or a
        student who left, to be reported, never silently ignored."""
        known = {i.strip().casefold() for ids in people for i in ids if i and i.strip()}
        return [k for k in self.extensions if k.strip().casefold() not in known]

    @classmethod
    def from_table(cls, table: Mapping[str, Any] | None) -> "LatePolicy | None":
        if not table:
            return None
        if "due" not in table:
            raise LatePolicyError("[deadline] needs `due`")
        due = parse_time(table["due"])
        period = str(table.get("period", "day"))
        if period not in ("day", "hour"):
            raise LatePolicyError("[deadline] period must be 'day' or 'hour'")
        of = str(table.get("of", "max_score"))
        if of not in ("max_score", "score"):
            raise LatePolicyError("[deadline] of must be 'max_score' or 'score'")
        nums = {}
        for key, default in (("grace_minutes", 0.0), ("penalty_percent", 0.0), ("max_penalty_percent", 100.0)):
            v = table.get(key, default)
            if isinstance(v, bool) or not isinstance(v, (int, float)) or v < 0 or math.isnan(v):
                raise LatePolicyError(f"[deadline] {key} must be a number >= 0")
            nums[key] = float(v)
        cutoff = table.get("cutoff_days")
        if cutoff is not None and (isinstance(cutoff, bool) or not isinstance(cutoff, (int, float)) or cutoff < 0):
            raise LatePolicyError("[deadline] cutoff_days must be a number >= 0")
        extensions: dict[str, datetime] = {}
        for student, ext in dict(table.get("extensions", {})).items():
            if isinstance(ext, (int, float)) and not isinstance(ext, bool):
                extensions[str(student)] = due + timedelta(days=float(ext))
            else:
                extensions[str(student)] = parse_time(ext)
        return cls(due=due, grace=timedelta(minutes=nums["grace_minutes"]), penalty_percent=nums["penalty_percent"],
                   period=period, max_penalty_percent=min(100.0, nums["max_penalty_percent"]), of=of,
                   cutoff=None if cutoff is None else timedelta(days=float(cutoff)), extensions=extensions)


def load_policy(manifest: Path) -> LatePolicy | None:
    """The `[deadline]` table of an assignment's manifest.toml, or None when it has none."""
    data = tomllib.loads(manifest.read_text(encoding="utf-8"))
    return LatePolicy.from_table(data.get("deadline"))


def assignment_policy(manifest: Path, course: Any = None, assignment: str = "") -> LatePolicy | None:
    """The late policy every command applies: the manifest's `[deadline]`, with a course file's
    (`course.Course`) defaults, deadline and extensions merged over it (the course file wins)."""
    if course is None:
        return load_policy(manifest)
    data = tomllib.loads(manifest.read_text(encoding="utf-8"))
    return LatePolicy.from_table(course.deadline(assignment, data.get("deadline")))


@dataclass(frozen=True)
class LateResult:
    score: float            # the adjusted score
    raw_score: float
    penalty: float          # points deducted
    late_by: timedelta      # zero when on time (or unknown)
    late: bool
    explanation: str


def _fmt_delta(d: timedelta) -> str:
    minutes = int(d.total_seconds() // 60)
    days, rem = divmod(minutes, 24 * 60)
    hours, mins = divmod(rem, 60)
    parts = [f"{days} d" if days else "", f"{hours} h" if hours else "", f"{mins} min" if mins or not (days or hours) else ""]
    return " ".join(p for p in parts if p)


def apply_late_policy(
    score: float,
    max_score: float,
    submitted_at: datetime | None,
    policy: LatePolicy | None,
    *,
    student_id: str | Iterable[str] | None = None,
    late_flag: bool | None = None,
) -> LateResult:
    """The score after the late penalty, with a sentence a student can read.  Pure: no clock, no I/O.
    `student_id` is any of the student's ids (or all of them): an extension keyed by any one applies.
    A known `submitted_at` decides; the LMS's `late_flag` counts only when the time is unknown."""
    if policy is None:
        return LateResult(score, score, 0.0, timedelta(0), bool(late_flag), "")
    due = policy.due_for(student_id)
    ext = " (with an extension)" if policy.extension_key(student_id) is not None else ""
    if submitted_at is None:
        if not late_flag:
            return LateResult(score, score, 0.0, timedelta(0), False, "")
        periods, late_by = 1, timedelta(0)
        why = "the LMS marked this submission late and gave no submission time, so one %s's penalty applies" % policy.period
    else:
        submitted_at = parse_time(submitted_at)
        late_by = submitted_at - due
        if late_by <= policy.grace:
            note = " (within the grace period)" if late_by > timedelta(0) else ""
            return LateResult(score, score, 0.0, max(late_by, timedelta(0)), False,
                              f"submitted on time{note}{ext}" if (note or ext) else "")
        if policy.cutoff is not None and late_by > policy.cutoff:
            return LateResult(0.0, score, score, late_by, True,
                              f"submitted {_fmt_delta(late_by)} after the due date{ext}, past the "
                              f"{policy.cutoff.total_seconds() / 86400:g}-day cutoff: no credit")
        periods = math.ceil(late_by / policy.period_length)
        why = f"submitted {_fmt_delta(late_by)} after the due date{ext}"
    percent = min(policy.max_penalty_percent, policy.penalty_percent * periods)
    base = max_score if policy.of == "max_score" else score
    penalty = min(score, round(base * percent / 100.0, 4))
    adjusted = round(max(0.0, score - penalty), 4)
    unit = policy.period + ("s" if periods != 1 else "")
    capped = " (capped)" if percent < policy.penalty_percent * periods else ""
    explanation = (f"{why}: {periods} {unit} late, {percent:g}% of the "
                   f"{'maximum score' if policy.of == 'max_score' else 'score'} deducted{capped} "
                   f"({score:g} - {penalty:g} = {adjusted:g})")
    return LateResult(adjusted, score, penalty, late_by, True, explanation)
