"""A results folder of the toy assignment written directly (no grading), a hostile submission in it, and
the workspace served on a free port of 127.0.0.1 in a thread (uvicorn, as `autograder serve` runs it)."""

from __future__ import annotations

import dataclasses
import json
import time
from datetime import datetime, timezone
from pathlib import Path

import pytest

from autograder.intake.roster import Identity, write_identities
from autograder.judge.results import CellIssue
from autograder.serve.access import Access
from autograder.serve.app import App
from autograder.serve.pages import Workspace
from autograder.serve.server import Running
from autograder.store.database import Gradebook
from autograder.store.history import keep
from autograder.store.result_files import write_submission
from tests.grades.factory import result

HOSTILE = (
    '<script>document.title="PWNED"</script><img src=x onerror="document.title=\'PWNED\'">'
    '<a href="javascript:document.title=\'PWNED\'">click</a>'
    '<svg onload="document.title=\'PWNED\'"><circle r=5 /></svg>'
    '<link rel=stylesheet href="http://198.51.100.1/x.css"><iframe src="http://198.51.100.1/"></iframe>'
)
TOKEN = "ta-kim-token-0123456789abcdef"
# Trojan Source (CVE-2021-42574): the docstring's bidi controls draw `return x + x` inside it, while the function
# returns 0; a zero-width space and a Cyrillic `х` beside.
TROJAN = 'def double(x):\n    """Doubles x.\u202e\u2066 return x + x\u2069\u2066"""\n    return 0 * x\u200b + \u0445\n'


def notebook(cells) -> str:
    return json.dumps(
        {
            "nbformat": 4,
            "nbformat_minor": 5,
            "metadata": {},
            "cells": [
                {
                    "cell_type": kind,
                    "metadata": {},
                    "source": source,
                    **({"outputs": outs, "execution_count": 1} if kind == "code" else {}),
                }
                for kind, source, outs in cells
            ],
        }
    )


def write_results(out: Path) -> None:
    gb = Gradebook(out / "gradebook.sqlite")
    people = {}
    for i, fractions in enumerate([(1, 1, 1, 1, 1), (1, 0, 0, 0, 1), (1, 1, 0.5, 1, 1), (0, 0, 0, 0, 0)]):
        sid = f"student{i}_{1000 + i}"
        r = result(sid, fractions)
        gb.put(r)
        write_submission(out, r)
        people[sid] = Identity(
            str(1000 + i),
            f"Student {i}",
            login_id=f"student{i}",
            lms_user_id=str(1000 + i),
            submitted_at=datetime(2026, 10, 1, tzinfo=timezone.utc),
            late=False,
        )
    bad = result(
        "hostile_666",
        (1, 0, 0, 0, 0),
        message=HOSTILE,
        hidden_msg=HOSTILE,
        cells=[
            CellIssue(cell=2, status="error", type="Exploit", message=HOSTILE, code=HOSTILE + "\n" + "x = 1\n" * 50_000)
        ],
    )
    bad.stdout = HOSTILE * 2000
    gb.put(bad)
    nbs = out.parent / "notebooks"
    nbs.mkdir()
    first, second = nbs / "first.ipynb", nbs / "second.ipynb"
    first.write_text(notebook([("code", "def double(x):\n    return x + x\n", [])]))
    second.write_text(notebook([("markdown", "My answer", []), ("code", "def double(x):\n    return 2 * x\n", [])]))
    r1 = result("student1_1001", (1, 0, 0, 0, 1))
    keep(
        out,
        dataclasses.replace(r1, sha256="11" * 32, tests=[dataclasses.replace(t, score=0.0) for t in r1.tests]),
        first,
    )
    time.sleep(0.01)
    keep(out, r1, second)
    hostile_nb = nbs / "hostile.ipynb"
    png = "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg=="
    hostile_nb.write_text(
        notebook(
            [
                ("markdown", HOSTILE + "[x](javascript:document.title='PWNED')", []),
                (
                    "code",
                    HOSTILE,
                    [
                        {
                            "output_type": "display_data",
                            "data": {"text/html": HOSTILE, "image/svg+xml": HOSTILE, "text/plain": HOSTILE},
                        },
                        {"output_type": "display_data", "data": {"image/png": png}},
                        {"output_type": "display_data", "data": {"image/png": '" onerror="document.title=1'}},
                        {"output_type": "stream", "name": "stdout", "text": "spam\n" * 2_000_000},
                        {"output_type": "error", "ename": "<script>", "evalue": HOSTILE, "traceback": []},
                    ],
                ),
                ("code", TROJAN, []),
                ("code", 'check("double")', []),
            ]
        )
    )
    keep(out, bad, hostile_nb)
    gb.close()
    people["hostile_666"] = Identity("666", HOSTILE[:60], login_id="hostile", lms_user_id="666")
    write_identities(out / "toy" / "identities.json", people)
    (out / "toy" / "similarity.json").write_text(
        json.dumps(
            {
                "assignment": "toy",
                "threshold": 0.5,
                "notebooks": 5,
                "unreadable": {},
                "students": {},
                "pairs": [
                    {
                        "a": "hostile_666",
                        "b": "student1_1001",
                        "score": 0.9,
                        "shared": 30,
                        "spans": [{"a_cell": 2, "a_lines": [[1, 2]], "b_cell": 3, "b_lines": [[1, 1]], "prints": 30}],
                    }
                ],
                "code": {
                    "hostile_666": {"2": HOSTILE + "\ny = 2\n" + TROJAN},
                    "student1_1001": {"3": "y = 2\nz = 3\n"},
                },
            }
        )
    )


@pytest.fixture
def workspace(toy_kit, tmp_path):
    """(base URL (the instance's prefix included), the instructor's token, the results folder, the toy kit,
    the roster CSV)."""
    out = tmp_path / "results"
    write_results(out)
    roster = tmp_path / "roster.csv"
    roster.write_text(
        "Student,ID,SIS User ID,SIS Login ID,Section\n"
        + "".join(f"\"Student {i}\",{1000 + i},S{i},s{i},A\n" for i in range(4))
        + "Hostile,666,S6,h,A\n"
    )
    access = Access({TOKEN: "TA Kim"})
    running = Running(App(Workspace(toy_kit, out, roster), access).asgi)
    try:
        yield running.base + access.prefix, TOKEN, out, toy_kit, roster
    finally:
        running.stop()


LEE = "ta-lee-token-abcdef0123456789"


@pytest.fixture
def team(toy_kit, tmp_path, request):
    """The workspace of two TAs, each with their own token (TA Kim, TA Lee), and a course file, anonymous when
    the test parametrizes `team` with True (indirect): (base URL, {name: token}, results folder, kit, roster)."""
    from autograder.config.course import Course

    out = tmp_path / "results"
    write_results(out)
    roster = tmp_path / "roster.csv"
    roster.write_text(
        "Student,ID,SIS User ID,SIS Login ID,Section\n"
        + "".join(f"\"Student {i}\",{1000 + i},S{i},s{i},A\n" for i in range(4))
        + "Hostile,666,S6,h,A\n"
    )
    anonymous = bool(getattr(request, "param", False))
    course_file = tmp_path / "course.toml"
    data = {
        "serve": {"anonymous": anonymous},
        "canvas": {"url": "https://canvas.example.edu", "course": 7},
        "assignments": {"toy": {"canvas_assignment": 42}},
    }
    course_file.write_text(
        f"[serve]\nanonymous = {'true' if anonymous else 'false'}\n[canvas]\n"
        'url = "https://canvas.example.edu"\ncourse = 7\n[assignments.toy]\ncanvas_assignment = 42\n'
    )
    course = Course(course_file.resolve(), data)
    access = Access({TOKEN: "TA Kim", LEE: "TA Lee"})
    running = Running(App(Workspace(toy_kit, out, roster, course), access).asgi)
    try:
        yield running.base + access.prefix, {"TA Kim": TOKEN, "TA Lee": LEE}, out, toy_kit, roster
    finally:
        running.stop()


def trail(out: Path, assignment: str, submission_id: str | None = None) -> list:
    """The overrides' audit trail of the results folder `out` (`store.marks`), oldest first."""
    from autograder.store.marks import Marks

    return Marks(out).overrides(assignment, submission_id)
