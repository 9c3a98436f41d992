"""The course gradebook: every roster student x every graded assignment, missing work shown as missing,
as a printed table, a CSV, and Canvas / Moodle files carrying all assignments at once."""

import csv
import io
import shutil
from dataclasses import replace

from autograder.store.database import Gradebook
from tests.cli.test_commands import run, setup_out
from tests.grades.factory import grader_failure, result
from tests.report.test_exports import canvas_import


def two_assignment_kit(toy_kit, tmp_path):
    kit = tmp_path / "kit"
    shutil.copytree(toy_kit, kit)
    shutil.copytree(kit / "assignments" / "toy", kit / "assignments" / "toy2")
    m = kit / "assignments" / "toy2" / "manifest.toml"
    m.write_text(m.read_text().replace('title = "Toy assignment', 'title = "Second toy'))
    if (kit / "solutions" / "toy").exists():
        shutil.copytree(kit / "solutions" / "toy", kit / "solutions" / "toy2")
    return kit


def setup(toy_kit, tmp_path):
    kit = two_assignment_kit(toy_kit, tmp_path)
    out = setup_out(tmp_path)  # toy: smithjohn 10/10, doejane 3/10; roster also has Roe, Rick (34567)
    gb = Gradebook(out / "gradebook.sqlite")
    gb.put(replace(result("smithjohn_12345", (1, 1, 1, 0, 0)), assignment="toy2"))  # 6/10
    gb.put(replace(grader_failure("doejane_23456"), assignment="toy2"))  # not graded
    gb.close()
    (out / "toy2").mkdir()
    shutil.copy(out / "toy" / "identities.json", out / "toy2" / "identities.json")  # intake writes one each
    return kit, out, str(tmp_path / "roster.csv")


def test_table_and_csv(toy_kit, tmp_path, capsys):
    kit, out, roster = setup(toy_kit, tmp_path)
    assert run(["gradebook", "--out", str(out), "--roster", roster], kit) == 0
    printed = capsys.readouterr().out
    assert "3 students, 2 assignments" in printed
    rick = next(line for line in printed.splitlines() if line.startswith("Roe, Rick"))
    assert rick.split()[2:] == ["missing", "missing"]
    jane = next(line for line in printed.splitlines() if line.startswith("Doe, Jane"))
    assert jane.split()[2:] == ["3", "not", "graded"]
    rows = {r["student_id"]: r for r in csv.DictReader(io.StringIO((out / "course_gradebook.csv").read_text()))}
    assert rows["12345"]["toy (10)"] == "10" and rows["12345"]["toy2 (10)"] == "6" and rows["12345"]["total"] == "16"
    assert rows["23456"]["toy2 (10)"] == "" and rows["23456"]["toy2 status"] == "not graded"
    assert rows["34567"]["toy status"] == rows["34567"]["toy2 status"] == "missing" and rows["34567"]["total"] == "0"
    assert (
        run(
            ["gradebook", "--out", str(out), "--roster", roster, "--missing", "zero", "--to", str(tmp_path / "z.csv")],
            kit,
        )
        == 0
    )
    zero = {r["student_id"]: r for r in csv.DictReader(io.StringIO((tmp_path / "z.csv").read_text()))}
    assert zero["34567"]["toy (10)"] == "0" and zero["23456"]["toy2 (10)"] == ""  # ungradable: still blank


def test_canvas_all_assignments(toy_kit, tmp_path, capsys):
    kit, out, roster = setup(toy_kit, tmp_path)
    assert run(["gradebook", "--out", str(out), "--roster", roster, "--format", "canvas"], kit) == 2
    assert "canvas_assignment" in capsys.readouterr().err and not (out / "course_canvas.csv").exists()
    (tmp_path / "course.toml").write_text(
        "[assignments.toy]\ncanvas_assignment = 11\n[assignments.toy2]\ncanvas_assignment = 12\n"
    )
    from autograder.config.course import load_course

    assert (
        run(
            ["gradebook", "--out", str(out), "--roster", roster, "--format", "canvas"],
            kit,
            load_course(tmp_path / "course.toml"),
        )
        == 0
    )
    text = (out / "course_canvas.csv").read_text()
    course = {u: {"sis_user_id": s, "login_id": ""} for u, s in (("12345", "S1"), ("23456", "S2"), ("34567", "S3"))}
    grades, new, warnings = canvas_import(text, course, {"11": "Toy", "12": "Second toy"})
    assert grades == {"12345": {"11": 10.0, "12": 6.0}, "23456": {"11": 3.0}} and not new and not warnings


def test_moodle_all_assignments(toy_kit, tmp_path):
    kit, out, _ = setup(toy_kit, tmp_path)
    (tmp_path / "roster.csv").write_text(
        "Student,ID,Email address\n\"Smith, John\",12345,js@uni.edu\n"
        "\"Doe, Jane\",23456,jd@uni.edu\n\"Roe, Rick\",34567,rr@uni.edu\n"
    )
    assert (
        run(["gradebook", "--out", str(out), "--roster", str(tmp_path / "roster.csv"), "--format", "moodle"], kit) == 0
    )
    rows = list(csv.reader(io.StringIO((out / "course_moodle.csv").read_text())))
    assert rows[0] == [
        "Email address",
        "Full name",
        "Toy assignment for the engine's own tests",
        "Second toy for the engine's own tests",
    ]
    assert rows[1:] == [["js@uni.edu", "Smith, John", "10", "6"], ["jd@uni.edu", "Doe, Jane", "3", ""]]


def test_nothing_graded(toy_kit, tmp_path, capsys):
    Gradebook(tmp_path / "r" / "gradebook.sqlite").close()
    assert run(["gradebook", "--out", str(tmp_path / "r")], toy_kit) == 2
    assert "nothing graded" in capsys.readouterr().err
