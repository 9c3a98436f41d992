"""LMS downloads -> submissions with identities (Canvas, Moodle, nbgrader, Gradescope, plain folders)."""

import json
import os
import zipfile
from datetime import datetime, timezone

import nbformat
import pytest

from autograder.intake.downloads import detect, unpack
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
    ("smithjohn_late_12345_900012_hw1-2.ipynb", nb_bytes("john v2"), T1),  # newest: a late resubmission
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
    z = make_zip(
        tmp_path / "evil.zip",
        [("../../evil_1_2_x.ipynb", nb_bytes("x"), T0), ("smithjohn_12345_900001_hw1.ipynb", nb_bytes("j"), T0)],
    )
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
    z = make_zip(
        tmp_path / "flat.zip",
        [
            ("Ana María López_101_assignsubmission_file_hw1.ipynb", nb_bytes("a"), T0),
            ("Ben Okafor_102_assignsubmission_file_hw1.ipynb", nb_bytes("b"), T0),
        ],
    )
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
    course = nbgrader_course(
        tmp_path / "course",
        {"alice": "2026-10-01 22:00:00.000000 UTC", "bob": "2026-10-02 10:15:30.123456 UTC", "carol": None},
    )
    (course / "submitted" / "bob" / "ps0").mkdir()
    assert detect(course) == "nbgrader" and detect(course / "submitted") == "nbgrader"
    with pytest.raises(IntakeError, match="several assignments"):
        unpack(course, tmp_path / "s")
    batch = unpack(course, tmp_path / "s", assignment="ps1")
    ids = {e.identity.student_id: e.identity for e in batch.entries}
    assert ids["bob"].submitted_at == datetime(2026, 10, 2, 10, 15, 30, 123456, tzinfo=timezone.utc)
    assert ids["bob"].time_source == "timestamp.txt" and ids["carol"].time_source == "mtime"
    assert [e.submission.id for e in batch.entries] == ["alice", "bob", "carol"]


def test_a_students_unreadable_timestamp_costs_only_their_time(tmp_path):
    """timestamp.txt is written on the student's side (`nbgrader submit`): not UTF-8, a FIFO (a plain read
    would block), over the size cap or nonsense, each is that student's file time, and the class is read
    (a non-UTF-8 one made the whole intake raise)."""
    course = nbgrader_course(tmp_path / "course", {k: None for k in ("bad_bytes", "fifo", "huge", "nonsense", "ok")})
    stamps = course / "submitted"
    (stamps / "bad_bytes" / "ps1" / "timestamp.txt").write_bytes(b"\xff\xfe2026-10-01 22:00:00 UTC")
    os.mkfifo(stamps / "fifo" / "ps1" / "timestamp.txt")
    with open(stamps / "huge" / "ps1" / "timestamp.txt", "wb") as f:
        f.write(b"2026-10-01 22:00:00 UTC")
        f.truncate(2**30)  # sparse: a GiB the intake must not read
    (stamps / "nonsense" / "ps1" / "timestamp.txt").write_text("\ud800 yesterday", errors="surrogatepass")
    (stamps / "ok" / "ps1" / "timestamp.txt").write_text("2026-10-02 10:15:30 UTC")
    batch = unpack(course, tmp_path / "s", assignment="ps1")
    ids = {e.identity.student_id: e.identity for e in batch.entries}
    assert sorted(ids) == ["bad_bytes", "fifo", "huge", "nonsense", "ok"]
    assert {k for k, v in ids.items() if v.time_source == "mtime"} == {"bad_bytes", "fifo", "huge", "nonsense"}
    assert ids["ok"].submitted_at == datetime(2026, 10, 2, 10, 15, 30, tzinfo=timezone.utc)


@pytest.mark.parametrize(
    "metadata",
    [
        b"\xff",
        b"[1, 2]",
        b'{"users": 5, "created_at": 7}',
        b'{"users": ["x"]}',
        b'{"users": [{"sid": "S1"}], "created_at": "' + b"9" * 5000 + b'"}',
        b"7" * 5000,
    ],
)
def test_gradescope_metadata_that_is_not_what_gradescope_writes(tmp_path, metadata):
    from autograder.interop.gradescope import _read_metadata, submission_identity

    sub = tmp_path / "autograder" / "submission"
    sub.mkdir(parents=True)
    (sub / "hw1.ipynb").write_bytes(nb_bytes("gs"))
    (tmp_path / "autograder" / "submission_metadata.json").write_bytes(metadata)
    (e,) = unpack(sub, tmp_path / "s", fmt="gradescope").entries
    assert e.identity.time_source == "mtime" and e.identity.student_id in ("S1", "submission")
    meta = _read_metadata(tmp_path / "autograder")
    assert meta is None or submission_identity(meta)[0] is None


def test_gradescope_submission_dir(tmp_path):
    sub = tmp_path / "autograder" / "submission"
    sub.mkdir(parents=True)
    (sub / "hw1.ipynb").write_bytes(nb_bytes("gs"))
    (tmp_path / "autograder" / "submission_metadata.json").write_text(
        json.dumps(
            {
                "id": 123456,
                "created_at": "2026-10-02T01:00:00.000000-07:00",
                "assignment": {"due_date": "2026-10-01T23:59:00.000000-07:00", "title": "HW1", "total_points": "10.0"},
                "users": [{"email": "student@example.edu", "id": 1234, "name": "Student User", "sid": "S0001"}],
                "previous_submissions": [],
            }
        )
    )
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
    assert batch.roster.unmatched == ["strangerx_99999"] and "strangerx_99999" in ids  # reported, not dropped
    assert [s.sis_id for s in batch.roster.missing] == ["S004"]
    report = "\n".join(batch.report())
    assert "not on the roster: strangerx_99999" in report and "no submission: Nobody, Absent" in report


def test_roster_match_by_name_and_email(tmp_path):
    (tmp_path / "r.csv").write_text(
        "First name,Last name,Email address,ID number\nAna María,López,ana@uni.edu,7001\nBen,Okafor,ben@uni.edu,7002\n"
    )
    z = make_zip(tmp_path / "m.zip", MOODLE_FOLDERS)
    batch = unpack(z, tmp_path / "s", roster=Roster.read_csv(tmp_path / "r.csv"))
    emails = sorted(i.email for i in batch.identities.values())
    assert emails == ["ana@uni.edu", "ben@uni.edu"] and not batch.roster.unmatched


def test_identities_round_trip(tmp_path):
    who = {"a": Identity("1", "A", "a@x", submitted_at=datetime(2026, 1, 1, tzinfo=timezone.utc), late=True)}
    write_identities(tmp_path / "identities.json", who)
    assert read_identities(tmp_path / "identities.json") == who


# ------------------------------------------------------------------ one bad member never blocks a class


def _flag_encrypted(path, name: str) -> None:
    """Set the 'encrypted' flag bit of member `name` in its local and central headers (zipfile cannot
    write encryption; readers go by this bit)."""
    raw = bytearray(path.read_bytes())
    with zipfile.ZipFile(path) as zf:
        raw[zf.getinfo(name).header_offset + 6] |= 1
    at = raw.find(b"PK\x01\x02")
    while at >= 0:
        n = int.from_bytes(raw[at + 28 : at + 30], "little")
        if bytes(raw[at + 46 : at + 46 + n]) == name.encode():
            raw[at + 8] |= 1
        at = raw.find(b"PK\x01\x02", at + 4)
    path.write_bytes(bytes(raw))


def _corrupt(path, name: str, *, crc_only: bool = False) -> None:
    """Damage member `name`: its compressed bytes, or (crc_only) just the CRC its central header claims."""
    raw = bytearray(path.read_bytes())
    with zipfile.ZipFile(path) as zf:
        info = zf.getinfo(name)
    if crc_only:
        at = raw.find(b"PK\x01\x02")
        while int.from_bytes(raw[at + 42 : at + 46], "little") != info.header_offset:
            at = raw.find(b"PK\x01\x02", at + 4)
        raw[at + 16 : at + 20] = (info.CRC ^ 0xFFFF).to_bytes(4, "little")
        raw[info.header_offset + 14 : info.header_offset + 18] = (info.CRC ^ 0xFFFF).to_bytes(4, "little")
    else:
        data = info.header_offset + 30 + len(info.filename.encode())
        raw[data + 8 : data + 40] = b"\xff" * 32
    path.write_bytes(bytes(raw))


BAD_CANVAS = [
    ("smithjohn_12345_900001_hw1.ipynb", nb_bytes("john"), T0),
    ("garciamaria_23456_900003_hw1.ipynb", nb_bytes("maria") + b" " * 4000, T0),  # damaged below
    ("obrienpat_34567_900004_hw1.ipynb", nb_bytes("pat"), T0),  # encrypted below
    ("leeann_45678_900005_hw1.ipynb", nb_bytes("ann"), T0),  # CRC below
    ("kimbo_56789_900006_hw1.ipynb", b" " * (51 * 2**20), T0),  # over MAX_ZIP_MEMBER
    ("nestednina_67890_900007_hw1.zip", b"PK\x05\x06" + bytes(18), T0),  # a zip in the zip
    ("../../evil_78901_900008_hw1.ipynb", nb_bytes("evil"), T0),  # traversal: ignored
]


@pytest.fixture
def bad_canvas_zip(tmp_path):
    z = tmp_path / "bad.zip"
    with zipfile.ZipFile(z, "w", zipfile.ZIP_DEFLATED) as zf:
        for name, data, when in BAD_CANVAS:
            zf.writestr(zipfile.ZipInfo(name, date_time=when), data, compress_type=zipfile.ZIP_DEFLATED)
    _corrupt(z, "garciamaria_23456_900003_hw1.ipynb")
    _corrupt(z, "leeann_45678_900005_hw1.ipynb", crc_only=True)
    _flag_encrypted(z, "obrienpat_34567_900004_hw1.ipynb")
    return z


def test_bad_members_become_invalid_submissions_and_the_rest_is_graded(bad_canvas_zip, tmp_path):
    batch = unpack(bad_canvas_zip, tmp_path / "scratch")
    by_uid = {e.identity.lms_user_id: e.submission for e in batch.entries}
    assert set(by_uid) == {"12345", "23456", "34567", "45678", "56789"}
    assert by_uid["12345"].problem == "" and tag(by_uid["12345"]) == "TAG = 'john'"
    assert "damaged" in by_uid["23456"].problem
    assert "encrypted" in by_uid["34567"].problem
    assert "damaged" in by_uid["45678"].problem and "CRC" in by_uid["45678"].problem
    assert "over the 50 MiB limit" in by_uid["56789"].problem
    for sid in ("23456", "34567", "45678", "56789"):
        assert not by_uid[sid].path.exists()  # nothing half-extracted is left for anyone to grade
    assert any("nestednina" in i and "zip inside the zip" in i for i in batch.ignored)
    assert any("evil" in i for i in batch.ignored)
    assert all(p.resolve().is_relative_to((tmp_path / "scratch").resolve()) for p in (tmp_path / "scratch").rglob("*"))
    report = "\n".join(batch.report())
    assert "unreadable (graded invalid): obrienpat_34567_900004_hw1.ipynb: the file is encrypted" in report


def test_collect_turns_bad_members_into_invalid_submissions(bad_canvas_zip, tmp_path):
    from autograder.intake.submissions import collect

    subs = {s.source: s for s in collect([bad_canvas_zip], tmp_path / "scratch")}
    assert subs["smithjohn_12345_900001_hw1.ipynb"].problem == ""
    assert {n for n, s in subs.items() if s.problem} == {
        "garciamaria_23456_900003_hw1.ipynb",
        "obrienpat_34567_900004_hw1.ipynb",
        "leeann_45678_900005_hw1.ipynb",
        "kimbo_56789_900006_hw1.ipynb",
    }
    assert len({s.id for s in subs.values()}) == len(subs) == 6  # evil_ is kept by its base name


def test_member_larger_than_it_claims_is_refused(tmp_path, monkeypatch):
    from autograder.intake import submissions

    monkeypatch.setattr(submissions, "MAX_ZIP_MEMBER", 2**16)
    z = tmp_path / "liar.zip"
    with zipfile.ZipFile(z, "w", zipfile.ZIP_DEFLATED) as zf:
        zf.writestr("bomb.ipynb", b" " * 2**20)  # 1 MiB of spaces, ~1 KB compressed: a 1000:1 bomb
        zf.writestr("ok.ipynb", nb_bytes("ok"))
    raw = bytearray(z.read_bytes())
    with zipfile.ZipFile(z) as zf:
        info = zf.getinfo("bomb.ipynb")
    at = raw.find(b"PK\x01\x02")
    raw[at + 24 : at + 28] = (1000).to_bytes(4, "little")  # the central directory claims 1000 bytes
    z.write_bytes(bytes(raw))
    subs = {s.source: s for s in submissions.collect([z], tmp_path / "s")}
    assert "damaged" in subs["bomb.ipynb"].problem and "CRC" in subs["bomb.ipynb"].problem, subs
    assert not subs["bomb.ipynb"].path.exists()
    assert subs["ok.ipynb"].problem == "" and subs["ok.ipynb"].path.is_file()
    assert info.file_size == 2**20


def test_members_over_the_total_cap_are_invalid_not_fatal(tmp_path, monkeypatch):
    from autograder.intake import submissions

    monkeypatch.setattr(submissions, "MAX_ZIP_TOTAL", 2 * len(nb_bytes("a0")) + 10)
    z = make_zip(tmp_path / "many.zip", [(f"s{i}.ipynb", nb_bytes(f"a{i}"), T0) for i in range(4)])
    subs = submissions.collect([z], tmp_path / "s")
    assert [bool(s.problem) for s in subs] == [False, False, True, True]
    assert "together are over" in subs[2].problem


class _SparseFile:
    """Writes of the ZERO block become holes: a >2 GiB zip that takes seconds and little disk to make."""

    ZERO = bytes(2**24)

    def __init__(self, f) -> None:
        self.f = f

    def write(self, data) -> int:
        if data is self.ZERO:
            self.f.seek(len(data), os.SEEK_CUR)
            return len(data)
        return self.f.write(data)

    def __getattr__(self, name):
        return getattr(self.f, name)


def test_zip64_class_larger_than_2_gib_streams_member_by_member(tmp_path):
    import resource

    z = tmp_path / "huge.zip"
    with open(z, "wb") as raw:
        with zipfile.ZipFile(_SparseFile(raw), "w") as zf:
            zf.writestr("smithjohn_12345_900001_hw1.ipynb", nb_bytes("john"))
            with zf.open(zipfile.ZipInfo("smithjohn_12345_900002_data.bin"), "w", force_zip64=True) as pad:
                for _ in range(2 * 2**30 // len(_SparseFile.ZERO) + 8):  # 2.1 GiB, stored
                    pad.write(_SparseFile.ZERO)
            for i, who in enumerate(["garciamaria_23456", "obrienpat_34567"]):
                zf.writestr(f"{who}_90001{i}_hw1.ipynb", nb_bytes(who))
    assert z.stat().st_size > 2 * 2**30
    with zipfile.ZipFile(z) as zf:  # the notebooks after the padding need zip64 offsets
        assert zf.getinfo("obrienpat_34567_900011_hw1.ipynb").header_offset > 2**31
    rss_before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    batch = unpack(z, tmp_path / "scratch")
    assert resource.getrusage(resource.RUSAGE_SELF).ru_maxrss - rss_before < 200 * 1024  # KiB: not read into memory
    assert {e.identity.lms_user_id: tag(e.submission) for e in batch.entries} == {
        "12345": "TAG = 'john'",
        "23456": "TAG = 'garciamaria_23456'",
        "34567": "TAG = 'obrienpat_34567'",
    }
    assert batch.ignored == ["smithjohn_12345_900002_data.bin"]
