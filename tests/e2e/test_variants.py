"""Hidden inputs per student: two students' identical correct notebooks get different hidden inputs
in their workers and both score full marks; a notebook that answers from a table of one student's
hidden inputs fails for another; the variant follows the student (resubmissions, re-grades, a roster
match) and is in instructor.json only; a master that fails on a student's variant makes that result
provisional, never the student's 0.

The gate does not depend on the sandbox (tests/e2e/test_reference_gate.py): the workers run under
rlimits only, so these tests hold wherever the kit's own tests run."""

import ast
import json
import re
import shutil
from pathlib import Path

import pytest

from autograder.config.assignment import load_assignment
from autograder.execute.sandbox import RlimitsOnly
from autograder.intake.roster import Identity, write_identities
from autograder.intake.submissions import Submission
from autograder.judge.session import GradeOptions, close_references
from autograder.pipeline import grade_class
from autograder.probe.seeds import Seeds
from tests.nbfactory import edit

SECRET = "course-secret-for-variant-tests"
SPY = 'print("SEEN", x.flatten().tolist(), flush=True)\n    return x * 2'  # what reached the worker


@pytest.fixture
def course(monkeypatch):
    """The course secret set, the number of variants left to the default (one per student) unless set."""
    monkeypatch.setenv("AUTOGRADER_SECRET", SECRET)
    yield monkeypatch
    close_references()


def _grade(kit: Path, subs: dict[str, Path], out: Path, jobs: int = 1, variants: int | None = None):
    run = grade_class(
        load_assignment("toy", kit),
        [Submission(sid, p, p.name) for sid, p in subs.items()],
        out=out,
        jobs=jobs,
        options=GradeOptions(isolation=RlimitsOnly(), variants=variants),
    )
    return run, {r.submission_id: r for r in run.results}


def _seen(result) -> list[tuple[float, ...]]:
    return [tuple(ast.literal_eval(v)) for v in re.findall(r"^SEEN (\[.*\])$", result.stdout, re.M)]


def _random_inputs(result) -> set[tuple[float, ...]]:
    """The inputs of hidden/test_double.py::test_double_random (randn of 3 and of 2x5 values)."""
    return {x for x in _seen(result) if len(x) in (3, 10) and set(x) != {1.0}}


def _lookup_table(tmp: Path, master: Path, inputs: list[tuple[float, ...]]) -> Path:
    """A notebook that knows no arithmetic: double() answers from a table of inputs it has seen."""
    table = {x: [2 * v for v in x] for x in inputs}
    return edit(
        master,
        tmp / "lookup.ipynb",
        replace={
            "return x * 2": (
                f"TABLE = {table!r}\n    key = tuple(x.flatten().tolist())\n"
                "    if key in TABLE:\n        return torch.tensor(TABLE[key], dtype=x.dtype).reshape(x.shape)\n"
                "    return torch.zeros_like(x)"
            )
        },
    )


def test_each_student_gets_their_own_hidden_inputs(toy_kit, tmp_path, course):
    master = toy_kit / "solutions" / "toy.ipynb"
    spy = edit(master, tmp_path / "spy.ipynb", replace={"return x * 2": SPY})
    out = tmp_path / "out"
    # two judges: each proves its student's variant (the pool path), the grader only compares
    run, by_id = _grade(toy_kit, {"alice": spy, "bob": spy}, out, jobs=2)
    alice, bob = by_id["alice"], by_id["bob"]
    assert alice.score == bob.score == alice.max_score == 10 and not alice.provisional and not bob.provisional
    a_in, b_in = _random_inputs(alice), _random_inputs(bob)
    assert len(a_in) == len(b_in) == 2 and not a_in & b_in, (alice.stdout, bob.stdout)
    public = (1.0, 2.0)  # public/test_double.py's input: the same for every student
    assert public in _seen(alice) and public in _seen(bob)

    variants = {
        sid: json.loads((out / "toy" / sid / "instructor.json").read_text())["environment"]["variant"]
        for sid in ("alice", "bob")
    }
    assert variants["alice"] != variants["bob"] and all(re.fullmatch(r"s[0-9a-f]{16}", v) for v in variants.values())
    seeds = Seeds(SECRET.encode(), "toy")
    assert variants == {sid: seeds.variant_of(sid) for sid in variants}
    for sid, v in variants.items():  # the variant is the instructor's: never in what the student sees
        student_facing = (out / "toy" / sid / "results.json").read_text()
        assert v not in student_facing and "variant" not in student_facing
    version = load_assignment("toy", toy_kit).version()
    assert not (out / ".cache" / "reference" / "toy" / version / "variants").exists()  # a student's own: in memory

    # a lookup table of alice's hidden inputs: alice's resubmission keeps full marks (her variant is
    # stable), bob's copy fails the hidden test whose inputs are his own
    lookup = _lookup_table(tmp_path, master, _seen(alice))
    run, by_id = _grade(toy_kit, {"alice": lookup, "bob": lookup}, out)
    assert run.reused == 0
    assert by_id["alice"].score == 10 and by_id["alice"].environment["variant"] == variants["alice"]
    failed = {t.id for t in by_id["bob"].tests if t.score < t.max_score}
    assert by_id["bob"].score == 7 and failed == {"hidden/test_double.py::test_double_random[cpu]"}
    assert not by_id["bob"].provisional  # the master passed that file on bob's variant: the lost points stand

    # alice is matched to the roster since: another identity, another variant; her stored grade is not
    # reused, and her table no longer fits.  Bob is unchanged and reused.
    write_identities(out / "toy" / "identities.json", {"alice": Identity(student_id="S-1001", name="Alice")})
    run, by_id = _grade(toy_kit, {"alice": lookup, "bob": lookup}, out)
    assert run.reused == 1 and run.partial == 0
    assert by_id["alice"].environment["variant"] == seeds.variant_of("S-1001") != variants["alice"]
    assert by_id["alice"].score == 7 and by_id["bob"].score == 7


def test_one_variant_is_the_course_wide_inputs(toy_kit, tmp_path, course):
    """`variants = 1`: every student's inputs are the same (as before per-student variants), so a lookup
    table of one student's inputs passes for another: what a variant per student prevents."""
    master = toy_kit / "solutions" / "toy.ipynb"
    spy = edit(master, tmp_path / "spy.ipynb", replace={"return x * 2": SPY})
    _, by_id = _grade(toy_kit, {"alice": spy, "bob": spy}, tmp_path / "out", variants=1)
    assert _random_inputs(by_id["alice"]) == _random_inputs(by_id["bob"])
    assert by_id["alice"].environment["variant"] == by_id["bob"].environment["variant"] == ""
    lookup = _lookup_table(tmp_path, master, _seen(by_id["alice"]))
    _, by_id = _grade(toy_kit, {"bob": lookup}, tmp_path / "out", variants=1)
    assert by_id["bob"].score == 10


def test_n_variants_share_inputs_within_a_variant(toy_kit, tmp_path, course):
    seeds = Seeds(SECRET.encode(), "toy")
    names = [f"student{i}" for i in range(40)]
    first = next(n for n in names if seeds.variant_of(n, 2) == "v1")
    same = next(n for n in names if n != first and seeds.variant_of(n, 2) == "v1")
    other = next(n for n in names if seeds.variant_of(n, 2) == "v2")
    spy = edit(toy_kit / "solutions" / "toy.ipynb", tmp_path / "spy.ipynb", replace={"return x * 2": SPY})
    _, by_id = _grade(toy_kit, {n: spy for n in (first, same, other)}, tmp_path / "out", variants=2)
    assert all(r.score == 10 for r in by_id.values())
    assert _random_inputs(by_id[first]) == _random_inputs(by_id[same])
    assert not _random_inputs(by_id[first]) & _random_inputs(by_id[other])
    cache = tmp_path / "out" / ".cache" / "reference" / "toy" / load_assignment("toy", toy_kit).version() / "variants"
    assert sorted(p.name for p in cache.iterdir()) == ["v1", "v2"]  # shared by several students: on disk


def test_a_master_that_fails_a_students_variant_is_the_graders_fault(toy_kit, tmp_path, course):
    """The course-wide gate passes, but hidden tests are wrong for some inputs: the student who loses a test's
    points on a variant the master fails too gets a provisional result (graded again on the next run,
    exported blank), never the points taken.  Points lost to an untouched stub, or in a notebook that cannot be
    read, or to a name no cell defined (its cell raised first: the probe's lookup of it, or the student's own code
    using it), need no proof: 0 whatever the master does on that variant.  The master is proven on the tests a
    student lost, not on their whole file: a student who lost `test_double_random` only stands, even on a variant
    where the master fails `test_odd` beside it; one who lost `test_odd` too there is provisional."""
    kit = tmp_path / "kit"
    shutil.copytree(toy_kit, kit)
    seeds = Seeds(SECRET.encode(), "toy")
    later, odd = "test_later.py::test_later", "test_double.py::test_odd"
    parity = {t: seeds.test(t) % 2 for t in (later, odd)}  # what holds for the course-wide inputs (the gate)
    hidden = kit / "assignments" / "toy" / "hidden"
    (hidden / "test_later.py").write_text(
        (hidden / "test_later.py")
        .read_text()
        .replace("def test_later(student, reference, probes):", "def test_later(student, reference, probes, seed):")
        + f"    assert seed % 2 == {parity[later]}, 'holds for some inputs only'\n"
    )
    (hidden / "test_double.py").write_text(
        (hidden / "test_double.py").read_text()
        + "\n\n@pytest.mark.points(2)\ndef test_odd(student, reference, probes, seed):\n"
        + '    """a test the master fails on some variants: an exact double() passes it on the others only"""\n'
        + "    x = torch.tensor([0.3])\n"
        + f"    assert not torch.equal(student(probes.double, x), reference(probes.double, x)) or seed % 2 == {parity[odd]}\n"
    )

    def fits(name: str) -> tuple[bool, bool]:  # (test_later, test_odd) hold on the student's variant
        mine = Seeds(SECRET.encode(), "toy", seeds.variant_of(name))
        return mine.test(later) % 2 == parity[later], mine.test(odd) % 2 == parity[odd]

    names = [f"student{i}" for i in range(80)]
    good = next(n for n in names if fits(n) == (True, True))
    bad, stub, broken, undefined, uses_undefined = [n for n in names if fits(n) == (False, True)][:5]
    rounds, exact_once = [n for n in names if fits(n) == (True, False)][:2]
    master = kit / "solutions" / "toy.ipynb"
    stubbed = edit(master, tmp_path / "stub.ipynb", replace={"return x + 1": "raise NotImplementedError()"})
    midway = edit(
        master, tmp_path / "midway.ipynb", replace={"def later(x):": "raise ValueError('midway')\ndef later(x):"}
    )
    uses = edit(master, tmp_path / "uses.ipynb", replace={"return x + 1": "return x + ONE  # no cell defines ONE"})
    unreadable = tmp_path / "broken.ipynb"
    unreadable.write_bytes(master.read_bytes()[: master.stat().st_size // 2])  # cut in half: not JSON
    rounding = edit(master, tmp_path / "rounding.ipynb", replace={"return x * 2": "return torch.round(x * 2)"})
    exact_on_one = edit(
        master,
        tmp_path / "one.ipynb",
        replace={"return x * 2": "return x * 2 if x.numel() == 1 else torch.round(x * 2)"},
    )
    run, by_id = _grade(
        kit,
        {
            good: master,
            bad: master,
            stub: stubbed,
            broken: unreadable,
            undefined: midway,
            uses_undefined: uses,
            rounds: rounding,
            exact_once: exact_on_one,
        },
        tmp_path / "out",
    )
    assert run.reference.score == 12
    lost = {sid: [t.id for t in r.tests if t.score < t.max_score] for sid, r in by_id.items()}
    assert by_id[good].score == 12 and not by_id[good].provisional
    r = by_id[bad]
    assert r.score == 10 and lost[bad] == ["hidden/test_later.py::test_later"]
    assert r.provisional and "master notebook fails the hidden tests" in r.provisional, r.provisional
    assert "holds for some inputs only" in "\n".join(r.problems)
    assert run.retried == 4  # each graded again in the run (a host fault may pass), then left provisional
    assert lost[stub] == ["hidden/test_later.py::test_later"]
    assert next(t for t in by_id[stub].tests if t.id == lost[stub][0]).message.startswith("not answered")
    assert by_id[stub].score == 10 and not by_id[stub].provisional
    gone = next(t for t in by_id[undefined].tests if t.id == "hidden/test_later.py::test_later")
    assert gone.score == 0 and gone.message.startswith("the notebook does not define `later`"), gone.message
    assert by_id[undefined].score == 10 and not by_id[undefined].provisional
    met = next(t for t in by_id[uses_undefined].tests if t.id == "hidden/test_later.py::test_later")
    assert met.score == 0 and met.message.startswith("the notebook does not define `ONE`, which your code uses (cell")
    assert by_id[uses_undefined].score == 10 and not by_id[uses_undefined].provisional
    assert by_id[broken].status == "invalid" and by_id[broken].score == 0 and not by_id[broken].provisional
    assert lost[rounds] == ["hidden/test_double.py::test_double_random[cpu]"]
    assert by_id[rounds].score == 9 and not by_id[rounds].provisional, by_id[rounds].problems
    assert lost[exact_once] == ["hidden/test_double.py::test_double_random[cpu]", "hidden/test_double.py::test_odd"]
    assert "master notebook fails the hidden tests" in by_id[exact_once].provisional
    cache = tmp_path / "out" / ".cache" / "reference" / "toy" / load_assignment("toy", kit).version() / "variants"
    assert not list(cache.glob("*/.proven*"))
