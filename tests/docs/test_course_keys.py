"""course.toml holds only what `course.KEYS` declares: a misspelt key or a value where a table belongs is an
error that names it, and every declared key loads (the declaration the docs test reads is the one enforced)."""

from __future__ import annotations

import pytest

from autograder.config.course import KEYS, CourseError, load_course


def _load(tmp_path, text: str):
    (tmp_path / "course.toml").write_text(text)
    return load_course(tmp_path / "course.toml")


@pytest.mark.parametrize(
    "text, named",
    [
        ('[course]\nrooster = "r.csv"\n', "course.rooster"),
        ('[canvass]\nurl = "https://x"\n', "canvass"),
        ('[assignments.01_tensors]\ncanvas_id = 5\n', "assignments.01_tensors.canvas_id"),
        ('[assignments.a.deadline]\ndue = "2026-01-01"\npenalty_pct = 5\n', "assignments.a.deadline.penalty_pct"),
        ('[deadline]\ngrace = 5\n', "deadline.grace"),
        ('course = "x"\n', "course"),
        ('[assignments]\n01_tensors = 5\n', "assignments.01_tensors"),
    ],
)
def test_a_key_the_kit_does_not_read_is_refused_by_name(tmp_path, text, named):
    with pytest.raises(CourseError, match=named.replace(".", r"\.")):
        _load(tmp_path, text)


def _declared() -> list[list[str]]:
    """Every declared key as its path of table names (an assignment id for "*")."""
    out = []

    def walk(path: str, parts: list[str]) -> None:
        for key in KEYS[path]:
            sub = f"{path}.*" if key == "*" else f"{path}.{key}".lstrip(".")
            name = parts + ["01_tensors" if key == "*" else key]
            if sub in KEYS:
                walk(sub, name)
            else:
                out.append(name)

    walk("", [])
    return out


@pytest.mark.parametrize("parts", _declared(), ids=".".join)
def test_every_declared_key_loads(tmp_path, parts):
    """As a value, or as a free-form table (`extensions`, `[serve.tokens]`): one of the two must load."""
    head = f"[{'.'.join(parts[:-1])}]\n" if len(parts) > 1 else ""
    errors = []
    for text in (f'{head}{parts[-1]} = "1"\n', f"[{'.'.join(parts)}]\nsomeone = \"1\"\n"):
        try:
            _load(tmp_path, text)
            return
        except CourseError as e:
            errors.append(str(e))
    pytest.fail(f"{'.'.join(parts)} is declared but no course file holding it loads: {errors}")


def test_extensions_name_any_student(tmp_path):
    course = _load(
        tmp_path, '[deadline.extensions]\n"any id at all" = 3\n[assignments.x.deadline.extensions]\nbob = 1\n'
    )
    assert course.table("deadline")["extensions"] == {"any id at all": 3}
