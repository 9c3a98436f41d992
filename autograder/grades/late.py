"""The late penalty, applied to a final score as a pure function (no clock, no I/O): part of what counts.
The policy itself is a setting (`config.late.LatePolicy`: the manifest's `[deadline]`, the course file's)."""

from __future__ import annotations

import math
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Iterable

from autograder.config.deadline import LatePolicy, parse_time


@dataclass(frozen=True)
class LateResult:
    score: float  # the adjusted score
    raw_score: float
    penalty: float  # points deducted
    late_by: timedelta  # zero when on time (or unknown)
    late: bool
    explanation: str


def _fmt_delta(d: timedelta) -> str:
    minutes = int(d.total_seconds() // 60)
    days, rem = divmod(minutes, 24 * 60)
    hours, mins = divmod(rem, 60)
    parts = [
        f"{days} d" if days else "",
        f"{hours} h" if hours else "",
        f"{mins} min" if mins or not (days or hours) else "",
    ]
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
        why = (
            "the LMS marked this submission late and gave no submission time, so one %s's penalty applies"
            % policy.period
        )
    else:
        submitted_at = parse_time(submitted_at)
        late_by = submitted_at - due
        if late_by <= policy.grace:
            note = " (within the grace period)" if late_by > timedelta(0) else ""
            return LateResult(
                score,
                score,
                0.0,
                max(late_by, timedelta(0)),
                False,
                f"submitted on time{note}{ext}" if (note or ext) else "",
            )
        if policy.cutoff is not None and late_by > policy.cutoff:
            return LateResult(
                0.0,
                score,
                score,
                late_by,
                True,
                f"submitted {_fmt_delta(late_by)} after the due date{ext}, past the "
                f"{policy.cutoff.total_seconds() / 86400:g}-day cutoff: no credit",
            )
        periods = math.ceil(late_by / policy.period_length)
        why = f"submitted {_fmt_delta(late_by)} after the due date{ext}"
    percent = min(policy.max_penalty_percent, policy.penalty_percent * periods)
    base = max_score if policy.of == "max_score" else score
    penalty = min(score, round(base * percent / 100.0, 4))
    adjusted = round(max(0.0, score - penalty), 4)
    # "50 min after the due date: 1 day late" read as a contradiction: the count is of started periods
    unit = f"{periods} {policy.period}" + ("s'" if periods != 1 else "'s")
    started = f" (each started {policy.period} counts)" if submitted_at is not None else ""
    capped = " (capped)" if percent < policy.penalty_percent * periods else ""
    explanation = (
        f"{why}: {unit} penalty{started}, {percent:g}% of the "
        f"{'maximum score' if policy.of == 'max_score' else 'score'} deducted{capped} "
        f"({score:g} - {penalty:g} = {adjusted:g})"
    )
    return LateResult(adjusted, score, penalty, late_by, True, explanation)
