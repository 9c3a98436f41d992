"""Grade small real notebooks end to end (worker processes, pytest judge, result files)."""

import json
import sqlite3
import subprocess
import sys

import pytest
import torch

from autograder.config.assignment import load_assignment
from autograder.intake.submissions import Submission
from autograder.judge.session import GradeOptions
from autograder.pipeline import grade_class
from autograder.student.release import release
from tests.nbfactory import edit

CHEAT = """
import torch, torch.testing, numpy, builtins
torch.allclose = lambda *a, **k: True
torch.equal = lambda *a, **k: True
torch.testing.assert_close = lambda *a, **k: None
torch.Tensor.__eq__ = lambda self, other: torch.ones_like(self, dtype=torch.bool)
numpy.allclose = lambda *a, **k: True
builtins.isinstance = lambda *a: True
"""


@pytest.fixture(scope="module")
def graded(toy_kit, tmp_path_factory):
    """Grade a whole toy class once; tests below look at different submissions."""
    tmp = tmp_path_factory.mktemp("toy")
    master = toy_kit / "solutions" / "toy.ipynb"
    blank = release(toy_kit, "toy", tmp / "student")[0]
    subs = {
        "master": master,
        "blank": blank,
        "loop": edit(master, tmp / "loop.ipynb", insert={3: "while True:\n    pass"}),
        "c_hang": edit(master, tmp / "c_hang.ipynb", insert={3: "import time\ntime.sleep(10_000)"}),
        "exit": edit(master, tmp / "exit.ipynb", insert={3: "import os\nos._exit(3)"}),
        "sysexit": edit(master, tmp / "sysexit.ipynb", insert={3: "import sys\nsys.exit(0)\nexit()"}),
        "cheat": edit(master, tmp / "cheat.ipynb", replace={"return x * 2": "return x * 3"}, insert={1: CHEAT}),
        "subclass": edit(
            master,
            tmp / "subclass.ipynb",
            replace={"return x * 2": "class T(torch.Tensor):\n        pass\n    return (x * 2).as_subclass(T)"},
        ),
        "probe_hang": edit(master, tmp / "probe_hang.ipynb", replace={"return x + 1": "while True:\n        pass"}),
        "raises": edit(master, tmp / "raises.ipynb", insert={2: "1 / 0"}),
        "dtype": edit(master, tmp / "dtype.ipynb", replace={"return x * 2": "return (x * 2).float()"}),
    }
    broken = tmp / "broken.ipynb"
    broken.write_text('{"cells": [{"cell_type": "code", "source": "x = 1"', encoding="utf-8")
    subs["broken"] = broken
    assignment = load_assignment("toy", toy_kit)
    out = tmp / "results"
    run = grade_class(
        assignment, [Submission(k, v, v.name) for k, v in subs.items()], out=out, jobs=2, options=GradeOptions()
    )
    return {r.submission_id: r for r in run.results}, out, run


def score(graded, sid):
    return graded[0][sid].score


def test_master_full_and_blank_zero(graded):
    results, _, run = graded
    assert run.reference.score == 10
    assert results["master"].score == 10 and results["master"].status == "graded"
    assert results["blank"].score == 0 and results["blank"].status == "graded"


def test_cuda_variant_is_reported_never_dropped(graded):
    """Without CUDA the variant is reported skipped with 0 points; with CUDA it runs and shares the points."""
    tests = {t.id: t for t in graded[0]["master"].tests}
    cuda = tests["hidden/test_double.py::test_double_random[cuda]"]
    cpu = tests["hidden/test_double.py::test_double_random[cpu]"]
    if torch.cuda.is_available():
        assert cuda.outcome == cpu.outcome == "passed", (cuda.message, cpu.message)
        assert cuda.max_score > 0 and cpu.max_score > 0 and cuda.max_score + cpu.max_score == pytest.approx(3)
    else:
        assert cuda.outcome == "skipped" and "CUDA is not available" in cuda.message and cuda.max_score == 0
        assert cpu.max_score == 3


def test_infinite_loop_cell_times_out_and_keeps_other_credit(graded):
    for sid in ("loop", "c_hang"):
        r = graded[0][sid]
        assert r.status == "timeout", sid
        assert r.score == 10, sid  # the hung cell defines nothing the tests need
        assert [c.status for c in r.cells if c.status != "note"] == ["timeout"]
        assert r.execution_time < 120


def test_exiting_the_worker_costs_only_that_cell(graded):
    r = graded[0]["exit"]
    assert r.status == "crashed" and r.score == 10 and r.cells[0].status == "crashed"
    s = graded[0]["sysexit"]
    assert s.score == 10 and s.cells[0].type == "SystemExit"


def test_patched_comparisons_earn_only_honest_answers(graded):
    r = graded[0]["cheat"]
    passed = {t.id.split("::")[1] for t in r.tests if t.outcome == "passed"}
    assert r.score == 4, r.tests  # answer (2) + later (2); every double() test fails
    assert passed == {"test_answer", "test_later"}


def test_tensor_subclass_is_refused(graded):
    r = graded[0]["subclass"]
    assert r.score == 4
    msgs = [t.message for t in r.tests if t.exercise == "double" and t.outcome == "failed"]
    assert any("a T (a subclass of torch.Tensor)" in m for m in msgs)


def test_hanging_probe_costs_only_its_tests(graded):
    r = graded[0]["probe_hang"]
    outcomes = {t.id.split("::")[1]: t.outcome for t in r.tests}
    assert outcomes["test_later"] == "timeout" and r.status == "timeout"
    assert r.score == 8


def test_cell_error_is_recorded_and_grading_goes_on(graded):
    r = graded[0]["raises"]
    assert r.score == 10 and r.status == "graded"
    issue = [c for c in r.cells if c.status == "error"][0]
    assert issue.type == "ZeroDivisionError" and issue.cell == 3 and issue.code == "1 / 0"


def test_partial_credit(graded):
    t = [t for t in graded[0]["dtype"].tests if t.id.endswith("test_double_partial")][0]
    assert t.outcome == "partial" and t.score == 1.0


def test_invalid_notebook(graded):
    r = graded[0]["broken"]
    assert r.status == "invalid" and r.score == 0 and "not valid notebook JSON" in r.message
    assert len(r.tests) == len(graded[0]["master"].tests)


def test_result_files_gradebook_and_csv(graded):
    results, out, _ = graded
    data = json.loads((out / "toy" / "master" / "results.json").read_text())
    for key in (
        "score",
        "max_score",
        "execution_time",
        "tests",
        "status",
        "submission_sha256",
        "assignment",
        "device",
        "secret_fingerprint",
        "torch_version",
        "cell_errors",
        "determinism",
        "isolation",
    ):
        assert key in data
    assert "seed" not in data and "seed_source" not in data  # nothing a hidden test's seed derives from
    assert data["score"] == 10 and data["device"] == ("cpu+cuda" if torch.cuda.is_available() else "cpu")
    hidden = [t for t in data["tests"] if "hidden" in t["tags"] and t["outcome"] == "failed"]
    assert not hidden  # master
    blank = json.loads((out / "toy" / "blank" / "results.json").read_text())
    hidden_failed = [t for t in blank["tests"] if "hidden" in t["tags"] and t.get("status") == "failed"]
    assert hidden_failed and all(t["output"] == "failed" for t in hidden_failed)  # summary policy
    public_failed = [t for t in blank["tests"] if "public" in t["tags"]]
    assert "NotImplementedError" in public_failed[0]["output"] and "Hint:" in public_failed[0]["output"]
    rows = sqlite3.connect(out / "gradebook.sqlite").execute("SELECT submission_id, score FROM submissions").fetchall()
    assert dict(rows)["master"] == 10 and len(rows) == len(results)
    import csv

    table = list(csv.DictReader(open(out / "toy" / "grades.csv")))
    assert {r["submission_id"] for r in table} == set(results)
    assert [r for r in table if r["submission_id"] == "master"][0]["score"] == "10"


def test_unchanged_submissions_are_not_regraded(graded, toy_kit):
    _, out, _ = graded
    assignment = load_assignment("toy", toy_kit)
    master = toy_kit / "solutions" / "toy.ipynb"
    run = grade_class(assignment, [Submission("master", master, "toy.ipynb")], out=out, options=GradeOptions())
    assert run.reused == 1 and run.results[0].score == 10


def test_cli_usage_errors_and_grading(toy_kit, tmp_path):
    cli = [sys.executable, "-m", "autograder", "--kit", str(toy_kit)]
    bad = subprocess.run(cli + ["grade", "nope", "x.ipynb"], capture_output=True, text=True)
    assert bad.returncode == 2 and "unknown assignment 'nope'" in bad.stderr
    missing = subprocess.run(cli + ["grade", "toy", str(tmp_path / "missing.ipynb")], capture_output=True, text=True)
    assert missing.returncode == 2 and "no such file" in missing.stderr
    ok = subprocess.run(
        cli + ["grade", "toy", str(toy_kit / "solutions" / "toy.ipynb"), "--out", str(tmp_path / "r")],
        capture_output=True,
        text=True,
    )
    assert ok.returncode == 0, ok.stderr
    assert "10/10" in ok.stdout and (tmp_path / "r" / "toy" / "toy" / "results.json").is_file()
    # the table is the exports' rows: the roster's name, as `export` names the student (the grade reused)
    (tmp_path / "roster.csv").write_text('Student,ID,SIS User ID,SIS Login ID,Section\n"Lovelace, Ada",1,S1,toy,A\n')
    named = subprocess.run(
        cli
        + [
            "grade",
            "toy",
            str(toy_kit / "solutions" / "toy.ipynb"),
            "--out",
            str(tmp_path / "r"),
            "--roster",
            str(tmp_path / "roster.csv"),
        ],
        capture_output=True,
        text=True,
    )
    assert named.returncode == 0 and "Lovelace, Ada (1)" in named.stdout and "10/10" in named.stdout, named.stdout


def test_largest_notebooks_are_graded_first(toy_kit, tmp_path):
    """A class is judged largest notebook first (a guess at the longest to grade: the judges then end on
    short ones instead of one grading a full notebook while the rest wait); results keep the class order."""
    master = toy_kit / "solutions" / "toy.ipynb"
    mid = edit(master, tmp_path / "mid.ipynb", insert={1: "# " + "x" * 5_000})
    big = edit(master, tmp_path / "big.ipynb", insert={1: "# " + "x" * 20_000})
    subs = [
        Submission("master", master, "master.ipynb"),
        Submission("mid", mid, "mid.ipynb"),
        Submission("big", big, "big.ipynb"),
    ]
    seen: list[str] = []
    run = grade_class(
        load_assignment("toy", toy_kit),
        subs,
        out=tmp_path / "results",
        options=GradeOptions(),
        on_result=lambda r, reused: seen.append(r.submission_id),
    )
    assert seen == ["big", "mid", "master"]
    assert [r.submission_id for r in run.results] == ["master", "mid", "big"]
    assert all(r.score == r.max_score for r in run.results)
