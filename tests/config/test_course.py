"""course.toml: found from a subfolder like .git, flags win over it, its deadline and extensions reach the
exports, and a token written into it is refused."""

import csv
import io

import pytest

from autograder.cli import main
from autograder.config.course import CourseError, find_course, load_course
from tests.cli.test_commands import setup_out

COURSE = """
[course]
title = "DL"
roster = "roster.csv"
results = "results"

[canvas]
url = "https://canvas.example.edu"
course = 42
token_env = "MY_CANVAS_TOKEN"

[deadline]
penalty_percent = 50
period = "day"

[assignments.toy]
canvas_assignment = 1234
[assignments.toy.deadline]
due = "2026-09-30T00:00:00+00:00"
"""


def course_root(tmp_path, extra=""):
    setup_out(tmp_path)  # tmp_path/results (smithjohn submitted 2026-10-01, 10/10), tmp_path/roster.csv
    (tmp_path / "course.toml").write_text(COURSE + extra)
    (tmp_path / "a" / "b").mkdir(parents=True)
    return tmp_path


def canvas_grades(path):
    rows = list(csv.reader(io.StringIO(path.read_text())))
    return rows[0][-1], {r[1]: r[-1] for r in rows[2:]}


def test_found_from_a_subfolder(tmp_path, toy_kit, monkeypatch):
    root = course_root(tmp_path)
    assert find_course(root / "a" / "b").path == root / "course.toml"
    monkeypatch.chdir(root / "a" / "b")
    assert main(["--kit", str(toy_kit), "export", "toy", "--format", "canvas"]) == 0  # no other flag needed
    header, grades = canvas_grades(root / "results" / "toy" / "canvas.csv")
    assert header.endswith("(1234)")  # [assignments.toy] canvas_assignment
    assert grades == {"12345": "5", "23456": "3", "34567": ""}  # roster from the file; 1 day late: -50%


def test_flags_override_the_file(tmp_path, toy_kit, monkeypatch):
    root = course_root(tmp_path)
    (root / "other.csv").write_text("Student,ID\nOnly One,12345\n")
    monkeypatch.chdir(root / "a")
    assert (
        main(
            [
                "--kit",
                str(toy_kit),
                "export",
                "toy",
                "--format",
                "canvas",
                "--assignment-id",
                "99",
                "--roster",
                str(root / "other.csv"),
                "--to",
                str(root / "c.csv"),
            ]
        )
        == 0
    )
    header, grades = canvas_grades(root / "c.csv")
    assert header.endswith("(99)") and set(grades) == {"12345", "23456"}  # 23456: on no roster, still exported


def test_named_course_file_and_extensions_in_exports(tmp_path, toy_kit, monkeypatch):
    root = course_root(tmp_path, '[assignments.toy.deadline.extensions]\n"12345" = 2\n')
    (root / "course.toml").rename(root / "dl.toml")
    monkeypatch.chdir(root)
    assert (
        main(["--kit", str(toy_kit), "--course-file", str(root / "dl.toml"), "export", "toy", "--format", "canvas"])
        == 0
    )
    assert canvas_grades(root / "results" / "toy" / "canvas.csv")[1]["12345"] == "10"  # extension: not late


def test_merge_course_wins_over_manifest():
    from pathlib import Path

    from autograder.config.course import Course

    c = Course(
        Path("/c/course.toml"),
        {"deadline": {"penalty_percent": 5}, "assignments": {"x": {"deadline": {"extensions": {"bob": 1}}}}},
    )
    merged = c.deadline("x", {"due": "2026-01-01", "penalty_percent": 20, "extensions": {"al": 2, "bob": 3}})
    assert merged == {"due": "2026-01-01", "penalty_percent": 5, "extensions": {"al": 2, "bob": 1}}
    assert c.deadline("y", None) is None


@pytest.mark.parametrize(
    "line",
    [
        'token = "abc"',
        'api_key = "k"',
        '[lti]\nprivate_key = "-----BEGIN"',
        '[canvas]\napi_token = "7~xyz"',
        'secret = "s3cr3t"',
    ],
)
def test_a_token_in_the_file_is_refused(tmp_path, toy_kit, monkeypatch, capsys, line):
    (tmp_path / "course.toml").write_text(line + "\n")
    with pytest.raises(CourseError, match="never holds a token"):
        load_course(tmp_path / "course.toml")
    monkeypatch.chdir(tmp_path)
    assert main(["--kit", str(toy_kit), "list"]) == 2
    assert "never holds a token" in capsys.readouterr().err


def test_where_a_token_is_may_be_named(tmp_path):
    (tmp_path / "course.toml").write_text(
        '[canvas]\ntoken_env = "T"\ntoken_file = "t.txt"\n'
        '[lti]\ntoken_url = "https://x/token"\nkey_file = "k.pem"\n'
        '[course]\nsecret_file = "secret"\n'
    )
    assert load_course(tmp_path / "course.toml").table("canvas")["token_file"] == "t.txt"


def test_secret_file_reaches_the_grading_settings_by_path_never_the_environment(tmp_path, toy_kit, monkeypatch):
    import os

    from autograder.cli import _parser
    from autograder.cli.common import Context, grade_settings
    from autograder.config.course import load_course

    for var in ("AUTOGRADER_SECRET", "AUTOGRADER_SECRET_FILE"):
        monkeypatch.delenv(var, raising=False)
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    (tmp_path / "keys").mkdir()
    (tmp_path / "keys" / "secret").write_text("course-secret\n")
    (tmp_path / "course.toml").write_text('[course]\nsecret_file = "keys/secret"\n')
    monkeypatch.chdir(tmp_path)
    assert main(["--kit", str(toy_kit), "list"]) == 0
    assert "AUTOGRADER_SECRET_FILE" not in os.environ  # no channel through the environment
    settings = grade_settings(
        _parser().parse_args(["grade", "toy", "x.ipynb"]), Context(toy_kit, load_course(tmp_path / "course.toml"))
    )
    assert (settings.secret.value, settings.secret.source) == (b"course-secret", "file")
    assert "course-secret" not in repr(settings)


def test_passback_settings_come_from_the_file_and_nbgraders_course_is_left_alone(
    tmp_path, toy_kit, monkeypatch, capsys
):
    root = course_root(
        tmp_path, '[lti]\ntoken_url = "https://lms.example/token"\nclient_id = "tool-9"\nkey_file = "keys/tool.pem"\n'
    )
    monkeypatch.chdir(root / "a")
    assert main(["--kit", str(toy_kit), "passback", "toy", "--dry-run"]) == 0  # url, course, assignment: file
    assert "would send: user 12345 (smithjohn_12345)" in capsys.readouterr().out
    from autograder.cli import _parser
    from autograder.cli.common import fill_from_course
    from autograder.config.course import find_course

    args = _parser().parse_args(["nbgrader", "grade", "toy", "--course", "/srv/nbgrader-course"])
    fill_from_course(args, find_course())
    assert str(args.course) == "/srv/nbgrader-course" and args.out == root / "results"
    args = _parser().parse_args(["passback", "toy", "--course", "7"])
    fill_from_course(args, find_course())
    assert (args.course, args.canvas_url, args.canvas_assignment, args.token_env) == (
        "7",
        "https://canvas.example.edu",
        "1234",
        "MY_CANVAS_TOKEN",
    )  # the flag wins, the rest: file
    assert (args.lti_client_id, args.lti_key) == ("tool-9", root / "keys" / "tool.pem")


def test_title_heads_the_course_gradebook(tmp_path, toy_kit, monkeypatch, capsys):
    course_root(tmp_path)
    monkeypatch.chdir(tmp_path / "a" / "b")
    assert main(["--kit", str(toy_kit), "gradebook"]) == 0
    assert capsys.readouterr().out.startswith("DL: course gradebook: 3 students, 1 assignments")
