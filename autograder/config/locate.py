"""Where the kit, the course file and the course secret may come from (trust rule 7): what the caller named or
installed, or a folder only the caller (or root) can change.

Each of the three decides what a grade is: the kit's `assignments/` and `solutions/` are imported in the grader's
own process (probes, tests, the master), the course file says which roster, secret and results folder a class is
graded with, and the secret keys every hidden input.  Found by walking up from the working folder, as git finds
`.git`, they can be planted by anyone who can write a folder above it: another user of the host on a shared
`/tmp`, a course share writable by a group, a student's unpacked submission.  Git met this as CVE-2022-24765 and
answered it with an ownership check; the same check is made here, as ssh's StrictModes makes it:

- what the caller names is used as named: `--kit`, `--course-file`, `$AUTOGRADER_KIT`, `$AUTOGRADER_SECRET`,
  `$AUTOGRADER_SECRET_FILE` (the caller set them; whoever can set a user's environment already is that user);
- the kit the package is installed from (an editable install's repository) is used as installed;
- a kit folder (with its `assignments/` and `solutions/`) or a `course.toml` found above the working folder, and
  the default secret file `~/.config/autograder/secret`, are used only when they, and every folder from them up
  to `/`, belong to the caller or to root and are writable by no one else.  A sticky folder writable by all
  (`/tmp`) is fine above them (nobody but its owner can move or replace what is in it), never as the found folder
  itself.  What is refused is said in one line (what was found, why it was not used, how to name it) and
  the search goes on as if it were absent: the installed kit, no course file, no secret file.

`autograder validate` and `check()` never take checks from a discovered kit (`kit(discover=False)`): the one who
validates may be a TA in a folder a student unpacked.
"""

from __future__ import annotations

import os
import stat
import sys
from pathlib import Path

KIT_ENV = "AUTOGRADER_KIT"
COURSE_FILE = "course.toml"

_said: set[str] = set()  # each refusal is said once per process (the kit is located by several commands' steps)


def unsafe(path: Path) -> str:
    """'' when `path` and every folder above it belong to the caller or root and no one else can write them
    (a sticky folder, such as `/tmp`, only above `path`); else why not, in words."""
    uid = os.geteuid()
    target = Path(os.path.realpath(path))  # the folders a link leads through are the ones that count
    for each in (target, *target.parents):
        try:
            st = os.stat(each)
        except OSError as e:
            return f"{each} cannot be read ({e.strerror})"
        if st.st_uid not in (uid, 0):
            return f"{each} belongs to another user (uid {st.st_uid})"
        writers = [who for who, bit in (("its group", stat.S_IWGRP), ("every user", stat.S_IWOTH)) if st.st_mode & bit]
        if writers and not (each != target and stat.S_ISDIR(st.st_mode) and st.st_mode & stat.S_ISVTX):
            return f"{each} can be written by {' and '.join(writers)}"
    return ""


def refuse(found: Path, why: str, how: str) -> None:
    """One line on stderr: what was found, why it is not used, how to use it anyway.  The folder names in it were
    chosen by whoever made them: every character that is not printable (an escape sequence, a newline, a bidi
    override) is shown as its escape (`report.escape.terminal` does the same for later layers; config is below it)."""
    line = "".join(c if c.isprintable() else repr(c)[1:-1] for c in f"autograder: not using {found}: {why}; {how}")
    if line not in _said:
        _said.add(line)
        print(line, file=sys.stderr)


def installed_kit() -> Path:
    """The kit the package was installed from: the repository above `autograder/` (an editable install), or the
    install folder (a wheel, whose checks are `autograder/student/public_checks`)."""
    import autograder

    return Path(autograder.__file__).resolve().parents[1]


def _is_kit(folder: Path) -> bool:
    return (folder / "assignments").is_dir() and (folder / "solutions").is_dir()


def discovered_kit(start: Path | None = None) -> Path | None:
    """The nearest folder at or above `start` (default: the working folder) holding `assignments/` and
    `solutions/`, whoever owns it: what a walk up finds, before any check."""
    here = (start or Path.cwd()).resolve()
    return next((p for p in (here, *here.parents) if _is_kit(p)), None)


def kit(named: Path | None = None, start: Path | None = None, *, discover: bool = True) -> Path:
    """The kit root: `named` (`--kit`), else `$AUTOGRADER_KIT`, else (with `discover`) the nearest kit above the
    working folder when it is safe (`unsafe`), else the installed one."""
    if named is not None:
        return Path(named).resolve()
    if os.environ.get(KIT_ENV):
        return Path(os.environ[KIT_ENV]).resolve()
    found = discovered_kit(start) if discover else None
    if found is not None:
        why = next((w for w in (unsafe(found / "assignments"), unsafe(found / "solutions")) if w), "")
        if not why:
            return found
        refuse(
            found,
            f"a kit found above the working folder, and {why}",
            f"if it is yours, name it: autograder --kit {found} ... (or {KIT_ENV}={found})",
        )
    return installed_kit()


def course_file(start: Path | None = None) -> Path | None:
    """The nearest `course.toml` at or above `start` (default: the working folder) when it is safe (`unsafe`);
    None when there is none or it is refused (`--course-file` names one as it is)."""
    here = (start or Path.cwd()).resolve()
    found = next((p / COURSE_FILE for p in (here, *here.parents) if (p / COURSE_FILE).is_file()), None)
    if found is None:
        return None
    why = unsafe(found)
    if why:
        refuse(
            found,
            f"a course file found above the working folder, and {why}",
            f"if it is yours, name it: autograder --course-file {found} ...",
        )
        return None
    return found


def home_secret() -> Path | None:
    """`~/.config/autograder/secret` when it exists and is safe (`unsafe`); a refused one is said, not used."""
    path = Path.home() / ".config" / "autograder" / "secret"
    if not path.is_file():
        return None
    why = unsafe(path)
    if why:
        refuse(
            path,
            f"the default course secret file, and {why}",
            f"if it is yours, name it: AUTOGRADER_SECRET_FILE={path} (or make it and its folders yours alone)",
        )
        return None
    return path
