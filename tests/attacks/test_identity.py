"""Attacks on who a submission is (trust rule 6: identity comes only from where the LMS or hub put a file).

In a folder graded with a roster, JupyterHub style (`<login>/<id>.ipynb`), a student copies a classmate's
notebook byte for byte, hands in the blank release in a later run (with `counts = "best"`, whose kept versions
decide the grade), or names a file in their own folder after a classmate (`mallory/zoe.ipynb`).  Each student's
grade must come only from their own folder: ids stable per student across runs, never shared, never taken from
content, two claimants of one student refused with both named.  The same class is checked for every intake
layout: hub and plain folders, zips of them, nbgrader's exchange, Canvas, Moodle, Gradescope.
"""

from __future__ import annotations

import sys
import zipfile
from pathlib import Path

import nbformat
import pytest

from autograder.intake.downloads import unpack
from autograder.intake.roster import Roster, match_roster
from autograder.intake.submissions import collect

ROSTER = (
    "Student,ID,SIS User ID,SIS Login ID,Section\n"
    "\"Author, Zoe\",2,S2,zoe,A\n\"Copier, Mallory\",3,S3,mallory,A\n\"Blank, Alice\",1,S1,alice,A\n"
)


def nb(tag: str) -> bytes:
    return nbformat.writes(nbformat.v4.new_notebook(cells=[nbformat.v4.new_code_cell(f"TAG = {tag!r}")])).encode()


SOLVED, BLANK = nb("zoe's own work"), nb("the release, blank")


def _hub(root: Path, files: dict[str, bytes]) -> Path:
    for name, data in files.items():
        (root / name).parent.mkdir(parents=True, exist_ok=True)
        (root / name).write_bytes(data)
    return root


def _grade_intake(tmp_path: Path, folder: Path, roster: Path | None = None) -> tuple[list, dict]:
    """What `autograder grade toy FOLDER --roster ROSTER` takes in: (submissions, identities.json)."""
    from autograder.intake.batch import take

    scratch = tmp_path / "scratch"
    scratch.mkdir(exist_ok=True)
    intake = take([folder], scratch, roster=roster, assignment="toy")
    for note in intake.notes:  # what the grade command prints of it
        print(note, file=sys.stderr)
    return intake.submissions, intake.identities


@pytest.fixture
def roster(tmp_path) -> Path:
    path = tmp_path / "roster.csv"
    path.write_text(ROSTER)
    return path


def _owner(subs, who) -> dict[str, str]:
    """{student id: the folder their credited notebook is in}."""
    by_id = {s.id: s for s in subs}
    return {w.student_id: Path(by_id[sid].source).parts[0] for sid, w in who.items() if sid in by_id}


def test_a_byte_for_byte_copy_never_takes_the_authors_id(tmp_path, roster):
    hub = _hub(
        tmp_path / "hub",
        {"zoe/01_tensors.ipynb": SOLVED, "mallory/01_tensors.ipynb": SOLVED, "alice/01_tensors.ipynb": BLANK},
    )
    subs, who = _grade_intake(tmp_path, hub, roster)
    assert len({s.id for s in subs}) == 3  # distinct: both copies reach similarity, each graded as its own
    assert _owner(subs, who) == {"2": "zoe", "3": "mallory", "1": "alice"}
    assert {s.id for s in subs} == {"2", "3", "1"}  # each the student's own id


def test_ids_are_the_students_in_every_run_so_versions_stay_theirs(tmp_path, roster):
    """Run 1: zoe's work.  Run 2: alice hands in the blank release, zoe nothing.  Run 3: zoe again."""
    from autograder.store import history

    runs = [
        {"zoe/01_tensors.ipynb": SOLVED},
        {"alice/01_tensors.ipynb": BLANK},
        {"zoe/01_tensors.ipynb": SOLVED, "alice/01_tensors.ipynb": BLANK},
    ]
    ids: list[dict[str, str]] = []
    for n, files in enumerate(runs):
        subs, _ = _grade_intake(tmp_path, _hub(tmp_path / f"run{n}", files), roster)
        ids.append({Path(s.source).parts[0]: s.id for s in subs})
    assert ids[0]["zoe"] == ids[2]["zoe"] and ids[1]["alice"] == ids[2]["alice"] != ids[0]["zoe"]
    assert history.folder(tmp_path, "toy", ids[1]["alice"]) != history.folder(tmp_path, "toy", ids[0]["zoe"])


def test_a_file_named_after_a_classmate_is_the_folders_owners(tmp_path, roster):
    hub = _hub(tmp_path / "hub", {"mallory/zoe.ipynb": SOLVED, "alice/01_tensors.ipynb": BLANK})
    subs, who = _grade_intake(tmp_path, hub, roster)
    assert _owner(subs, who) == {"3": "mallory", "1": "alice"}  # zoe: no submission, not mallory's file


def test_two_claimants_of_one_student_are_refused_with_both_named(tmp_path, roster, capsys):
    hub = _hub(
        tmp_path / "hub",
        {"mallory/zoe.ipynb": SOLVED, "mallory/01_tensors.ipynb": BLANK, "zoe/01_tensors.ipynb": SOLVED},
    )
    subs, who = _grade_intake(tmp_path, hub, roster)
    err = capsys.readouterr().err
    assert _owner(subs, who) == {"2": "zoe"}
    refused = [s for s in subs if s.problem]
    assert sorted(s.source for s in refused) == ["mallory/01_tensors.ipynb", "mallory/zoe.ipynb"]
    assert all("mallory/zoe.ipynb" in s.problem and "mallory/01_tensors.ipynb" in s.problem for s in refused)
    assert "none is credited" in err and "mallory/zoe.ipynb" in err


def test_a_link_in_a_students_folder_is_not_followed(tmp_path, roster):
    hub = _hub(tmp_path / "hub", {"zoe/01_tensors.ipynb": SOLVED})
    (hub / "mallory").mkdir()
    (hub / "mallory" / "01_tensors.ipynb").symlink_to(hub / "zoe" / "01_tensors.ipynb")
    subs, _ = _grade_intake(tmp_path, hub, roster)
    link = next(s for s in subs if s.source.startswith("mallory/"))
    assert "link" in link.problem  # graded invalid: never zoe's work as mallory's


def test_a_plain_folder_without_roster_gives_each_file_its_own_stable_id(tmp_path):
    files = {"a/x.ipynb": SOLVED, "b/x.ipynb": SOLVED, "c/x.ipynb": SOLVED, "d.ipynb": SOLVED}
    first = {s.source: s.id for s in collect([_hub(tmp_path / "all", files)], tmp_path)}
    assert len(set(first.values())) == 4
    alone = {s.source: s.id for s in collect([_hub(tmp_path / "some", {"c/x.ipynb": BLANK})], tmp_path)}
    assert alone["c/x.ipynb"] == first["c/x.ipynb"]  # the same id whoever else handed in, whatever it holds
    assert first["d.ipynb"] == "d"


def test_a_zip_of_a_hub_folder_is_matched_by_its_folders(tmp_path, roster):
    z = tmp_path / "collected.zip"
    with zipfile.ZipFile(z, "w") as zf:
        for name, data in {
            "hub/zoe/01_tensors.ipynb": SOLVED,
            "hub/mallory/01_tensors.ipynb": SOLVED,
            "hub/alice/zoe.ipynb": BLANK,
        }.items():
            zf.writestr(name, data)
    subs, who = _grade_intake(tmp_path, z, roster)
    assert _owner(subs, who) == {"2": "zoe", "3": "mallory", "1": "alice"} and len({s.id for s in subs}) == 3


def test_nbgrader_exchange_identity_is_the_student_folder(tmp_path):
    sub = tmp_path / "course" / "submitted"
    _hub(
        sub,
        {
            "mallory/ps1/zoe.ipynb": SOLVED,
            "zoe/ps1/ps1.ipynb": SOLVED,
            "a b/ps1/ps1.ipynb": SOLVED,
            "a  b/ps1/ps1.ipynb": SOLVED,
            "a_b/ps1/ps1.ipynb": SOLVED,
        },
    )
    batch = unpack(tmp_path / "course", tmp_path / "scratch", assignment="ps1")
    owner = {e.identity.student_id: e.submission.source.split("/")[0] for e in batch.entries}
    assert owner["mallory"] == "mallory" and owner["zoe"] == "zoe"
    assert len({e.submission.id for e in batch.entries}) == 5  # three ids that clean to `a_b`: three ids, not two
    again = unpack(tmp_path / "course", tmp_path / "scratch2", assignment="ps1")
    assert {e.submission.id for e in again.entries} == {e.submission.id for e in batch.entries}


def test_plain_folder_download_identity_is_the_top_folder(tmp_path):
    batch = unpack(
        _hub(tmp_path / "hub", {"mallory/zoe.ipynb": SOLVED, "zoe/hw.ipynb": SOLVED}),
        tmp_path / "scratch",
        fmt="folder",
    )
    assert {e.identity.student_id: e.submission.source.split("/")[0] for e in batch.entries} == {
        "mallory": "mallory",
        "zoe": "zoe",
    }


CANVAS_ROSTER = "Student,ID,SIS User ID,SIS Login ID,Section\n\"Author, Zoe\",2,S2,zoe,A\n"


@pytest.mark.parametrize("layout", ["canvas", "moodle"])
def test_an_lms_name_never_takes_a_roster_row_with_another_lms_id(tmp_path, layout):
    """Mallory (LMS user 9, not on the roster) shows the display name of Zoe (user 2, who handed nothing in)."""
    name = "authorzoe" if layout == "canvas" else "Zoe Author"
    member = f"{name}_9_900001_hw.ipynb" if layout == "canvas" else f"{name}_9_assignsubmission_file_/hw.ipynb"
    z = tmp_path / "download.zip"
    with zipfile.ZipFile(z, "w") as zf:
        zf.writestr(member, SOLVED)
    roster = tmp_path / "roster.csv"
    roster.write_text(CANVAS_ROSTER)
    batch = unpack(z, tmp_path / "scratch", roster=Roster.read_csv(roster))
    (entry,) = batch.entries
    assert entry.identity.lms_user_id == "9" and entry.identity.sis_id != "S2"  # never zoe's ids
    assert [s.student_id for s in batch.roster.missing] == ["2"]


def test_two_lms_users_matching_one_roster_student_are_refused_with_both_named(tmp_path):
    from autograder.intake.roster import Identity

    roster = tmp_path / "roster.csv"
    roster.write_text("Student,ID,SIS User ID,SIS Login ID,Section\n\"Author, Zoe\",,S2,zoe,A\n")
    found = {
        "authorzoe_2": Identity(student_id="2", name="Author, Zoe", login_id="zoe"),
        "zoe_9": Identity(student_id="9", name="Zoe Author", email="", login_id="zoe"),
    }
    m = match_roster(found, Roster.read_csv(roster))
    assert sorted(m.unmatched) == ["authorzoe_2", "zoe_9"] and m.duplicates == [("zoe_9", "authorzoe_2")]
    assert m.matched["zoe_9"].student_id == "9" and m.matched["authorzoe_2"].sis_id == ""  # neither takes S2
    assert [s.sis_id for s in m.missing] == ["S2"]
    from autograder.intake.downloads import Batch

    lines = Batch("canvas", [], roster=m).report()
    assert any("neither is credited" in ln and "zoe_9" in ln and "authorzoe_2" in ln for ln in lines), lines
    assert not any(ln.startswith("not on the roster") for ln in lines), lines


def test_gradescope_identity_is_the_metadata_never_a_file_name(tmp_path):
    import json

    sub = _hub(tmp_path / "submission", {"zoe.ipynb": SOLVED})
    (tmp_path / "submission_metadata.json").write_text(
        json.dumps(
            {
                "users": [{"name": "Mallory", "email": "m@u.edu", "sid": "S3", "id": 3}],
                "created_at": "2026-10-01T00:00:00Z",
            }
        )
    )
    (entry,) = unpack(sub, tmp_path / "scratch").entries
    assert entry.identity.sis_id == "S3" and entry.identity.name == "Mallory"


def test_by_place_gives_students_their_own_ids_and_keeps_the_unmatched(tmp_path, roster):
    from autograder.intake.roster import by_place

    hub = _hub(tmp_path / "hub", {"zoe/a.ipynb": SOLVED, "stranger/a.ipynb": SOLVED})
    subs, who, unmatched, _ = by_place(collect([hub], tmp_path), Roster.read_csv(roster))
    assert {s.id for s in subs} == {"2", "stranger_a"} and list(who) == ["2"] and unmatched == ["stranger_a"]
