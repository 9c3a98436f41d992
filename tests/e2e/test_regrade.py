"""Re-grading after the assignment changed: only the test files that changed run again.

The toy kit is copied so its tests can be edited.  A kept result equals the stored one field by
field (its duration included); the record says how many were kept.
"""

import shutil
from pathlib import Path

import pytest

from autograder.config.assignment import load_assignment
from autograder.intake.submissions import Submission
from autograder.judge.session import GradeOptions
from autograder.pipeline import grade_class
from autograder.student.release import release
from tests.nbfactory import edit


@pytest.fixture()
def kit(toy_kit, tmp_path):
    dest = tmp_path / "kit"
    shutil.copytree(toy_kit, dest, ignore=shutil.ignore_patterns("__pycache__"))
    return dest


def _grade(kit: Path, subs: list[Submission], out: Path):
    run = grade_class(load_assignment("toy", kit), subs, out=out, options=GradeOptions())
    return run, {r.submission_id: r for r in run.results}


def _by_id(result) -> dict:
    return {t.id: t for t in result.tests}


def test_only_changed_test_files_run_again(kit, tmp_path):
    master = kit / "solutions" / "toy.ipynb"
    subs = [
        Submission("master", master, "m.ipynb"),
        Submission("blank", release(kit, "toy", tmp_path / "student")[0], "b.ipynb"),
        Submission(
            "wrong_later", edit(master, tmp_path / "w.ipynb", replace={"return x + 1": "return x + 2"}), "w.ipynb"
        ),
    ]
    out = tmp_path / "out"
    first_run, first = _grade(kit, subs, out)
    assert first_run.partial == 0
    assert [first[s].score for s in ("master", "blank", "wrong_later")] == [10, 0, 8]

    # the instructor doubles test_later's points and makes it check one more input
    later = kit / "assignments" / "toy" / "hidden" / "test_later.py"
    later.write_text(
        later.read_text()
        .replace("@pytest.mark.points(2)", "@pytest.mark.points(4)")
        .replace("x = torch.arange(4.0)", "x = torch.arange(5.0)")
    )
    run, again = _grade(kit, subs, out)
    assert run.partial == 3 and run.reused == 0
    assert [again[s].score for s in ("master", "blank", "wrong_later")] == [12, 0, 8]
    for sid in ("master", "blank", "wrong_later"):
        before, after = _by_id(first[sid]), _by_id(again[sid])
        assert list(before) == list(after)  # same tests, same order
        for tid, t in after.items():
            if tid.startswith("hidden/test_later.py"):
                assert t.max_score == 4  # the new file ran
            else:
                assert t == before[tid]  # kept as stored
        assert again[sid].environment["tests_kept"] == len(after) - 1
    assert again["wrong_later"].status == "graded"

    # unchanged since: everything reused
    run, _ = _grade(kit, subs, out)
    assert run.reused == 3 and run.partial == 0

    # a change outside the test files (probes.py) may change any result: full re-grade
    probes = kit / "assignments" / "toy" / "probes.py"
    probes.write_text(probes.read_text() + "\n# edited\n")
    run, full = _grade(kit, subs, out)
    assert run.partial == 0 and run.reused == 0
    assert "tests_kept" not in full["master"].environment
    assert [full[s].score for s in ("master", "blank", "wrong_later")] == [12, 0, 8]


def test_new_and_removed_test_files(kit, tmp_path):
    master = kit / "solutions" / "toy.ipynb"
    subs = [Submission("master", master, "m.ipynb")]
    out = tmp_path / "out"
    _, first = _grade(kit, subs, out)
    hidden = kit / "assignments" / "toy" / "hidden"
    (hidden / "test_later.py").unlink()
    (hidden / "test_extra.py").write_text(
        "import pytest\n\n\n@pytest.mark.points(5)\ndef test_extra(student, reference, probes):\n"
        "    \"\"\"ANSWER again\"\"\"\n    assert student(probes.answer) == reference(probes.answer)\n"
    )
    run, again = _grade(kit, subs, out)
    assert run.partial == 1
    ids = [t.id for t in again["master"].tests]
    assert not any(i.startswith("hidden/test_later.py") for i in ids)
    assert "hidden/test_extra.py::test_extra" in ids
    assert again["master"].score == 10 - 2 + 5


def test_a_regrade_says_whose_scores_change_and_which_overrides_it_made_stale(kit, tmp_path):
    """`autograder grade` after a hidden test's fix: each student whose score changes, before and after (before any
    passback sends it), and the override that a changed notebook made stale, said where the regrade is run."""
    import subprocess
    import sys

    master = kit / "solutions" / "toy.ipynb"
    folder = tmp_path / "class"
    folder.mkdir()
    shutil.copy(master, folder / "master.ipynb")
    edit(master, folder / "wrong.ipynb", replace={"return x + 1": "return x + 2"})
    out = tmp_path / "out"

    def grade() -> subprocess.CompletedProcess:
        r = subprocess.run(
            [sys.executable, "-m", "autograder", "--kit", str(kit), "grade", "toy", str(folder), "--out", str(out)],
            capture_output=True,
            text=True,
            timeout=600,
        )
        assert r.returncode == 0, r.stderr
        return r

    first = grade()
    assert "score changed" not in first.stdout
    for sid, score in (("master", "9"), ("wrong", "7")):
        r = subprocess.run(
            [
                sys.executable,
                "-m",
                "autograder",
                "--kit",
                str(kit),
                "override",
                "toy",
                sid,
                "--score",
                score,
                "--comment",
                "by hand",
                "--by",
                "TA",
                "--out",
                str(out),
            ],
            capture_output=True,
            text=True,
            timeout=120,
        )
        assert r.returncode == 0, r.stderr
    # the hidden test is fixed (test_later is worth 4), and one student resubmitted the same code, reformatted
    later = kit / "assignments" / "toy" / "hidden" / "test_later.py"
    later.write_text(later.read_text().replace("@pytest.mark.points(2)", "@pytest.mark.points(4)"))
    edit(master, folder / "master.ipynb", replace={"return x + 1": "return (x + 1)"})
    again = grade()
    assert "score changed: master: 9 -> 12 (+3)" in again.stdout  # the override is stale: the grader's 12
    assert "wrong:" not in again.stdout  # its override (7) holds: no change
    assert "override #1 of master (whole submission) is stale" in again.stderr
    assert "override #2" not in again.stderr
