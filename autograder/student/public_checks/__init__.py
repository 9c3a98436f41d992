"""The public checks of each assignment as students get them: `probes.py` and `public/*.py`.

Which files they are, their version and where they are found live here only.  `setup.py` copies
them into the wheel (package data `autograder/student/public_checks/<id>/`, so a notebook opened alone, as on
Colab, can check itself), the release writes their version into each student notebook, and
`check()` refuses checks of another version instead of testing against the wrong ones.  Hidden
tests, solutions and reference caches are never among them.  Standard library only: `setup.py`
loads this file before any dependency is installed.
"""
from __future__ import annotations

import hashlib
import re
import shutil
from pathlib import Path

PACKAGED = Path(__file__).resolve().parent
# An assignment id is a name, never a path: what a notebook's metadata says is matched against the folders
# that exist, so no spelling of it (absolute, `..`, a separator, a NUL) reaches a path join.
_ID = re.compile(r"[A-Za-z0-9][A-Za-z0-9_-]{0,63}")


def files(folder: Path) -> list[Path]:
    """The check files of an assignment folder (or of its packaged copy)."""
    probes = [folder / "probes.py"] if (folder / "probes.py").is_file() else []
    return probes + sorted((folder / "public").glob("*.py"))


def version(folder: Path) -> str:
    """Hash of the check files' names and bytes: equal for an assignment folder and its packaged copy."""
    h = hashlib.sha256()
    for f in files(folder):
        h.update(f.relative_to(folder).as_posix().encode() + b"\0" + f.read_bytes() + b"\0")
    return h.hexdigest()[:12]


def package(kit: Path, dest: Path) -> list[Path]:
    """Copy every assignment's check files to `dest/<id>/` (the wheel's package data), with its manifest
    (title and limits, so `autograder validate` can warn about cells the grader would stop; not part of
    the version: a new deadline does not outdate anyone's notebook)."""
    written = []
    for manifest in sorted((kit / "assignments").glob("*/manifest.toml")):
        src = manifest.parent
        if (dest / src.name).exists():
            shutil.rmtree(dest / src.name)
        for f in [*files(src), manifest]:
            out = dest / src.name / f.relative_to(src)
            out.parent.mkdir(parents=True, exist_ok=True)
            out.write_bytes(f.read_bytes())
            written.append(out)
    return written


def known(kit: Path | None = None) -> list[str]:
    """The assignment ids whose checks are here: the kit's `assignments/` and the installed package's."""
    names = set()
    for base in ([kit / "assignments"] if kit else []) + [PACKAGED]:
        if base.is_dir():
            names |= {p.name for p in base.iterdir() if _ID.fullmatch(p.name) and (p / "public").is_dir()}
    return sorted(names)


def is_id(assignment: object) -> bool:
    """Whether `assignment` is spelled as an assignment id (a name; whether it exists is `find`'s)."""
    return isinstance(assignment, str) and _ID.fullmatch(assignment) is not None


def find(assignment: str, kit: Path | None = None) -> Path | None:
    """The course kit's `assignments/<id>/` when there is one, else the installed package's copy; None for
    an id that is none of these (anything not spelled as an id included: it is never joined onto a path)."""
    if not is_id(assignment):
        return None
    for base in ([kit / "assignments"] if kit else []) + [PACKAGED]:
        names = {p.name for p in base.iterdir()} if base.is_dir() else set()
        if assignment in names and (base / assignment / "public").is_dir():
            return base / assignment
    return None
