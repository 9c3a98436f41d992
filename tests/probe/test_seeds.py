"""Seeds: one-way from the course secret, per test and call, stable across re-grades, and nothing
student-facing or sent to a worker lets anyone derive another test's seed."""

import hashlib
import hmac
import json
import re
from pathlib import Path

import pytest

from autograder.config.assignment import load_assignment
from autograder.execute.backend import ProbeBackend
from autograder.judge.plugin import GradingPlugin
from autograder.judge.session import GradeOptions, close_references, grade_notebook
from autograder.judge.suite import run_tests
from autograder.probe.seeds import Seeds, fingerprint
from autograder.store.result_files import write_submission
from tests.nbfactory import edit
from tests.probe.probes_file import probes_module

SECRET = b"course-secret-for-seed-tests"


def test_same_secret_same_seeds_across_instances_and_runs():
    a, b = Seeds(SECRET, "toy"), Seeds(SECRET, "toy")
    assert a.test("test_x.py::test_y") == b.test("test_x.py::test_y")
    assert [a.call("test_x.py::test_y", k) for k in range(3)] == [b.call("test_x.py::test_y", k) for k in range(3)]
    assert a.cells() == b.cells()
    # pinned: a change of derivation would silently change every hidden input of a re-grade
    mac = hmac.new(SECRET, digestmod=hashlib.sha256)
    for part in (b"test", b"toy", b"test_x.py::test_y"):
        mac.update(len(part).to_bytes(8, "big") + part)
    assert a.test("test_x.py::test_y") == int.from_bytes(mac.digest()[:8], "big") >> 1


def test_seeds_depend_on_secret_assignment_test_and_call():
    s = Seeds(SECRET, "toy")
    seeds = {
        s.test("t.py::a"),
        s.test("t.py::b"),
        s.test("u.py::a"),
        Seeds(SECRET, "toy2").test("t.py::a"),
        Seeds(b"other", "toy").test("t.py::a"),
        s.call("t.py::a", 0),
        s.call("t.py::a", 1),
        s.call("t.py::b", 0),
        s.cells(),
    }
    assert len(seeds) == 9 and all(0 <= x < 2**63 for x in seeds)
    # length-prefixed parts: moving a character between parts changes the seed
    assert Seeds(SECRET, "ab").test("c") != Seeds(SECRET, "a").test("bc")


def test_seeds_of_two_tests_are_unrelated():
    """No fixed offset, xor or shared bits between tests (what a sum or a counter would show)."""
    s = Seeds(SECRET, "toy")
    tests = [s.test(f"test_f.py::test_{i}") for i in range(200)]
    calls = [s.call(f"test_f.py::test_{i}", 0) for i in range(200)]
    for seq in (tests, calls, [c - t for c, t in zip(calls, tests)]):
        assert len(set(b - a for a, b in zip(seq, seq[1:]))) == 199
        assert len({a ^ b for a, b in zip(seq, seq[1:])}) == 199
    flips = [bin(a ^ b).count("1") for a, b in zip(tests, tests[1:])]
    assert 28 < sum(flips) / len(flips) < 35  # ~31.5 of 63 bits differ, as for independent seeds
    for bit in range(63):  # no bit stuck at one value
        assert 40 < sum((t >> bit) & 1 for t in tests) < 160


def test_fingerprint_is_short_and_reveals_no_seed():
    fp = fingerprint(SECRET)
    assert re.fullmatch(r"[0-9a-f]{16}", fp) and fp == fingerprint(SECRET) and fp != fingerprint(b"other")
    s = Seeds(SECRET, "toy")
    assert str(int(fp, 16)) not in {str(s.cells()), str(s.test("a::b"))}
    assert "course-secret" not in repr(s)  # the key stays out of reprs, tracebacks and logs


class _Recorder(ProbeBackend):
    def __init__(self) -> None:
        self.seeds: list[int] = []

    def call(self, probe, args=(), kwargs=None, *, seed=0, timeout=None):
        self.seeds.append(seed)
        return args[0]


def test_each_probe_call_gets_only_its_own_derived_seed(tmp_path):
    (tmp_path / "hidden").mkdir()
    (tmp_path / "hidden" / "test_s.py").write_text(
        "import pytest\n\n@pytest.mark.points(1)\ndef test_a(student, reference, probes, seed):\n"
        "    assert student(probes.echo, 1) == reference(probes.echo, 1)\n"
        "    assert student(probes.echo, 2) == reference(probes.echo, 2)\n\n"
        "@pytest.mark.points(1)\ndef test_b(student, probes):\n    assert student(probes.echo, 3) == 3\n"
    )
    probes = probes_module(tmp_path, "def echo(ns, x):\n    return x\n", "probes_seed_test")
    seeds = Seeds(SECRET, "a")
    student, reference = _Recorder(), _Recorder()
    plugin = GradingPlugin(
        student=student,
        reference=reference,
        probes=probes,
        seeds=seeds,
        test_timeout=10,
        hidden_dir=tmp_path / "hidden",
    )
    run_tests([tmp_path / "hidden"], plugin, tmp_path)
    assert [r.outcome for r in plugin.results] == ["passed", "passed"]
    a, b = "test_s.py::test_a", "test_s.py::test_b"
    assert student.seeds == [seeds.call(a, 0), seeds.call(a, 1), seeds.call(b, 0)]
    assert reference.seeds == [seeds.call(a, 0), seeds.call(a, 1)]  # k-th reference call = k-th student call
    assert not {seeds.test(a), seeds.test(b), seeds.cells()} & set(student.seeds)


SEEN = '''
import torch
print("SEEN cell", torch.initial_seed())
'''


def test_worker_and_student_files_never_see_a_test_seed(toy_kit, tmp_path, monkeypatch):
    """A real worker: what it can read (torch.initial_seed() in cells and inside probes) is the cell seed
    or that call's seed; results.json carries neither the seed source nor any seed, only the fingerprint."""
    monkeypatch.setenv("AUTOGRADER_SECRET", SECRET.decode())
    assignment = load_assignment("toy", toy_kit)
    master = toy_kit / "solutions" / "toy.ipynb"
    nb = edit(
        master,
        tmp_path / "seen.ipynb",
        insert={2: SEEN},
        replace={"return x * 2": "print('SEEN call', torch.initial_seed())\n    return x * 2"},
    )
    try:
        r = grade_notebook(assignment, nb, submission_id="seen", options=GradeOptions(cache_dir=tmp_path / "cache"))
    finally:
        close_references()
    assert r.score == r.max_score, r.summary_line()
    seen = {(kind, int(v)) for kind, v in re.findall(r"SEEN (cell|call) (\d+)", r.stdout)}
    seeds = Seeds(SECRET, "toy")
    test_ids = [f"{Path(t.file).name}::{t.id.split('::')[1].split('[')[0]}" for t in r.tests]
    calls = {seeds.call(t, k) for t in test_ids for k in range(4)}
    assert {k for k, _ in seen} == {"cell", "call"}, r.stdout[-2000:]
    assert all(v in calls for k, v in seen if k == "call")
    assert all(v - seeds.cells() in range(0, 20) for k, v in seen if k == "cell")
    secret_values = {str(seeds.test(t)) for t in test_ids} | {SECRET.decode()}
    folder = write_submission(tmp_path / "out", r)
    student_facing = (folder / "results.json").read_text()
    for v in secret_values:
        assert v not in student_facing and v not in r.stdout
    data = json.loads(student_facing)
    assert "seed" not in data and "seed_source" not in data and data["secret_fingerprint"] == fingerprint(SECRET)
    instructor = json.loads((folder / "instructor.json").read_text())
    assert instructor["environment"]["seed_source"] == "env" and "seed" not in instructor["environment"]


# ---------------------------------------------------------------------------------------- variants
def test_a_students_variant_is_stable_and_differs_between_students():
    s = Seeds(SECRET, "toy")
    alice = s.variant_of("alice")
    assert alice == Seeds(SECRET, "toy").variant_of("alice") == s.variant_of("alice", None)  # every run, every judge
    assert re.fullmatch(r"s[0-9a-f]{16}", alice)
    students = {s.variant_of(f"student{i}") for i in range(500)}
    assert len(students) == 500 and alice not in students
    assert Seeds(SECRET, "toy2").variant_of("alice") != alice  # one assignment's variant says nothing of the next


def test_a_variant_is_keyed_by_the_course_secret():
    """Without the secret nobody can tell which students share inputs, or compute a student's tag."""
    assert Seeds(SECRET, "toy").variant_of("alice") != Seeds(b"another secret", "toy").variant_of("alice")
    nv = [Seeds(k, "toy").variant_of("alice", 1000) for k in (SECRET, b"a", b"b", b"c", b"d")]
    assert len(set(nv)) > 1
    tag = Seeds(SECRET, "toy").variant_of("alice")
    assert tag[1:] != hashlib.sha256(b"alice").hexdigest()[:16]


def test_n_variants_share_inputs_within_a_variant_only():
    s = Seeds(SECRET, "toy")
    got = [s.variant_of(f"student{i}", 4) for i in range(400)]
    assert set(got) == {"v1", "v2", "v3", "v4"} and all(60 < got.count(v) < 140 for v in set(got))
    assert got == [s.variant_of(f"student{i}", 4) for i in range(400)]
    assert {s.variant_of(f"student{i}", 1) for i in range(50)} == {""}  # one variant: today's course-wide inputs
    same = [i for i in range(400) if got[i] == got[0]]
    assert len({Seeds(SECRET, "toy", got[i]).call("t.py::a", 0) for i in same}) == 1


def test_hidden_seeds_follow_the_variant_and_the_course_wide_ones_do_not_change():
    wide, alice, bob = Seeds(SECRET, "toy"), Seeds(SECRET, "toy", "sa"), Seeds(SECRET, "toy", "sb")
    for f in (lambda s: s.test("t.py::a"), lambda s: s.call("t.py::a", 0), lambda s: s.call("t.py::a", 1)):
        assert len({f(wide), f(alice), f(bob)}) == 3
    assert wide.cells() == alice.cells() == bob.cells()  # the notebook's cells: the same for student and master
    for s in (alice, bob):  # a public test never varies
        assert s.scope(False) == wide and s.scope(False).call("t.py::a", 0) == wide.call("t.py::a", 0)
        assert s.scope(True) is s
    mac = hmac.new(SECRET, digestmod=hashlib.sha256)  # pinned: the course-wide seeds hash what they always did
    for part in (b"call", b"toy", b"t.py::a", b"0"):
        mac.update(len(part).to_bytes(8, "big") + part)
    assert wide.call("t.py::a", 0) == int.from_bytes(mac.digest()[:8], "big") >> 1


def test_a_public_and_a_hidden_test_of_one_name_get_their_own_seeds(tmp_path):
    """03_components has public and hidden tests of one file and function name: only the hidden one varies
    (and a hidden test marked `same_inputs` does not)."""
    for kind in ("public", "hidden"):
        (tmp_path / kind).mkdir()
        (tmp_path / kind / "test_s.py").write_text(
            "import pytest\n\n@pytest.mark.points(1)\ndef test_a(student, probes, seed):\n"
            "    assert student(probes.echo, seed) == seed\n"
        )
    probes = probes_module(tmp_path, "def echo(ns, x):\n    return x\n", "probes_variant_test")
    (tmp_path / "hidden" / "test_big.py").write_text(  # inputs too large to tabulate: the same for everyone
        "import pytest\n\n@pytest.mark.points(1)\n@pytest.mark.same_inputs\ndef test_a(student, probes, seed):\n"
        "    assert student(probes.echo, seed) == seed\n"
    )
    wide, mine = Seeds(SECRET, "a"), Seeds(SECRET, "a", "s0123456789abcdef")
    student = _Recorder()
    plugin = GradingPlugin(
        student=student, reference=None, probes=probes, seeds=wide, test_timeout=10, hidden_dir=tmp_path / "hidden"
    )
    plugin.bind(student, None, mine)
    run_tests([tmp_path / "public", tmp_path / "hidden"], plugin, tmp_path)
    assert [r.outcome for r in plugin.results] == ["passed", "passed", "passed"]
    t = "test_s.py::test_a"
    assert student.seeds == [wide.call(t, 0), wide.call("test_big.py::test_a", 0), mine.call(t, 0)]


@pytest.mark.parametrize("value, count", [("student", None), (" Student ", None), (1, 1), (8, 8), ("3", 3)])
def test_the_variants_setting(value, count):
    from autograder.config.course import parse_variants

    assert parse_variants(value) == count


@pytest.mark.parametrize("value", [0, -2, "many", "", 2.5, True, "٣"])
def test_a_bad_variants_setting_is_a_clear_error(value, tmp_path, monkeypatch):
    from autograder.config.course import CourseError, load_course, parse_variants

    with pytest.raises(ValueError, match="whole number of variants"):
        parse_variants(value)
    (tmp_path / "course.toml").write_text(f"[course]\nvariants = {json.dumps(value)}\n")
    with pytest.raises(CourseError, match="course.variants"):
        load_course(tmp_path / "course.toml")


def test_course_toml_chooses_the_number_of_variants(tmp_path, monkeypatch):
    from autograder.cli import _parser
    from autograder.cli.common import Context, grade_settings
    from autograder.config.course import load_course

    args = _parser().parse_args(["grade", "toy", "x.ipynb"])
    assert grade_settings(args, Context(tmp_path)).variants is None  # one per student unless the course says so
    (tmp_path / "course.toml").write_text("[course]\nvariants = 4\n")
    course = load_course(tmp_path / "course.toml")
    assert grade_settings(args, Context(tmp_path, course)).variants == 4
