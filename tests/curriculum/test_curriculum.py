"""Every assignment's tests tell right from wrong.

Per assignment (`variants/<id>.py` + `alternatives/<id>.ipynb`): an alternative correct solution,
written differently from the master, gets full marks; every mutant (a plausible mistake, made by
editing the master) loses points on the exercise it breaks.  Master = 100 and student notebook = 0
are checked by `autograder check-solutions`, which `make test` runs for every assignment.

Stubs (`pass`, `return None`, `...`, `return <first argument>`; `raise NotImplementedError` is the
released notebook) earn 0 on every exercise: points for *how* code behaves (no loops, views, the device)
come only together with the *what* of the same call, checked against the reference on the trusted side.
One notebook per stub kind, every solution block stubbed, graded in one batch (with the alternatives, for a
representative).

`make test` grades every assignment's stubs, and the representatives' alternatives (tests/tiers.py); the
other alternatives and the mutants (a plausible mistake each, 298 in all, 20-70 s of CPU each on a TensorFlow
assignment whose hidden tests fit models) are the `deep` tier: `make check`, `make check-curriculum`, after
changing an assignment's notebook, tests or mutants.  They check the teaching material; the stubs check the kit.
"""

from __future__ import annotations

import importlib.util
import re
from pathlib import Path

import nbformat
import pytest

from autograder.config.assignment import Assignment, load_assignment
from autograder.intake.submissions import Submission
from autograder.judge.session import GradeOptions
from autograder.pipeline import grade_class
from autograder.student.release import _BLOCK
from tests.nbfactory import edit
from tests.tiers import REPRESENTATIVES, deep, per_assignment

HERE = Path(__file__).parent
KIT = HERE.parents[1]
ASSIGNMENTS = sorted(p.stem for p in (HERE / "variants").glob("*.py"))


def _mutants(assignment: str) -> list[dict]:
    spec = importlib.util.spec_from_file_location(f"variants_{assignment}", HERE / "variants" / f"{assignment}.py")
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod.MUTANTS


STUBS = {
    "pass": "pass",
    "return None": "return None",
    "ellipsis": "...",
    "identity": "return {first}",
}
_DEF = re.compile(r"^[ \t]*def\s+(\w+)\s*\((.*?)\)\s*(?:->[^:]*)?:", re.M | re.S)
_CHECK = re.compile(r"""check\(["'](\w+)["']\)""")


def _first_argument(source: str, block_start: int) -> str | None:
    """The first argument (after self/cls/ctx) of the function around a solution block, if any."""
    defs = list(_DEF.finditer(source, 0, block_start))
    if not defs or defs[-1].group(1) == "__init__":
        return None
    for param in defs[-1].group(2).split(","):
        name = re.split(r"[:=]", param)[0].strip()
        if name and not name.startswith("*") and name not in ("self", "cls", "ctx"):
            return name
    return None


def _stub_source(source: str, kind: str) -> str:
    def stub(m: re.Match) -> str:
        first = _first_argument(source, m.start())
        if not m.group(1) or ("{first}" in STUBS[kind] and not first):
            body = "pass"  # a block outside any function, or an __init__: nothing to return
        else:
            body = STUBS[kind].format(first=first)
        return f"{m.group(1)}{body}{m.group(2)}"

    return _BLOCK.sub(stub, source)


def stubbed(master: Path, out: Path, kind: str) -> Path:
    """`master` with every solution block's body replaced by the stub `kind`."""
    nb = nbformat.read(master, as_version=4)
    for cell in nb.cells:
        if cell.cell_type == "code":
            cell.source = _stub_source(cell.source, kind)
    out.parent.mkdir(parents=True, exist_ok=True)
    nbformat.write(nb, out)
    return out


def block_exercises(master: Path) -> list[str]:
    """For each solution block of `master`, the exercise whose `check("...")` follows it."""
    nb = nbformat.read(master, as_version=4)
    pending, out = 0, []
    for cell in nb.cells:
        if cell.cell_type != "code":
            continue
        pending += len(_BLOCK.findall(cell.source))
        m = _CHECK.search(cell.source)
        if m and pending:
            out += [m.group(1)] * pending
            pending = 0
    return out + ["<no check() after it>"] * pending


def _slug(name: str) -> str:
    return "".join(c if c.isalnum() else "_" for c in name)[:60]


def _grade(a: Assignment, tmp: Path, subs: list[Submission], variants: int = 2) -> dict:
    # Two variants of the hidden inputs, not one per notebook: each notebook is still judged on a variant's hidden
    # inputs (two draws across the batch), and the master answers each variant's once, not once per notebook (a
    # TensorFlow assignment's hidden tests fit models: per-notebook variants nearly doubled tf04's batch, 406 s
    # against 225 s with one).  Per-student variants are tested by tests/e2e/test_variants.py, and every
    # verdict here under other draws by `make check-secrets`.
    run = grade_class(a, subs, out=tmp / "results", jobs=2, options=GradeOptions(device="cpu", variants=variants))
    return {r.submission_id: r for r in run.results}


_BATCHES: dict[tuple[str, bool, bool], tuple[str, Assignment, dict]] = {}


def _batch(name: str, tmp_path_factory, *, stubs: bool, alternatives: bool) -> tuple[str, Assignment, dict]:
    """The stubs (one notebook per stub kind) and/or the alternatives of `name`, graded in one batch, once."""
    key = (name, stubs, alternatives)
    if key not in _BATCHES:
        a = load_assignment(name, KIT)
        tmp = tmp_path_factory.mktemp(name)
        subs = []
        if alternatives:  # alternatives/<id>.ipynb, and <id>.<style>.ipynb for other styles (another registration API)
            paths = [HERE / "alternatives" / f"{name}.ipynb", *sorted((HERE / "alternatives").glob(f"{name}.*.ipynb"))]
            subs += [
                Submission(f"alternative{p.name.removeprefix(name).removesuffix('.ipynb')}", p, p.name) for p in paths
            ]
        if stubs:
            subs += [
                Submission(f"stub_{_slug(kind)}", stubbed(a.solution, tmp / f"stub_{_slug(kind)}.ipynb", kind), kind)
                for kind in STUBS
            ]
        # Stubs alone under the course-wide inputs: a stub earns 0 whatever the draw, and its points lost under a
        # variant send the master through that variant's proof (its hidden tests again, fits and all), which
        # tripled a TensorFlow stub batch (tf04: 92 s); with alternatives, two variants as everywhere here.
        _BATCHES[key] = name, a, _grade(a, tmp, subs, variants=2 if alternatives else 1)
    return _BATCHES[key]


@pytest.fixture(scope="module", params=ASSIGNMENTS)
def graded(request, tmp_path_factory):
    """Every assignment's stubs; a representative's alternatives in the same batch (one reference pass for both)."""
    name = request.param
    return _batch(name, tmp_path_factory, stubs=True, alternatives=name in REPRESENTATIVES)


@pytest.fixture(scope="module", params=per_assignment(ASSIGNMENTS))
def alternated(request, tmp_path_factory):
    """The alternatives: a representative's from the batch `graded` grades, the others' in a batch of their own."""
    name = request.param
    return _batch(name, tmp_path_factory, stubs=name in REPRESENTATIVES, alternatives=True)


@pytest.fixture(scope="module", params=[pytest.param(n, marks=deep) for n in ASSIGNMENTS])
def mutated(request, tmp_path_factory):
    """Every mutant of the assignment, graded in one batch."""
    name = request.param
    a = load_assignment(name, KIT)
    tmp = tmp_path_factory.mktemp(f"{name}-mutants")
    subs = [
        Submission(f"mutant{i}", edit(a.solution, tmp / f"mutant{i}.ipynb", replace={m["old"]: m["new"]}), m["name"])
        for i, m in enumerate(_mutants(name))
    ]
    return name, a, _grade(a, tmp, subs)


def test_variants_are_well_formed():
    for name in ASSIGNMENTS:
        mutants = _mutants(name)
        assert len(mutants) >= 5, name
        assert (HERE / "alternatives" / f"{name}.ipynb").is_file(), name
        exercises = {p.stem.removeprefix("test_") for p in (KIT / "assignments" / name / "hidden").glob("test_*.py")}
        for m in mutants:
            assert m["exercise"] in exercises, (name, m["name"])
            assert m["old"] != m["new"]


def test_alternative_solution_gets_full_marks(alternated):
    name, a, results = alternated
    alternatives = [sid for sid in results if sid.startswith("alternative")]
    assert alternatives, name
    for sid in alternatives:
        lost = [(t.id, t.outcome, t.message[:200]) for t in results[sid].tests if t.score < t.max_score]
        assert results[sid].score == a.total_points, (sid, lost)


def test_every_mutant_loses_points_on_its_exercise(mutated):
    name, a, results = mutated
    survivors = []
    for i, m in enumerate(_mutants(name)):
        r = results[f"mutant{i}"]
        lost = sum(t.max_score - t.score for t in r.tests if t.exercise == m["exercise"])
        if lost <= 0:
            survivors.append(m["name"])
        assert r.status in ("graded", "timeout", "crashed"), (m["name"], r.status, r.message)
    assert not survivors, f"{name}: mutants that lose nothing on their exercise: {survivors}"


def _grader_errors(results: dict) -> list:
    """A wrong answer causes its own outcomes (failed, timeout, crashed), never an `error`, which says the grader
    could not check (and keeps the result provisional): a test whose check raised on an unexpected value (None,
    a list, a wrong type) instead of failing would blame the grader."""
    return [(sid, t.id, t.message[:200]) for sid, r in results.items() for t in r.tests if t.outcome == "error"]


def test_no_stub_is_a_grader_error(graded):
    name, a, results = graded
    errors = _grader_errors(results)
    assert not errors, f"{name}: {errors}"


def test_no_mutant_is_a_grader_error(mutated):
    name, a, results = mutated
    errors = _grader_errors(results)
    assert not errors, f"{name}: {errors}"


def test_every_solution_block_belongs_to_a_tested_exercise():
    """The stub notebooks stub every block; each block's exercise must have tests that can lose."""
    for name in ASSIGNMENTS:
        a = load_assignment(name, KIT)
        exercises = {p.stem.removeprefix("test_") for p in (KIT / "assignments" / name / "hidden").glob("test_*.py")}
        blocks = block_exercises(a.solution)
        assert blocks, name
        assert set(blocks) <= exercises, (name, sorted(set(blocks) - exercises))


@pytest.mark.parametrize("kind", list(STUBS))
def test_stubs_earn_nothing(graded, kind):
    """A stub body earns 0 on every exercise: no points for how-facts without the values."""
    name, a, results = graded
    r = results[f"stub_{_slug(kind)}"]
    earned: dict[str, list[str]] = {}
    for t in r.tests:
        if t.score > 0:
            earned.setdefault(t.exercise, []).append(f"{t.id} ({t.score:g})")
    assert r.score == 0 and not earned, f"{name}, stub `{kind}` earns {r.score:g}: {earned}"


def test_stub_sources_are_valid_python():
    """Each stub kind turns every solution cell into code that compiles (so a 0 is the stub's, not a SyntaxError)."""
    for name in ASSIGNMENTS:
        nb = nbformat.read(load_assignment(name, KIT).solution, as_version=4)
        for kind in STUBS:
            for cell in nb.cells:
                if cell.cell_type == "code" and "### BEGIN SOLUTION" in cell.source:
                    src = _stub_source(cell.source, kind)
                    assert "BEGIN SOLUTION" not in src
                    compile(
                        "\n".join(line for line in src.splitlines() if not line.lstrip().startswith(("%", "!"))),
                        f"{name}:{kind}",
                        "exec",
                    )
