"""Attacks on the places besides `validate` that turn what a submission or a request holds into a path.

* nbgrader's `submitted/` folder: a student folder, or its assignment folder, that is a link (to the
  master's folder, to a classmate's) is listed, never followed: the notebook graded for a student is one
  that lies in that student's own folder.
* The workspace: an assignment named in the URL is one of the kit's assignments, never a path: `..`
  does not read the similarity result of the folder above the output folder.

Zip members (generated names, `..` refused), Canvas / Moodle folders (links listed, never followed) and
Gradescope's submission folder are tried in test_around_engine.py and corpus_intake.py.
"""

from __future__ import annotations

import json
from pathlib import Path

import nbformat
import pytest

from autograder.intake.downloads import unpack

ROOT = Path(__file__).resolve().parents[2]


def _nb(tag: str) -> bytes:
    return nbformat.writes(nbformat.v4.new_notebook(cells=[nbformat.v4.new_code_cell(f"TAG = {tag!r}")])).encode()


def _graded(batch) -> dict[str, Path]:
    return {e.identity.student_id: e.submission.path for e in batch.entries if not e.submission.problem}


@pytest.mark.parametrize("linked", ["the student folder", "the assignment folder"])
def test_nbgrader_link_out_of_the_exchange_is_not_followed(tmp_path, linked):
    elsewhere = tmp_path / "source" / "ps1"  # e.g. the instructor's master
    elsewhere.mkdir(parents=True)
    (elsewhere / "ps1.ipynb").write_bytes(_nb("master"))
    submitted = tmp_path / "course" / "submitted"
    (submitted / "alice" / "ps1").mkdir(parents=True)
    (submitted / "alice" / "ps1" / "ps1.ipynb").write_bytes(_nb("alice"))
    if linked == "the student folder":
        (submitted / "mallory").symlink_to(tmp_path / "source", target_is_directory=True)
    else:
        (submitted / "mallory").mkdir()
        (submitted / "mallory" / "ps1").symlink_to(elsewhere, target_is_directory=True)
    batch = unpack(tmp_path / "course", tmp_path / "s", fmt="nbgrader", assignment="ps1")
    graded = _graded(batch)
    assert set(graded) == {"alice"}, graded
    assert all(submitted.resolve() in p.resolve().parents for p in graded.values())
    assert any("mallory/ps1: a link, not followed" in i for i in batch.ignored), batch.ignored


@pytest.mark.parametrize("name", ["..", ".", "../out", "01_tensors/.."])
def test_workspace_assignment_from_the_url_is_never_a_path(tmp_path, name):
    from autograder.config.assignment import AssignmentError
    from autograder.serve import pages

    out = tmp_path / "out"
    out.mkdir()
    planted = {"pairs": [{"a": "x", "b": "y", "score": 1.0, "spans": []}], "code": {}, "secret": "above-out"}
    (tmp_path / "similarity.json").write_text(json.dumps(planted))
    (out / "similarity.json").write_text(json.dumps(planted))
    ws = pages.Workspace(ROOT, out.resolve())
    with pytest.raises(AssignmentError):
        pages.similarity_page(ws, name)
