"""One policy in every export: ungradable and provisional results always blank (never 0, never a score),
missing students blank unless `missing="zero"`, a normal row its score; and the CLI refusals."""

import csv
import io
import json
from dataclasses import replace

import pytest

from autograder.grades.rows import grade_rows
from autograder.intake.roster import Identity
from autograder.lms.canvas_api import plan
from autograder.lms.lti import LtiTool, publish_scores
from autograder.report.canvas_csv import canvas_table
from autograder.report.exports import generic_json, generic_table
from autograder.report.moodle_csv import moodle_table
from autograder.store.database import Gradebook
from tests.cli.test_commands import run, setup_out
from tests.grades.factory import grader_failure, result


def policy_rows():
    res = [
        result("norm", (1, 1, 0.5, 1, 0)),
        grader_failure("ungr"),
        replace(result("prov"), provisional="judge process died (host fault)"),
    ]
    ids = {
        s: Identity(s, s.title(), f"{s}@uni.edu", f"S-{s}", lms_user_id=f"u-{s}", lti_user_id=f"sub-{s}")
        for s in ("norm", "ungr", "prov")
    }
    miss = Identity("miss", "Miss", "miss@uni.edu", "S-miss", lms_user_id="u-miss", lti_user_id="sub-miss")
    return grade_rows(res, ids, roster=list(ids.values()) + [miss])


EXPECTED = {
    "blank": {"norm": 7.0, "ungr": None, "prov": None, "miss": None},
    "zero": {"norm": 7.0, "ungr": None, "prov": None, "miss": 0.0},
}


def _num(cell: str):
    return None if cell == "" else float(cell)


@pytest.mark.parametrize("missing", ["blank", "zero"])
def test_canvas_csv(missing):
    t = canvas_table(policy_rows(), assignment_name="Lab", assignment_id=5, missing=missing)
    assert {r[1].removeprefix("u-"): _num(r[-1]) for r in t.rows[1:]} == EXPECTED[missing]
    assert any(b.startswith("prov: provisional") for b in t.blanks)
    assert any(b.startswith("ungr: not graded") for b in t.blanks)


@pytest.mark.parametrize("missing", ["blank", "zero"])
def test_moodle_csv(missing):
    t = moodle_table(policy_rows(), item_name="Lab", missing=missing)
    got = {r[0].split("@")[0]: float(r[2]) for r in t.rows}
    assert got == {k: v for k, v in EXPECTED[missing].items() if v is not None}  # blank rows are left out
    assert any(s.startswith("prov: provisional") for s in t.skipped)


@pytest.mark.parametrize("missing", ["blank", "zero"])
def test_generic_csv_and_json(missing):
    header, body = generic_table(policy_rows(), missing)
    col, msg = header.index("score"), header.index("message")
    assert {r[0]: _num(r[col]) for r in body} == EXPECTED[missing]
    by = {r[0]: r for r in body}
    assert by["prov"][msg].startswith("provisional") and by["ungr"][msg].startswith("not graded")
    students = generic_json(policy_rows(), "toy", missing)["students"]
    assert {s["identity"]["student_id"]: s["score"] for s in students} == EXPECTED[missing]
    assert {s["identity"]["student_id"]: bool(s["blank_reason"]) for s in students} == {
        "norm": False,
        "ungr": True,
        "prov": True,
        "miss": True,
    }


@pytest.mark.parametrize("missing", ["blank", "zero"])
def test_canvas_passback_plan(missing):
    rep = plan(policy_rows(), missing=missing)
    assert {p.user_id.removeprefix("u-"): p.score for p in rep.planned} == {
        k: v for k, v in EXPECTED[missing].items() if v is not None
    }
    assert all(p.max_score == 10 for p in rep.planned)
    assert any("provisional" in s for s in rep.skipped) and any("not graded" in s for s in rep.skipped)


@pytest.mark.parametrize("missing", ["blank", "zero"])
def test_lti_plan(missing):
    rep = publish_scores(
        LtiTool("c", "http://127.0.0.1:9/token", b""),
        "http://127.0.0.1:9/li",
        policy_rows(),
        dry_run=True,
        missing=missing,
    )
    assert {p["userId"].removeprefix("sub-"): p["scoreGiven"] for p in rep.planned} == {
        k: v for k, v in EXPECTED[missing].items() if v is not None
    }
    assert any("provisional" in s for s in rep.skipped)


def test_export_refuses_when_nothing_graded(toy_kit, tmp_path, capsys):
    out = tmp_path / "results"
    Gradebook(out / "gradebook.sqlite").close()
    (tmp_path / "roster.csv").write_text("Student,ID\nRoe,1\n")
    for fmt in ("canvas", "moodle", "csv", "json"):
        dest = tmp_path / f"x.{fmt}"
        assert (
            run(
                [
                    "export",
                    "toy",
                    "--out",
                    str(out),
                    "--format",
                    fmt,
                    "--assignment-id",
                    "7",
                    "--to",
                    str(dest),
                    "--roster",
                    str(tmp_path / "roster.csv"),
                ],
                toy_kit,
            )
            == 2
        )
        assert not dest.exists()
    assert "nothing graded for toy" in capsys.readouterr().err


def test_canvas_export_needs_assignment_id_or_new_assignment(toy_kit, tmp_path, capsys):
    out = setup_out(tmp_path)
    dest = tmp_path / "c.csv"
    assert run(["export", "toy", "--out", str(out), "--format", "canvas", "--to", str(dest)], toy_kit) == 2
    assert not dest.exists() and "--assignment-id" in capsys.readouterr().err
    assert (
        run(["export", "toy", "--out", str(out), "--format", "canvas", "--to", str(dest), "--new-assignment"], toy_kit)
        == 0
    )
    header = next(csv.reader(io.StringIO(dest.read_text())))
    assert header[-1] == "Toy assignment for the engine's own tests"  # no "(id)": Canvas creates it


def test_roster_lti_user_id_column(tmp_path):
    from autograder.intake.roster import Roster

    for col in ("lti_user_id", "LTI User ID", "sub"):
        (tmp_path / "r.csv").write_text(f"Student,ID,{col}\nAlice,12,f00d-1\n")
        (s,) = Roster.read_csv(tmp_path / "r.csv").students
        assert s.lti_user_id == "f00d-1" and s.lms_user_id == "12"
    assert json.loads(json.dumps(s.to_json()))["lti_user_id"] == "f00d-1"


@pytest.mark.parametrize("missing", ["blank", "zero"])
def test_cli_canvas_export_of_an_ungradable_and_a_provisional_submission_is_blank(toy_kit, tmp_path, missing):
    """Through `export` (gradebook, identities, roster): Rick's grader failure and Jane's provisional result are
    blank cells, never 0, whatever --missing says."""
    from autograder.intake.roster import read_identities, write_identities

    out = setup_out(tmp_path)
    gb = Gradebook(out / "gradebook.sqlite")
    gb.put(replace(grader_failure("roerick_34567"), assignment="toy"))
    gb.put(replace(result("doejane_23456"), provisional="worker never started"))
    gb.close()
    ids = read_identities(out / "toy" / "identities.json")
    write_identities(
        out / "toy" / "identities.json", {**ids, "roerick_34567": Identity("34567", "roerick", lms_user_id="34567")}
    )
    dest = tmp_path / "c.csv"
    assert (
        run(
            [
                "export",
                "toy",
                "--out",
                str(out),
                "--format",
                "canvas",
                "--assignment-id",
                "5",
                "--to",
                str(dest),
                "--roster",
                str(tmp_path / "roster.csv"),
                "--missing",
                missing,
            ],
            toy_kit,
        )
        == 0
    )
    rows = list(csv.reader(io.StringIO(dest.read_text())))
    assert {r[1]: r[-1] for r in rows[2:]} == {"12345": "10", "23456": "", "34567": ""}
