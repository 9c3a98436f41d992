"""The bundled sample class (what `make demo` grades) gets the scores its authors intended."""

from pathlib import Path

import pytest

from autograder.config.assignment import load_assignment
from autograder.intake.submissions import collect
from autograder.judge.session import GradeOptions
from autograder.pipeline import grade_class

KIT = Path(__file__).resolve().parents[2]
EXPECTED = {  # submission: (score, status, exercises that lose points)
    "perfect": (100, "graded", set()),
    "blank": (0, "graded", None),
    "invalid_json": (0, "invalid", None),
    "exception_midway": (88, "graded", {"indexing"}),
    "infinite_loop": (90, "timeout", {"reductions"}),
    # 57, not 59 before the how-and-what rule: its wrong gather_scatter/vectorised answers no longer earn the
    # "no Python loops" points (a fact about how code ran counts only with correct values from the same call)
    "partial": (57, "graded", {"views", "broadcast_matmul", "gather_scatter", "reductions", "vectorised"}),
}


@pytest.fixture(scope="module")
def graded(tmp_path_factory):
    tmp = tmp_path_factory.mktemp("sample")
    a = load_assignment("01_tensors", KIT)
    subs = collect([KIT / "examples" / "submissions" / "01_tensors"], tmp)
    run = grade_class(a, subs, out=tmp / "results", jobs=2, options=GradeOptions(device="cpu"))
    return {r.submission_id: r for r in run.results}


@pytest.mark.parametrize("sid", sorted(EXPECTED))
def test_sample_submission(graded, sid):
    score, status, losing = EXPECTED[sid]
    r = graded[sid]
    assert (r.score, r.status) == (score, status), [
        (t.id, t.outcome, t.message[:120]) for t in r.tests if t.score < t.max_score
    ]
    if losing is not None:
        assert {t.exercise for t in r.tests if t.score < t.max_score} == losing


def test_timeout_cell_and_exception_are_reported(graded):
    loop = graded["infinite_loop"]
    assert [c.cell for c in loop.cells if c.status == "timeout"] == [27]
    midway = [c for c in graded["exception_midway"].cells if c.status == "error"]
    assert midway and midway[0].type == "RuntimeError" and "X @ Y" in midway[0].code
    assert "not valid notebook JSON" in graded["invalid_json"].message
