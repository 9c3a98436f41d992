"""course.toml: a course's settings in one file, so that no command needs its flags typed again.

Found the way git finds `.git` (the current folder, then each parent) when only the caller can change it
(`config.locate`), or named by the global `--course-file`.  Paths in it are relative to the file's folder.  The
faces read it into their settings (`cli.common.fill_from_course`: a flag given on the command line always wins
over the file); this module knows the file, never a command line.  Example::

    [course]
    title = "Deep learning with PyTorch"
    roster = "roster.csv"
    secret_file = "~/.config/autograder/secret"   # the course secret: the file's *path*, never its value
    variants = "student"                          # hidden inputs per student (the default), or a number N
    results = "results"
    package = "https://course.example.edu/torch_course_autograder-0.1.0-py3-none-any.whl"  # the student package

    [canvas]
    url = "https://canvas.example.edu"
    course = 42
    token_env = "CANVAS_API_TOKEN"                # or token_file = "~/.canvas-token"

    [lti]
    token_url = "https://lms.example/token"
    client_id = "tool-123"
    key_file = "lti-private.pem"
    kid = "key-1"

    [deadline]                                    # defaults for every assignment that has a due date
    penalty_percent = 10

    [assignments.01_tensors]
    canvas_assignment = 1234
    lti_lineitem = "https://lms.example/lineitems/5"
    [assignments.01_tensors.deadline]             # merged over the manifest's [deadline]: this file wins
    due = "2026-10-01T23:59:00+00:00"
    [assignments.01_tensors.deadline.extensions]
    alice = 2

Tokens, keys and secrets never live in the file (it is shared, and often committed): a key that
would hold one (`token`, `api_key`, `secret`, `password`, ...) is refused; name an environment
variable (`*_env`) or a file (`*_file`) instead.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from autograder.config import locate
from autograder.config.compat import tomllib

COURSE_FILE = "course.toml"
_SECRET_WORD = re.compile(r"token|secret|password|passwd|api_?key|private_?key|credential|^key$|pem", re.I)
_SECRET_OK = re.compile(r"(_env|_file|_url)$")  # where a secret is, never what it is


class CourseError(ValueError):
    """A course file that cannot be used."""


# Every table and key a course file may hold, by table path ("*": any assignment id; a table not listed
# here, such as `extensions`, is free-form).  load_course refuses any other key, so a misspelt one is an
# error rather than a silent default; docs/course-toml.md documents each (tests/docs/test_docs.py).
_DEADLINE_KEYS = (
    "due",
    "grace_minutes",
    "penalty_percent",
    "period",
    "max_penalty_percent",
    "of",
    "cutoff_days",
    "extensions",
)  # read by config/late.py, LatePolicy.from_table
KEYS: dict[str, tuple[str, ...]] = {
    "": ("course", "canvas", "lti", "deadline", "assignments", "serve", "rubric"),
    "rubric": ("floor", "ceiling"),  # read by grades/rubric.py, Bounds.of: fractions of an exercise's points
    "serve": ("host", "port", "tokens", "anonymous"),  # read by cli/serve.py and serve/pages.py; tokens: name = token
    "course": ("title", "roster", "results", "secret_file", "variants", "counts", "package"),
    "canvas": ("url", "course", "token_env", "token_file"),
    "lti": ("token_url", "client_id", "key_file", "kid"),
    "deadline": _DEADLINE_KEYS,
    "assignments": ("*",),
    "assignments.*": ("canvas_assignment", "lti_lineitem", "deadline"),
    "assignments.*.deadline": _DEADLINE_KEYS,
}


def _refuse_unknown(table: dict[str, Any], path: str = "", shown: str = "") -> None:
    allowed = KEYS[path]
    for key, value in table.items():
        name = f"{shown}.{key}" if shown else key
        if "*" not in allowed and key not in allowed:
            raise CourseError(
                f"{name}: not a key of a course file here (known: {', '.join(allowed)}; docs/course-toml.md)"
            )
        sub = f"{path}.*" if "*" in allowed else f"{path}.{key}".lstrip(".")
        if sub in KEYS:
            if not isinstance(value, dict):
                raise CourseError(f"{name}: must be a table ([{name}])")
            _refuse_unknown(value, sub, name)


@dataclass
class Course:
    path: Path
    data: dict[str, Any] = field(default_factory=dict)

    @property
    def root(self) -> Path:
        return self.path.parent

    def _path(self, value: Any) -> Path | None:
        return None if value in (None, "") else (self.root / Path(str(value)).expanduser())

    def table(self, name: str) -> dict[str, Any]:
        return dict(self.data.get(name) or {})

    def assignment(self, assignment: str) -> dict[str, Any]:
        return dict((self.data.get("assignments") or {}).get(assignment) or {})

    def deadline(self, assignment: str, manifest: dict[str, Any] | None) -> dict[str, Any] | None:
        """The manifest's `[deadline]`, then the course defaults, then the assignment's own table: the
        last one wins, extensions merged per student.  None when no due date results."""
        merged: dict[str, Any] = {}
        extensions: dict[str, Any] = {}
        for t in (manifest or {}, self.table("deadline"), self.assignment(assignment).get("deadline") or {}):
            merged.update({k: v for k, v in t.items() if k != "extensions"})
            extensions.update(t.get("extensions") or {})
        if "due" not in merged:
            return None
        return {**merged, "extensions": extensions} if extensions else merged

    def variants(self) -> int | None:
        """`[course] variants`: hidden-input variants, one per student (`PER_STUDENT`, the default) or N."""
        value = self.table("course").get("variants")
        if value is None:
            return PER_STUDENT
        try:
            return parse_variants(value)
        except ValueError as e:
            raise CourseError(f"course.{e}") from None

    def path_of(self, table: str, key: str) -> Path | None:
        """A path the file names (`[table] key`), relative to the file's folder."""
        return self._path(self.table(table).get(key))

    def value_of(self, table: str, key: str) -> str | None:
        value = self.table(table).get(key)
        return None if value in (None, "") else str(value)


def _refuse_secrets(table: dict[str, Any], where: str) -> None:
    for key, value in table.items():
        if isinstance(value, dict):
            _refuse_secrets(value, f"{where}{key}.")
        elif _SECRET_WORD.search(key) and not _SECRET_OK.search(key):
            raise CourseError(
                f"{where}{key}: a course file never holds a token, key or secret; "
                f"name an environment variable ({key}_env) or a file ({key}_file) instead"
            )


def load_course(path: Path) -> Course:
    try:
        data = tomllib.loads(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, tomllib.TOMLDecodeError) as e:
        raise CourseError(f"{path}: {e}") from None
    _refuse_secrets(data, "")
    _refuse_unknown(data)
    course = Course(path.resolve(), data)
    course.variants()  # a bad setting is refused when the file is read, before any work
    return course


def find_course(start: Path | None = None) -> Course | None:
    """The nearest `course.toml` at or above `start` (default: the current folder), as git finds `.git`, when only
    the caller can change it (`config.locate.course_file`)."""
    found = locate.course_file(start)
    return load_course(found) if found else None


# A pip link of the student package (README "For students"): written into released notebooks' install line, inside a
# Python comment and a string, so nothing there may end either (no space, quote, backslash or control character).
_PACKAGE_LINK = re.compile(r"(https?|file)://[^\s\"'\\#]+")


def package_link(course: Course | None) -> str | None:
    """`[course] package`: the student package's link that released notebooks tell students to install (None: the
    notebooks keep the placeholder LINK, as the kit's own student/ does)."""
    value = course.table("course").get("package") if course else None
    if value in (None, ""):
        return None
    if not isinstance(value, str) or not _PACKAGE_LINK.fullmatch(value) or not value.isprintable():
        raise CourseError(
            f"course.package = {str(value)[:200]!r}: give the student package's link, an https:// (or "
            "http://, file://) URL of its wheel with no spaces or quotes (README, \"For students\")"
        )
    return value


PER_STUDENT = None  # `variants` when every student has a variant of their own (the default)


def parse_variants(value: object) -> int | None:
    """A course's `variants` setting: "student" (one per student: `PER_STUDENT`) or a whole number N >= 1."""
    text = str(value).strip().lower()
    if text == "student":
        return PER_STUDENT
    if text.isascii() and text.isdigit() and int(text) >= 1:
        return int(text)
    raise ValueError(
        f"variants = {value!r}: give \"student\" (hidden inputs of their own for each student) "
        "or a whole number of variants, at least 1"
    )
