"""Every assignment's tests tell right from wrong.

Per assignment (`variants/<id>.py` + `alternatives/<id>.ipynb`): an alternative correct solution,
written differently from the master, gets full marks; every mutant (a plausible mistake, made by
editing the master) loses points on the exercise it breaks.  Master = 100 and student notebook = 0
are checked by `autograder check-solutions`, which `make test` runs for every assignment.
"""
from __future__ import annotations

import importlib.util
from pathlib import Path

import pytest

from autograder.assignment import load_assignment
from autograder.intake.submissions import Submission
from autograder.judge.session import GradeOptions
from autograder.pipeline import grade_class
from tests.nbfactory import edit

HERE = Path(__file__).parent
KIT = HERE.parents[1]
ASSIGNMENTS = sorted(p.stem for p in (HERE / "variants").glob("*.py"))


def _mutants(assignment: str) -> list[dict]:
    spec = importlib.util.spec_from_file_location(f"variants_{assignment}", HERE / "variants" / f"{assignment}.py")
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod.MUTANTS


def _slug(name: str) -> str:
    return "".join(c if c.isalnum() else "_" for c in name)[:60]


@pytest.fixture(scope="module", params=ASSIGNMENTS)
def graded(request, tmp_path_factory):
    name = request.param
    a = load_assignment(name, KIT)
    tmp = tmp_path_factory.mktemp(name)
    subs = [Submission("alternative", HERE / "alternatives" / f"{name}.ipynb", "alternative")]
    for i, m in enumerate(_mutants(name)):
        path = edit(a.solution, tmp / f"mutant{i}.ipynb", replace={m["old"]: m["new"]})
        subs.append(Submission(f"mutant{i}", path, m["name"]))
    run = grade_class(a, subs, out=tmp / "results", jobs=2, options=GradeOptions(device="cpu"))
    return name, a, {r.submission_id: r for r in run.results}


def test_variants_are_well_formed():
    for name in ASSIGNMENTS:
        mutants = _mutants(name)
        assert len(mutants) >= 5, name
        assert (HERE / "alternatives" / f"{name}.ipynb").is_file(), name
        exercises = {p.stem.removeprefix("test_") for p in (KIT / "assignments" / name / "hidden").glob("test_*.py")}
        for m in mutants:
            assert m["exercise"] in exercises, (name, m["name"])
            assert m["old"] != m["new"]


def test_alternative_solution_gets_full_marks(graded):
    name, a, results = graded
    r = results["alternative"]
    lost = [(t.id, t.outcome, t.message[:200]) for t in r.tests if t.score < t.max_score]
    assert r.score == a.total_points, lost


def test_every_mutant_loses_points_on_its_exercise(graded):
    name, a, results = graded
    survivors = []
    for i, m in enumerate(_mutants(name)):
        r = results[f"mutant{i}"]
        lost = sum(t.max_score - t.score for t in r.tests if t.exercise == m["exercise"])
        if lost <= 0:
            survivors.append(m["name"])
        assert r.status in ("graded", "timeout", "crashed"), (m["name"], r.status, r.message)
    assert not survivors, f"{name}: mutants that lose nothing on their exercise: {survivors}"
