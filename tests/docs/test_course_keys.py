"""course.toml holds only what `course.KEYS` declares: a misspelt key or a value where a table belongs is an
error that names it, and every declared key loads (the declaration the docs test reads is the one enforced)."""
from __future__ import annotations

import pytest

from autograder.course import KEYS, CourseError, load_course


def _load(tmp_path, text: str):
    (tmp_path / "course.toml").write_text(text)
    return load_course(tmp_path / "course.toml")


@pytest.mark.parametrize("text, named", [
    ('[course]\nrooster = "r.csv"\n', "course.rooster"),
    ('[canvass]\nurl = "https://x"\n', "canvass"),
    ('[assignments.01_tensors]\ncanvas_id = 5\n', "assignments.01_tensors.canvas_id"),
    ('[assignments.a.deadline]\ndue = "2026-01-01"\npenalty_pct = 5\n', "assignments.a.deadline.penalty_pct"),
    ('[deadline]\ngrace = 5\n', "deadline.grace"),
    ('course = "x"\n', "course"),
    ('[assignments]\n01_tensors = 5\n', "assignments.01_tensors"),
])
def test_a_key_the_kit_does_not_read_is_refused_by_name(tmp_path, text, named):
    with pytest.raises(CourseError, match=named.replace(".", r"\.")):
        _load(tmp_path, text)


def test_every_declared_key_loads(tmp_path):
    def table(path: str) -> dict:
        out = {}
        for key in KEYS[path]:
            sub = f"{path}.*" if key == "*" else f"{path}.{key}".lstrip(".")
            out["01_tensors" if key == "*" else key] = table(sub) if sub in KEYS else "1"
        return out

    data = table("")
    lines = []

    def emit(d: dict, prefix: str) -> None:
        scalars = {k: v for k, v in d.items() if not isinstance(v, dict)}
        if scalars:
            lines.append(f"[{prefix}]")
            lines.extend(f'{k} = "{v}"' for k, v in scalars.items())
        for k, v in d.items():
            if isinstance(v, dict):
                emit(v, f"{prefix}.{k}".lstrip("."))

    emit(data, "")
    text = "\n".join(lines).replace('extensions = "1"', "extensions = { alice = 2 }") + "\n"
    course = _load(tmp_path, text)
    assert course.assignment("01_tensors")["deadline"]["extensions"] == {"alice": 2}
    assert set(course.data) == set(KEYS[""])


def test_extensions_name_any_student(tmp_path):
    course = _load(tmp_path, '[deadline.extensions]\n"any id at all" = 3\n[assignments.x.deadline.extensions]\nbob = 1\n')
    assert course.table("deadline")["extensions"] == {"any id at all": 3}
