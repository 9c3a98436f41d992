"""LMS downloads -> submissions with identities (Canvas, Moodle, nbgrader, Gradescope, plain folders)."""
import json
import os
import zipfile
from datetime import datetime, timezone

import nbformat
import pytest

from autograder.intake.lms import detect, unpack
from autograder.intake.roster import Identity, Roster, read_identities, write_identities
from autograder.intake.submissions import IntakeError


def nb_bytes(tag: str) -> bytes:
    nb = nbformat.v4.new_notebook(cells=[nbformat.v4.new_code_cell(f"TAG = {tag!r}")])
    return nbformat.writes(nb).encode()


def make_zip(path, members):
    """members: (name, bytes, (y, m, d, H, M, S))"""
    with zipfile.ZipFile(path, "w") as zf:
        for name, data, when in members:
            zf.writestr(zipfile.ZipInfo(name, date_time=when), data)
    return path


def tag(sub) -> str:
    return nbformat.read(sub.path, as_version=4).cells[0].source


T0 = (2026, 10, 1, 20, 0, 0)
T1 = (2026, 10, 2, 9, 30, 0)

CANVAS = [
    ("smithjohn_12345_900001_hw1.ipynb", nb_bytes("john v0"), T0),
    ("smithjohn_12345_900007_hw1-1.ipynb", nb_bytes("john v1"), T0),
    ("smithjohn_late_12345_900012_hw1-2.ipynb", nb_bytes("john v2"), T1),   # newest: a late resubmission
    ("garciamaria_LATE_23456_900003_homework_one.ipynb", nb_bytes("maria"), T1),
    ("obrienpat_34567_900004_hw1.ipynb", nb_bytes("pat"), T0),
    ("obrienpat_34567_900005_notes.txt", b"notes", T0),
    ("__MACOSX/._smithjohn_12345_900001_hw1.ipynb", b"junk", T0),
]


def test_canvas_zip_newest_per_student_late_flag(tmp_path):
    z = make_zip(tmp_path / "submissions.zip", CANVAS)
    assert detect(z) == "canvas"
    batch = unpack(z, tmp_path / "scratch")
    by_uid = {e.identity.lms_user_id: e for e in batch.entries}
    assert set(by_uid) == {"12345", "23456", "34567"}
    john = by_uid["12345"]
    assert tag(john.submission) == "TAG = 'john v2'"
    assert john.identity.late is True and john.identity.name == "smithjohn"
    assert john.identity.submitted_at == datetime(2026, 10, 2, 9, 30, tzinfo=timezone.utc)
    assert by_uid["23456"].identity.late is True and by_uid["34567"].identity.late is False
    assert sorted(batch.superseded) == ["smithjohn_12345_900001_hw1.ipynb", "smithjohn_12345_900007_hw1-1.ipynb"]
    assert batch.ignored == ["obrienpat_34567_900005_notes.txt"]
    assert john.submission.id == "smithjohn_12345" and john.submission.path.is_file()
    assert all(e.submission.path.is_relative_to(tmp_path / "scratch") for e in batch.entries)


def test_canvas_lastname_firstname_with_underscores_and_folder(tmp_path):
    folder = tmp_path / "dl"
    folder.mkdir()
    (folder / "smith_john_12345_77_hw1.ipynb").write_bytes(nb_bytes("a"))
    (folder / "doe_jane_LATE_54321_78_hw1.ipynb").write_bytes(nb_bytes("b"))
    assert detect(folder) == "canvas"
    ids = {e.identity.lms_user_id: e.identity for e in unpack(folder, tmp_path / "s").entries}
    assert ids["12345"].name == "smith_john" and ids["54321"].late is True


def test_zip_path_traversal_is_harmless(tmp_path):
    z = make_zip(tmp_path / "evil.zip", [("../../evil_1_2_x.ipynb", nb_bytes("x"), T0),
                                         ("smithjohn_12345_900001_hw1.ipynb", nb_bytes("j"), T0)])
    batch = unpack(z, tmp_path / "scratch", fmt="canvas")
    assert not (tmp_path / "evil_1_2_x.ipynb").exists()
    assert [e.identity.lms_user_id for e in batch.entries] == ["12345"]


MOODLE_FOLDERS = [
    ("Ana María López_101_assignsubmission_file_/hw1.ipynb", nb_bytes("ana"), T0),
    ("Ana María López_101_assignsubmission_file_/data.csv", b"1,2", T0),
    ("Ben Okafor_102_assignsubmission_file_/hw1.ipynb", nb_bytes("ben old"), T0),
    ("Ben Okafor_102_assignsubmission_file_/hw1 (1).ipynb", nb_bytes("ben new"), T1),
    ("Chen Wei_103_assignsubmission_onlinetext_/onlinetext.html", b"<p>hi</p>", T0),
]


def test_moodle_zip_folders(tmp_path):
    z = make_zip(tmp_path / "CS101-Homework 1-12345.zip", MOODLE_FOLDERS)
    assert detect(z) == "moodle"
    batch = unpack(z, tmp_path / "scratch")
    ids = {e.identity.lms_user_id: e for e in batch.entries}
    assert set(ids) == {"101", "102"}
    assert ids["101"].identity.name == "Ana María López"
    assert tag(ids["102"].submission) == "TAG = 'ben new'"
    assert len(batch.superseded) == 1 and "Chen Wei_103_assignsubmission_onlinetext_/onlinetext.html" in batch.ignored
    assert ids["101"].submission.id == "Ana_Maria_Lopez_101"


def test_moodle_zip_flat(tmp_path):
    z = make_zip(tmp_path / "flat.zip", [("Ana María López_101_assignsubmission_file_hw1.ipynb", nb_bytes("a"), T0),
                                         ("Ben Okafor_102_assignsubmission_file_hw1.ipynb", nb_bytes("b"), T0)])
    assert detect(z) == "moodle"
    assert sorted(e.identity.name for e in unpack(z, tmp_path / "s").entries) == ["Ana María López", "Ben Okafor"]


def nbgrader_course(root, stamps):
    for student, stamp in stamps.items():
        d = root / "submitted" / student / "ps1"
        d.mkdir(parents=True)
        (d / "problem1.ipynb").write_bytes(nb_bytes(student))
        if stamp:
            (d / "timestamp.txt").write_text(stamp)
    return root


def test_nbgrader_tree_timestamps(tmp_path):
    course = nbgrader_course(tmp_path / "course", {"alice": "2026-10-01 22:00:00.000000 UTC",
                                                   "bob": "2026-10-02 10:15:30.123456 UTC", "carol": None})
    (course / "submitted" / "bob" / "ps0").mkdir()
    assert detect(course) == "nbgrader" and detect(course / "submitted") == "nbgrader"
    with pytest.raises(IntakeError, match="several assignments"):
        unpack(course, tmp_path / "s")
    batch = unpack(course, tmp_path / "s", assignment="ps1")
    ids = {e.identity.student_id: e.identity for e in batch.entries}
    assert ids["bob"].submitted_at == datetime(2026, 10, 2, 10, 15, 30, 123456, tzinfo=timezone.utc)
    assert ids["bob"].time_source == "timestamp.txt" and ids["carol"].time_source == "mtime"
    assert [e.submission.id for e in batch.entries] == ["alice", "bob", "carol"]


def test_gradescope_submission_dir(tmp_path):
    sub = tmp_path / "autograder" / "submission"
    sub.mkdir(parents=True)
    (sub / "hw1.ipynb").write_bytes(nb_bytes("gs"))
    (tmp_path / "autograder" / "submission_metadata.json").write_text(json.dumps({
        "id": 123456, "created_at": "2026-10-02T01:00:00.000000-07:00",
        "assignment": {"due_date": "2026-10-01T23:59:00.000000-07:00", "title": "HW1", "total_points": "10.0"},
        "users": [{"email": "student@example.edu", "id": 1234, "name": "Student User", "sid": "S0001"}],
        "previous_submissions": []}))
    assert detect(sub) == "gradescope"
    (e,) = unpack(sub, tmp_path / "s").entries
    assert e.identity.email == "student@example.edu" and e.identity.sis_id == "S0001"
    assert e.identity.submitted_at == datetime(2026, 10, 2, 8, 0, tzinfo=timezone.utc)


def test_plain_folder_newest_per_student_folder(tmp_path):
    d = tmp_path / "class"
    (d / "alice").mkdir(parents=True)
    (d / "alice" / "hw.ipynb").write_bytes(nb_bytes("a1"))
    (d / "alice" / "hw_v2.ipynb").write_bytes(nb_bytes("a2"))
    os.utime(d / "alice" / "hw.ipynb", (1_700_000_000, 1_700_000_000))
    (d / "bob.ipynb").write_bytes(nb_bytes("b"))
    (d / ".ipynb_checkpoints").mkdir()
    (d / ".ipynb_checkpoints" / "bob-checkpoint.ipynb").write_bytes(nb_bytes("cp"))
    assert detect(d) == "folder"
    batch = unpack(d, tmp_path / "s")
    assert {e.submission.id: tag(e.submission) for e in batch.entries} == {"alice": "TAG = 'a2'", "bob": "TAG = 'b'"}
    assert batch.superseded == ["alice/hw.ipynb"]


ROSTER = """Student,ID,SIS User ID,SIS Login ID,Section
"Smith, John",12345,S001,jsmith,CS101-A
"García, María",23456,S002,mgarcia,CS101-B
"O'Brien, Pat",34567,S003,pobrien,CS101-A
"Nobody, Absent",45678,S004,nabsent,CS101-B
"""


def test_roster_matches_reports_unmatched_and_missing(tmp_path):
    z = make_zip(tmp_path / "submissions.zip", CANVAS + [("strangerx_99999_900020_hw1.ipynb", nb_bytes("x"), T0)])
    (tmp_path / "roster.csv").write_text("\ufeff" + ROSTER, encoding="utf-8")
    batch = unpack(z, tmp_path / "s", roster=Roster.read_csv(tmp_path / "roster.csv"))
    ids = batch.identities
    assert ids["smithjohn_12345"].sis_id == "S001" and ids["smithjohn_12345"].section == "CS101-A"
    assert ids["smithjohn_12345"].name == "Smith, John" and ids["smithjohn_12345"].late is True
    assert batch.roster.unmatched == ["strangerx_99999"] and "strangerx_99999" in ids   # reported, not dropped
    assert [s.sis_id for s in batch.roster.missing] == ["S004"]
    report = "\n".join(batch.report())
    assert "not on the roster: strangerx_99999" in report and "no submission: Nobody, Absent" in report


def test_roster_match_by_name_and_email(tmp_path):
    (tmp_path / "r.csv").write_text("First name,Last name,Email address,ID number\n"
                                    "Ana María,López,ana@uni.edu,7001\nBen,Okafor,ben@uni.edu,7002\n")
    z = make_zip(tmp_path / "m.zip", MOODLE_FOLDERS)
    batch = unpack(z, tmp_path / "s", roster=Roster.read_csv(tmp_path / "r.csv"))
    emails = sorted(i.email for i in batch.identities.values())
    assert emails == ["ana@uni.edu", "ben@uni.edu"] and not batch.roster.unmatched


def test_identities_round_trip(tmp_path):
    who = {"a": Identity("1", "A", "a@x", submitted_at=datetime(2026, 1, 1, tzinfo=timezone.utc), late=True)}
    write_identities(tmp_path / "identities.json", who)
    assert read_identities(tmp_path / "identities.json") == who
