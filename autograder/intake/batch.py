"""What a grading run takes in: the submissions of one class, who each is, and what intake has to say.

`take` is the one intake every face calls (the grade command, nbgrader interop, the bench): an LMS download
(Canvas, Moodle, nbgrader, Gradescope) through `downloads.unpack`, with the identity the LMS wrote; a folder
of notebooks through `submissions.collect`, matched to a roster by file name when one is given.  It reads
and copies only: the identities are recorded by the store (`store.folder.ResultsFolder`), the notes are
printed by the face.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime, timezone
from pathlib import Path

from autograder.intake import downloads
from autograder.intake.roster import (
    COPY_WINDOW_SECONDS,
    Identity,
    Roster,
    by_place,
    copied_times,
    read_submission_times,
    with_times,
)
from autograder.intake.submissions import IntakeError, Submission, collect


@dataclass
class Intake:
    """The class as intake found it: `identities` only for submissions intake knows a student of."""

    submissions: list[Submission]
    identities: dict[str, Identity] = field(default_factory=dict)
    notes: list[str] = field(default_factory=list)  # for the instructor: what was skipped, unmatched, missing


def take(
    paths: list[Path],
    scratch: Path,
    *,
    fmt: str | None = None,
    roster: Path | None = None,
    times: Path | None = None,
    assignment: str | None = None,
) -> Intake:
    """The submissions in `paths` (notebooks, folders, zips, one LMS download), copied under `scratch`.
    `fmt`: what an LMS handed out (None: detected); `roster`: a roster CSV; `times`: a CSV of when each
    notebook of a folder was submitted; `assignment`: nbgrader's name for it."""
    if len(paths) == 1 and (fmt or downloads.detect(paths[0])) != "folder":
        batch = downloads.unpack(
            paths[0], scratch, fmt=fmt, roster=Roster.read_csv(roster) if roster else None, assignment=assignment
        )
        return _some(Intake(batch.submissions, batch.identities, batch.report()), paths)
    subs = collect(paths, scratch)
    if not roster:
        return _some(Intake(subs), paths)
    # a folder of notebooks named after their students, or of their folders (a hub's collect; docs/interop.md):
    # who each is comes from where the file is, and its id becomes the student's (`roster.by_place`)
    subs, found, unmatched, notes = by_place(subs, Roster.read_csv(roster))
    stamps = [
        (s.id, s.source, None if s.problem else datetime.fromtimestamp(s.path.stat().st_mtime, timezone.utc))
        for s in subs
    ]
    notes = [f"warning: {n}" for n in notes]
    if times:
        try:
            when = read_submission_times(times)
        except (OSError, ValueError) as e:
            raise IntakeError(f"--submission-times: {e}") from None
        found, untimed = with_times(found, {s.id: s.source for s in subs}, when)
        notes += [f"warning: {sid}: no time in {times}: its file's time decides lateness" for sid in untimed]
    elif copied_times([w for _, _, w in stamps if w]):
        notes.append(
            f"warning: the {len(stamps)} notebooks' file times lie within {COPY_WINDOW_SECONDS} s of each "
            "other: they say when the folder was copied, not when each was submitted, and would decide "
            "lateness. Give the times: --submission-times CSV (columns student, submitted_at), or "
            "grade the LMS's own download (Canvas, Moodle, nbgrader, Gradescope), or drop the "
            "[deadline] from course.toml / the manifest for this assignment"
        )
    notes += [
        f"warning: {sid}: its folder (or, at the top, its file name) is none of a roster student's ids "
        f"(login, email, LMS or SIS id): not matched to the roster"
        for sid in unmatched
    ]
    return _some(Intake(subs, found, notes), paths)


def _some(intake: Intake, paths: list[Path]) -> Intake:
    """`intake`, unless it found nothing to grade: an `IntakeError` (what it noted says why)."""
    if not intake.submissions:
        raise IntakeError("\n".join([*intake.notes, "no notebooks found in " + ", ".join(map(str, paths))]))
    return intake
