"""Every graded version kept (store.history), by the pipeline itself, and the diff of two versions' code."""

from __future__ import annotations

import dataclasses
import json
import shutil

from autograder.store import history
from tests.grades.factory import result
from tests.serve.conftest import notebook


def test_keep_versions_and_diff(tmp_path):
    out = tmp_path / "results"
    a, b = tmp_path / "a.ipynb", tmp_path / "b.ipynb"
    a.write_text(notebook([("code", "x = 1\ny = x + 1\n", [])]))
    b.write_text(notebook([("markdown", "note", []), ("code", "x = 1\ny = 2 * x\n", [])]))
    r = result("s1")
    history.keep(out, dataclasses.replace(r, sha256="01" * 32), a)
    history.keep(out, r, b)
    history.keep(out, r, b)  # the same notebook: one version
    history.keep(out, dataclasses.replace(r, sha256="02" * 32, provisional="host fault"), b)  # not final: not kept
    kept = history.versions(out, "toy", "s1")
    assert [v.sha256 for v in kept] == ["01" * 32, "ab" * 32] and all(v.notebook for v in kept)
    diff = history.code_diff(kept[0].notebook, kept[1].notebook)
    assert "-y = x + 1" in diff and "+y = 2 * x" in diff and "-# --- cell 1 ---" in diff and "+# --- cell 2 ---" in diff
    (tmp_path / "broken.ipynb").write_text("{")
    assert history.code_lines(tmp_path / "broken.ipynb") == ["# (this version cannot be read as a notebook)"]


def test_over_the_cap_keeps_the_record_not_the_file(tmp_path, monkeypatch):
    monkeypatch.setattr(history, "MAX_NOTEBOOK_BYTES", 10)
    big = tmp_path / "big.ipynb"
    big.write_text(notebook([("code", "x = 1\n" * 100, [])]))
    history.keep(tmp_path / "out", result("s2"), big)
    [v] = history.versions(tmp_path / "out", "toy", "s2")
    assert v.notebook is None and v.score == result("s2").score


def test_the_pipeline_keeps_each_graded_version(toy_kit, tmp_path):
    from autograder.config.assignment import load_assignment
    from autograder.intake.submissions import Submission
    from autograder.judge.session import GradeOptions
    from autograder.pipeline import grade_class

    a = load_assignment("toy", toy_kit)
    out = tmp_path / "results"
    nb = tmp_path / "s.ipynb"
    shutil.copy(toy_kit / "solutions" / "toy.ipynb", nb)
    grade_class(a, [Submission("s", nb, "s.ipynb")], out=out, options=GradeOptions())
    data = json.loads(nb.read_text())
    data["cells"].append(
        {"cell_type": "code", "metadata": {}, "source": "extra = 1\n", "outputs": [], "execution_count": None}
    )
    nb.write_text(json.dumps(data))
    grade_class(a, [Submission("s", nb, "s.ipynb")], out=out, options=GradeOptions())
    kept = history.versions(out, "toy", "s")
    assert len(kept) == 2 and kept[0].sha256 != kept[1].sha256
    assert "+extra = 1" in history.code_diff(kept[0].notebook, kept[1].notebook)


def test_which_version_counts_is_the_course_policy_in_every_export(toy_kit, tmp_path):
    """`[course] counts`: latest (the gradebook's), best, latest before the student's due date; the export
    reads the counted version, and an override applies to the version it was made on."""
    import pytest

    from autograder.config.course import CourseError, load_course
    from autograder.grades import overrides as ov
    from autograder.intake.roster import Identity, write_identities
    from autograder.store.database import Gradebook
    from autograder.store.folder import assignment_grades

    kit = tmp_path / "kit"
    shutil.copytree(toy_kit, kit)
    out = tmp_path / "results"
    good = dataclasses.replace(result("s1"), sha256="01" * 32)  # 10/10, submitted on time
    worse = dataclasses.replace(result("s1", (1, 0, 0, 0, 0)), sha256="02" * 32)  # 1/10, submitted late
    from datetime import datetime, timezone

    for r, when in (
        (good, datetime(2026, 9, 30, tzinfo=timezone.utc)),
        (worse, datetime(2026, 10, 5, tzinfo=timezone.utc)),
    ):
        write_identities(out / "toy" / "identities.json", {"s1": Identity("1", "One", submitted_at=when)})
        history.keep(out, r, None)
    gb = Gradebook(out / "gradebook.sqlite")
    gb.put(worse)
    gb.close()
    from autograder.store.marks import Marks

    Marks(out).add_override(
        ov.record([], good, test_id="hidden/test_later.py::test_later", score=1, comment="by hand", by="TA")
    )

    def score(counts: str) -> float:
        course = tmp_path / "course.toml"
        course.write_text(
            f'[course]\ncounts = "{counts}"\n[deadline]\ndue = "2026-10-01T00:00:00+00:00"\npenalty_percent = 0\n'
        )
        return assignment_grades(kit, "toy", out, course=load_course(course)).rows[0].score

    assert score("latest") == 1.0
    assert score("best") == 9.0  # the 10/10 version, with its override (2 -> 1) in force
    assert score("latest_before_deadline") == 9.0  # the on-time version
    with pytest.raises(CourseError):
        score("first")


def test_a_diff_is_bounded_whatever_the_versions_hold(tmp_path):
    """Two versions whose lines alternate between shared and new (difflib's quadratic case): the diff stops
    at its budget and says so; past DIFF_LINES_IN lines, the rest is named, not compared."""
    import time

    from autograder.config.limits import DIFF_LINES_IN

    lines = [f"x{i} = {i}" for i in range(DIFF_LINES_IN)]
    a, b = tmp_path / "a.ipynb", tmp_path / "b.ipynb"
    a.write_text(notebook([("code", "\n".join(lines), [])]))
    b.write_text(notebook([("code", "\n".join(x if i % 2 else "y" + x for i, x in enumerate(lines)), [])]))
    t = time.monotonic()
    diff = history.code_diff(a, b, seconds=0.05)
    assert time.monotonic() - t < 0.5 and "differ too much" in diff[-1]
    big = tmp_path / "big.ipynb"
    big.write_text(notebook([("code", "\n".join(lines + ["z = 1"] * 10), [])]))
    diff = history.code_diff(a, big)
    assert "only the first" in diff[-1] and "+z = 1" not in diff


def test_a_page_reads_only_the_versions_it_lists(tmp_path):
    r = result("s3")
    for i in range(5):
        history.keep(tmp_path, dataclasses.replace(r, sha256=f"{i:02d}" * 32), None)
    assert [v.sha256[:2] for v in history.versions(tmp_path, "toy", "s3", latest=2)] == ["03", "04"]
    assert len(history.versions(tmp_path, "toy", "s3")) == 5


def test_a_rendered_notebook_is_bounded_in_all(tmp_path):
    """400 cells of 20,000 characters and an output as long (16 M characters): the page shows SHOWN_PAGE_TEXT, names
    the rest."""
    from autograder.config.limits import SHOWN_PAGE_TEXT, SHOWN_TEXT
    from autograder.serve import notebook_view as shown

    nb = tmp_path / "wide.ipynb"
    nb.write_text(
        notebook(
            [("code", "x" * (SHOWN_TEXT - 10), [{"output_type": "stream", "name": "stdout", "text": "y" * SHOWN_TEXT}])]
            * 400
        )
    )
    cells, _ = shown.render(nb, set())
    text = sum(len(c["source"]) + sum(len(o["text"]) for o in c["outputs"]) for c in cells)
    assert len(cells) == 400 and text < SHOWN_PAGE_TEXT + 3 * SHOWN_TEXT and "not shown" in cells[-1]["source"]
