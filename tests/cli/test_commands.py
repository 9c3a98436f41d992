"""The CLI hook: subcommands registered on a parser, reading results from the gradebook."""

import argparse
import csv
import io
import json
from datetime import datetime, timezone

import pytest

from autograder.cli import _parser
from autograder.cli.common import Context, fill_from_course
from autograder.intake.roster import Identity, write_identities
from autograder.store.database import Gradebook
from tests.grades.factory import result

EXPORTS = {"export", "passback", "feedback", "report", "gradescope", "nbgrader", "override", "gradebook"}


def parser():
    """The CLI's parser, and each command's handler (`run` of its module in autograder/cli/)."""
    p = _parser()
    sub = next(a for a in p._actions if isinstance(a, argparse._SubParsersAction))
    return p, {name: sp.get_default("run") for name, sp in sub.choices.items()}


def setup_out(tmp_path):
    out = tmp_path / "results"
    gb = Gradebook(out / "gradebook.sqlite")
    gb.put(result("smithjohn_12345"))
    gb.put(result("doejane_23456", (1, 0, 0, 0, 1)))
    gb.close()
    write_identities(
        out / "toy" / "identities.json",
        {
            "smithjohn_12345": Identity(
                "12345",
                "smithjohn",
                lms_user_id="12345",
                submitted_at=datetime(2026, 10, 1, tzinfo=timezone.utc),
                late=False,
            ),
            "doejane_23456": Identity("23456", "doejane", lms_user_id="23456"),
        },
    )
    (tmp_path / "roster.csv").write_text(
        "Student,ID,SIS User ID,SIS Login ID,Section\n"
        "\"Smith, John\",12345,S1,js,A\n\"Doe, Jane\",23456,S2,jd,B\n"
        "\"Roe, Rick\",34567,S3,rr,B\n"
    )
    return out


def run(argv, kit, course=None):
    p, handlers = parser()
    args = p.parse_args(argv)
    fill_from_course(args, course)
    return args.run(args, Context(kit, course))


def test_register_names():
    """Every subcommand registered has its handler and every handler its subcommand (new ones included), each
    has help and parses `--help`; the exports the docs name are among them."""
    p, handlers = parser()
    sub = next(a for a in p._actions if isinstance(a, argparse._SubParsersAction))
    assert set(sub.choices) == set(handlers)
    assert EXPORTS <= set(handlers)
    helped = {a.dest for a in sub._choices_actions if a.help}
    for name, handler in handlers.items():  # one module per command: autograder/cli/<command>.py
        assert (
            callable(handler)
            and handler.__module__ == f"autograder.cli.{name.replace('-', '_')}".replace(".list", ".listing")
            and name in helped
        ), name
        with pytest.raises(SystemExit) as e:
            p.parse_args([name, "--help"])
        assert e.value.code == 0


def test_export_feedback_report_passback_dry_run(toy_kit, tmp_path, capsys):
    out = setup_out(tmp_path)
    roster = str(tmp_path / "roster.csv")
    assert (
        run(
            ["export", "toy", "--out", str(out), "--format", "canvas", "--assignment-id", "77", "--roster", roster],
            toy_kit,
        )
        == 0
    )
    rows = list(csv.reader(io.StringIO((out / "toy" / "canvas.csv").read_text())))
    assert rows[0][-1] == "Toy assignment for the engine's own tests (77)"
    assert rows[3] == ["Smith, John", "12345", "S1", "js", "A", "10"] and rows[2][-1] == "3"
    assert rows[4][:2] == ["Roe, Rick", "34567"] and rows[4][-1] == ""  # missing: blank
    assert run(["export", "toy", "--out", str(out), "--format", "json"], toy_kit) == 0
    assert len(json.loads((out / "toy" / "grades_export.json").read_text())["students"]) == 2
    assert run(["feedback", "toy", "--out", str(out)], toy_kit) == 0
    assert (out / "toy" / "feedback" / "smithjohn_12345.html").is_file()
    assert run(["report", "toy", "--out", str(out), "--roster", roster], toy_kit) == 0
    assert "Roe, Rick" in (out / "toy" / "report.html").read_text()
    capsys.readouterr()
    assert (
        run(
            [
                "passback",
                "toy",
                "--out",
                str(out),
                "--dry-run",
                "--canvas-url",
                "http://127.0.0.1:9",
                "--course",
                "1",
                "--canvas-assignment",
                "2",
            ],
            toy_kit,
        )
        == 0
    )
    assert "would send: user 12345" in capsys.readouterr().out
