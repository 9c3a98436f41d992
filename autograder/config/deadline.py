"""Late submissions: the deadline policy of an assignment (what the manifest and course file say; applied
by `grades.late.apply_late_policy`, part of what counts).

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

The trusted side applies it (`grades.late`) to the final score only; the engine's scores are
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
        return cls(
            due=due,
            grace=timedelta(minutes=nums["grace_minutes"]),
            penalty_percent=nums["penalty_percent"],
            period=period,
            max_penalty_percent=min(100.0, nums["max_penalty_percent"]),
            of=of,
            cutoff=None if cutoff is None else timedelta(days=float(cutoff)),
            extensions=extensions,
        )


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
