"""Unpack what an LMS hands out into `Submission`s, each with the student's `Identity`.

Recognised layouts (`detect` picks one; `unpack(..., fmt=...)` forces one):

| format | what it looks like | submission time |
|---|---|---|
| `canvas` | "Download Submissions" zip (or its extracted folder): `lastnamefirstname_<userid>_<submissionid>_<file>`, `..._LATE_<userid>_...` when late; a resubmission renames the file `<file>-1.ipynb`, `-2`, ... | Canvas's late marker; the member's time |
| `moodle` | "Download all submissions" zip: `Full Name_<participantid>_assignsubmission_file[_]/<file>` (folders) or `Full Name_<id>_assignsubmission_file_<file>` (flat) | the member's time |
| `nbgrader` | a course root or its `submitted/`: `submitted/<student>/<assignment>/*.ipynb` + `timestamp.txt` | `timestamp.txt` |
| `gradescope` | one submission dir (`/autograder/submission`), `../submission_metadata.json` beside it | `created_at` of the metadata |
| `folder` | a folder of notebooks (`alice.ipynb`, or `alice/hw.ipynb`), one notebook, or a zip of them | file mtime |

Identity comes only from what the LMS wrote, never from a name the student chose: Canvas's prefix
(`name_[LATE_]userid_submissionid_`, read from the left: the student's file name comes after it),
Moodle's prefix (Moodle turns every `_` of the name into a space, so the participant id is the first
`_<digits>_assignsubmission_<plugin>` and, in the folder layout, the folder's; a file's own name is never
read), nbgrader's student folder, Gradescope's `submission_metadata.json`, a plain folder's layout.
One notebook per student is kept: the newest (Canvas: highest resubmission number and
submission id; elsewhere the newest time); the others are listed in `Batch.superseded`.  Files the
layout gives to one student id under different names (Moodle and Canvas write one name per student;
a plain folder holding both `alice.ipynb` and `alice/`) are ambiguous: each is an `invalid` submission
whose message names every claimant, attached to none of them, never a silent supersede.
Non-notebook files are listed in `Batch.ignored`.  Zip members are extracted by base name
under a generated name (no path traversal), with the same size caps as `intake.submissions`.
"""

from __future__ import annotations

import json
import os
import re
import stat
from dataclasses import dataclass, field, replace
from datetime import datetime, timezone
from pathlib import Path

from autograder.config.deadline import LatePolicyError, parse_time
from autograder.intake.roster import Identity, Roster, RosterMatch, match_roster
from autograder.intake.submissions import IntakeError, Submission, ZipExtractor, open_zip, safe_id, unique_id

__all__ = ["Identity", "Entry", "Batch", "detect", "unpack", "FORMATS"]

FORMATS = ("canvas", "moodle", "nbgrader", "gradescope", "folder")

CANVAS_RE = re.compile(
    r"^(?P<name>[^_]+(?:_[^_]+)*?)_(?:(?P<late>late)_)?(?P<uid>\d+)_(?P<subid>\d+)_(?P<orig>.+)$", re.IGNORECASE
)
RESUBMISSION_RE = re.compile(r"^(?P<stem>.+?)-(?P<n>\d+)(?P<ext>\.[^.]+)$")
# Moodle replaces every "_" of the name (or "Participant", blind marking; or the group's name) by a space:
# the first "_" ends the name.  Folders: `..._file` (Moodle 4) or `..._file_` (3.x); flat: `..._file_<file>`.
MOODLE_RE = re.compile(r"^(?P<name>[^_]+)_(?P<pid>\d+)_assignsubmission_(?P<plugin>[a-z]+)(?:_(?P<rest>.*))?$", re.S)


@dataclass(frozen=True)
class Entry:
    submission: Submission
    identity: Identity


@dataclass
class Batch:
    format: str
    entries: list[Entry]
    superseded: list[str] = field(default_factory=list)  # older attempts / extra notebooks not graded
    ignored: list[str] = field(default_factory=list)  # files that are not notebooks, names not understood
    roster: RosterMatch | None = None  # when a roster was given

    @property
    def submissions(self) -> list[Submission]:
        return [e.submission for e in self.entries]

    @property
    def identities(self) -> dict[str, Identity]:
        return {e.submission.id: e.identity for e in self.entries}

    def report(self) -> list[str]:
        """Lines for the instructor: what was not graded and who is missing."""
        lines = [f"{self.format}: {len(self.entries)} submissions"]
        lines += [f"superseded (not graded): {s}" for s in self.superseded]
        lines += [f"ignored: {s}" for s in self.ignored]
        lines += [
            f"{'ambiguous' if e.submission.problem.startswith('ambiguous') else 'unreadable'} (graded "
            f"invalid): {e.submission.source}: {e.submission.problem}"
            for e in self.entries
            if e.submission.problem
        ]
        if self.roster:
            claimants = {sid for pair in self.roster.duplicates for sid in pair}
            lines += [f"not on the roster: {sid}" for sid in self.roster.unmatched if sid not in claimants]
            lines += [f"no submission: {s.name or s.student_id} ({s.student_id})" for s in self.roster.missing]
            lines += [
                f"two submissions match one roster student, neither is credited to them (each keeps its LMS "
                f"identity): {a} and {b}"
                for a, b in self.roster.duplicates
            ]
        return lines


# ---------------------------------------------------------------------------------- files


@dataclass
class _File:
    logical: str  # path as the LMS named it, '/'-separated
    path: Path  # on disk (absent when `problem` is set)
    mtime: datetime
    problem: str = ""  # why the zip member could not be extracted: graded `invalid`


def _mtime(p: Path) -> datetime:
    return datetime.fromtimestamp(p.stat().st_mtime, tz=timezone.utc)


def _files_in_zip(zpath: Path, scratch: Path) -> tuple[list[_File], list[str]]:
    """Notebooks of a zip extracted under generated names (a member that cannot be extracted is
    kept with its problem); other members' names."""
    files: list[_File] = []
    others: list[str] = []
    extractor = ZipExtractor()
    dest = scratch / (safe_id(zpath.name) or "zip")
    dest.mkdir(parents=True, exist_ok=True)
    with open_zip(zpath) as zf:
        for info in zf.infolist():
            logical = info.filename.replace("\\", "/").strip("/")
            parts = [p for p in logical.split("/") if p not in ("", ".")]
            if info.is_dir() or not parts or "__MACOSX" in parts or parts[-1].startswith("._"):
                continue
            if ".." in parts or not parts[-1].lower().endswith(".ipynb") or ".ipynb_checkpoints" in parts:
                others.append(
                    logical + (" (a zip inside the zip: not opened)" if logical.lower().endswith(".zip") else "")
                )
                continue
            target = dest / f"{len(files):04d}_{safe_id(parts[-1]) or 'notebook'}.ipynb"
            problem = extractor.extract(zf, info, target)
            try:
                when = datetime(*info.date_time, tzinfo=timezone.utc)  # zip times carry no zone: read as UTC
            except ValueError:
                when = datetime.fromtimestamp(0, tz=timezone.utc) if problem else _mtime(target)
            if not problem:
                os.utime(target, (when.timestamp(), when.timestamp()))
            files.append(_File("/".join(parts), target, when, problem))
    return files, others


def _files_in_dir(folder: Path) -> tuple[list[_File], list[str]]:
    """Notebooks and other files of a folder; a link is listed, never followed (a student's upload or
    exchange folder may hold one pointing at the master, or at a classmate's work)."""
    files, others = [], []
    inside = folder.resolve()
    for p in sorted(folder.rglob("*")):
        if not p.is_file() or ".ipynb_checkpoints" in p.parts or "__MACOSX" in p.parts:
            continue
        rel = p.relative_to(folder).as_posix()
        if p.is_symlink() or inside not in p.resolve().parents:
            others.append(f"{rel} (a link: not followed)")
            continue
        if p.suffix.lower() == ".ipynb":
            files.append(_File(rel, p.resolve(), _mtime(p)))
        elif p.name not in ("timestamp.txt", ".DS_Store"):
            others.append(rel)
    return files, others


# ---------------------------------------------------------------------------------- detection


def _nbgrader_root(path: Path) -> Path | None:
    """The `submitted/` folder of an nbgrader course (given the course root or `submitted/` itself)."""
    if not path.is_dir():
        return None
    for cand in (path / "submitted", path):
        if cand.name == "submitted" and cand.is_dir():
            return cand
    return None


def _names(path: Path) -> list[str]:
    if path.is_dir():
        return [p.relative_to(path).as_posix() for p in path.rglob("*") if p.is_file()]
    if path.suffix.lower() == ".zip":
        with open_zip(path) as zf:
            return [i.filename.replace("\\", "/") for i in zf.infolist() if not i.is_dir()]
    return [path.name]


def detect(path: Path) -> str:
    """Which LMS layout `path` is (one of FORMATS)."""
    if not path.exists():
        raise IntakeError(f"no such file or folder: {path}")
    if _nbgrader_root(path):
        return "nbgrader"
    if path.is_dir() and (path.name == "submission" and (path.parent / "submission_metadata.json").is_file()):
        return "gradescope"
    names = [n for n in _names(path) if n.lower().endswith(".ipynb") and "__MACOSX" not in n]
    if names:
        first = [n.strip("/").split("/")[0] for n in names]
        if sum(bool(MOODLE_RE.match(f)) for f in first) * 2 > len(names):
            return "moodle"
        if sum(bool(CANVAS_RE.match(n.split("/")[-1])) for n in names) * 2 > len(names):
            return "canvas"
    return "folder"


# ---------------------------------------------------------------------------------- per format


@dataclass
class _Candidate:
    key: str  # the student, as the LMS identifies them
    file: _File
    identity: Identity
    rank: tuple  # larger is newer
    claim: str = ""  # who the layout says this is, in words; one key, two claims: ambiguous


def _pick_newest(cands: list[_Candidate]) -> tuple[list[_Candidate], list[str]]:
    """The newest candidate per student; a student id the layout names in two ways (two names for one
    Moodle participant, `alice.ipynb` beside `alice/`) keeps every file as an `invalid` submission that
    names the claimants and is attached to none of them: nobody's work is superseded by a guess."""
    by_key: dict[str, list[_Candidate]] = {}
    for c in cands:
        by_key.setdefault(c.key, []).append(c)
    kept: list[_Candidate] = []
    superseded: list[str] = []
    for key, group in by_key.items():
        claims = sorted({c.claim for c in group})
        if len(claims) > 1:
            why = (
                f"ambiguous: the download gives student id {key} to "
                + " and to ".join(claims)
                + "; not graded as either: check in the LMS which file is whose, then grade it by hand"
            )
            for c in group:
                file = replace(c.file, problem=c.file.problem or why)
                kept.append(
                    _Candidate(
                        f"{key}#{len(kept)}", file, Identity(student_id="", name=c.identity.name), c.rank, c.claim
                    )
                )
            continue
        best = max(group, key=lambda c: c.rank)
        kept.append(best)
        superseded += [c.file.logical for c in group if c is not best]
    return kept, superseded


def _canvas(files: list[_File]) -> tuple[list[_Candidate], list[str]]:
    cands, bad = [], []
    for f in files:
        base = f.logical.split("/")[-1]
        m = CANVAS_RE.match(base)
        if not m:
            bad.append(f.logical)
            continue
        orig, attempt = m["orig"], 0
        r = RESUBMISSION_RE.match(orig)
        if r:
            orig, attempt = r["stem"] + r["ext"], int(r["n"])
        who = Identity(
            student_id=m["uid"],
            name=m["name"],
            lms_user_id=m["uid"],
            submitted_at=f.mtime,
            late=bool(m["late"]),
            time_source="mtime",
        )
        cands.append(
            _Candidate(m["uid"], f, who, (attempt, int(m["subid"]), f.mtime), f"{m['name']} (Canvas user {m['uid']})")
        )
    return cands, bad


def _moodle(files: list[_File]) -> tuple[list[_Candidate], list[str]]:
    """The participant from the folder (folder layout) or the name's prefix (flat layout), never from
    the file's own name: a file called `x_1001_assignsubmission_file_hw.ipynb` is not participant 1001's."""
    cands, bad = [], []
    for f in files:
        parts = f.logical.split("/")
        m = MOODLE_RE.match(parts[0])
        if not m or bool(m["rest"]) == (len(parts) > 1):  # a folder ends at its plugin; a flat name goes on
            bad.append(f.logical)
            continue
        who = Identity(
            student_id=m["pid"], name=m["name"], lms_user_id=m["pid"], submitted_at=f.mtime, time_source="mtime"
        )
        cands.append(_Candidate(m["pid"], f, who, (f.mtime,), f"{m['name']} (participant {m['pid']})"))
    return cands, bad


MAX_SIDECAR_BYTES = 2**20  # a small file that comes with a submission: timestamp.txt, submission_metadata.json


def read_sidecar(path: Path) -> str | None:
    """The text of a small file that comes with a submission, or None when it is absent, not a regular file
    (a FIFO would block the read), over `MAX_SIDECAR_BYTES` (the cap holds while reading) or not UTF-8.
    The student may have written it (nbgrader's `timestamp.txt` is written by `nbgrader submit` on their
    side): one unreadable file made the whole class's intake raise."""
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK)
    except OSError:
        return None
    with os.fdopen(fd, "rb") as f:
        try:
            if not stat.S_ISREG(os.fstat(fd).st_mode):
                return None
            raw = f.read(MAX_SIDECAR_BYTES + 1)
        except OSError:
            return None
    if len(raw) > MAX_SIDECAR_BYTES:
        return None
    try:
        return raw.decode("utf-8")
    except UnicodeDecodeError:
        return None


def read_metadata(path: Path) -> dict:
    """A JSON object from a sidecar file; {} when there is none, or it is not one."""
    text = read_sidecar(path)
    try:
        data = json.loads(text) if text is not None else {}
    except (ValueError, RecursionError):
        return {}
    return data if type(data) is dict else {}


def read_nbgrader_timestamp(path: Path) -> datetime | None:
    """nbgrader writes e.g. `2026-10-01 23:59:00.123456 UTC`; None when absent or unreadable."""
    text = read_sidecar(path)
    try:
        return parse_time(text.strip()) if text is not None else None
    except LatePolicyError:
        return None


def _nbgrader(submitted: Path, assignment: str | None) -> tuple[list[_Candidate], list[str], list[str]]:
    cands, ignored, superseded = [], [], []
    assignments = sorted({p.name for p in submitted.glob("*/*") if p.is_dir()})
    if assignment is None:
        if len(assignments) > 1:
            raise IntakeError(f"{submitted} holds several assignments ({', '.join(assignments)}): name one")
        assignment = assignments[0] if assignments else ""
    for student_dir in sorted(p for p in submitted.iterdir() if p.is_dir()):
        folder = student_dir / assignment
        if not folder.is_dir():
            continue
        if student_dir.is_symlink() or folder.is_symlink():  # a link out of the exchange (the master?): not followed
            ignored.append(f"{student_dir.name}/{assignment}: a link, not followed")
            continue
        notebooks = sorted(
            p for p in folder.glob("*.ipynb") if p.is_file() and not p.is_symlink()
        )  # a link: not followed
        if not notebooks:
            ignored.append(f"{student_dir.name}/{assignment}: no notebook")
            continue
        stamp = read_nbgrader_timestamp(folder / "timestamp.txt")
        chosen = max(notebooks, key=lambda p: p.stat().st_mtime) if len(notebooks) > 1 else notebooks[0]
        superseded += [f"{student_dir.name}/{assignment}/{p.name}" for p in notebooks if p != chosen]
        who = Identity(
            student_id=student_dir.name,
            login_id=student_dir.name,
            submitted_at=stamp or _mtime(chosen),
            time_source="timestamp.txt" if stamp else "mtime",
        )
        f = _File(f"{student_dir.name}/{assignment}/{chosen.name}", chosen.resolve(), _mtime(chosen))
        cands.append(_Candidate(student_dir.name, f, who, (0,)))
    return cands, ignored, superseded


def gradescope_student(user: dict) -> str:
    """The student id of a Gradescope submitter (an entry of the metadata's `users`): sid, else id, else email."""
    return str(user.get("sid") or user.get("id") or user.get("email") or "submission")


def _gradescope(folder: Path) -> tuple[list[_Candidate], list[str], list[str]]:
    meta_path = folder.parent / "submission_metadata.json"
    meta = read_metadata(meta_path)
    users = meta.get("users")
    u = users[0] if type(users) is list and users and type(users[0]) is dict else {}
    files, others = _files_in_dir(folder)
    if not files:
        return [], others, []
    chosen = max(files, key=lambda f: f.mtime)
    try:
        when, src = parse_time(meta["created_at"]), "lms"
    except (KeyError, LatePolicyError):
        when, src = chosen.mtime, "mtime"
    sid = gradescope_student(u)
    who = Identity(
        student_id=sid,
        name=str(u.get("name", "")),
        email=str(u.get("email", "")),
        sis_id=str(u.get("sid", "") or ""),
        lms_user_id=str(u.get("id", "") or ""),
        submitted_at=when,
        time_source=src,
    )
    return [_Candidate(sid, chosen, who, (0,))], others, [f.logical for f in files if f is not chosen]


def _folder(files: list[_File]) -> list[_Candidate]:
    """A student per top-level folder (`alice/hw.ipynb`) or per top-level notebook (`alice.ipynb`); both
    for one name is ambiguous (`_pick_newest`)."""
    cands = []
    for f in files:
        parts = f.logical.split("/")
        key = parts[0] if len(parts) > 1 else parts[0][: -len(".ipynb")]
        who = Identity(student_id=safe_id(key) or key, submitted_at=f.mtime, time_source="mtime")
        claim = f"the folder {parts[0]}/" if len(parts) > 1 else f"the notebook {parts[0]}"
        cands.append(_Candidate(safe_id(key) or key, f, who, (f.mtime,), claim))
    return cands


# ---------------------------------------------------------------------------------- entry point


def unpack(
    path: Path, scratch: Path, *, fmt: str | None = None, roster: Roster | None = None, assignment: str | None = None
) -> Batch:
    """All submissions in `path` (an LMS download, a folder, a notebook), one per student, with identities."""
    path = Path(path)
    fmt = fmt or detect(path)
    if fmt not in FORMATS:
        raise IntakeError(f"unknown submission format {fmt!r} (known: {', '.join(FORMATS)})")
    superseded: list[str] = []
    if fmt == "nbgrader":
        root = _nbgrader_root(path)
        if root is None:
            raise IntakeError(f"{path} is not an nbgrader course (no submitted/ folder)")
        cands, ignored, superseded = _nbgrader(root, assignment)
    elif fmt == "gradescope":
        cands, ignored, superseded = _gradescope(path)
    else:
        if path.is_dir():
            files, ignored = _files_in_dir(path)
        elif path.suffix.lower() == ".zip":
            files, ignored = _files_in_zip(path, scratch)
        elif path.suffix.lower() == ".ipynb":
            files, ignored = [_File(path.name, path.resolve(), _mtime(path))], []
        else:
            raise IntakeError(f"{path} is not a notebook, a folder or a zip")
        if fmt == "canvas":
            cands, bad = _canvas(files)
        elif fmt == "moodle":
            cands, bad = _moodle(files)
        else:
            cands, bad = _folder(files), []
        ignored += [f"{b} (name not in the {fmt} format)" for b in bad]
    cands, older = _pick_newest(cands)
    superseded += older
    entries: list[Entry] = []
    seen: set[str] = set()
    for c in sorted(cands, key=lambda c: c.file.logical):
        base = c.key if fmt not in ("canvas", "moodle") else f"{c.identity.name}_{c.key}"
        if not c.identity.student_id:  # ambiguous (`_pick_newest`): named after the file, nobody's
            base = "ambiguous"
        sid = unique_id(safe_id(base), f"{c.key}\0{c.file.logical}", seen)  # the student's, never the content's
        who = c.identity if c.identity.student_id else Identity(student_id=sid, name=c.identity.name)
        entries.append(Entry(Submission(sid, c.file.path, c.file.logical, c.file.problem), who))
    batch = Batch(fmt, entries, superseded, ignored)
    if roster is not None:
        batch.roster = match_roster(batch.identities, roster)
        batch.entries = [Entry(e.submission, batch.roster.matched[e.submission.id]) for e in entries]
    return batch
