"""Seeds: one-way from the course secret, per test and call, stable across re-grades, and nothing
student-facing or sent to a worker lets anyone derive another test's seed."""
import hashlib
import hmac
import json
import re
from pathlib import Path

import pytest

from autograder.assignment import load_assignment
from autograder.judge.plugin import GradingPlugin
from autograder.judge.suite import run_tests
from autograder.judge.session import GradeOptions, close_references, grade_notebook
from autograder.probe.seeds import Seeds, fingerprint
from autograder.report.files import write_submission
from tests.nbfactory import edit

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
    seeds = {s.test("t.py::a"), s.test("t.py::b"), s.test("u.py::a"), Seeds(SECRET, "toy2").test("t.py::a"),
             Seeds(b"other", "toy").test("t.py::a"), s.call("t.py::a", 0), s.call("t.py::a", 1),
             s.call("t.py::b", 0), s.cells()}
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


class _Recorder:
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
        "@pytest.mark.points(1)\ndef test_b(student, probes):\n    assert student(probes.echo, 3) == 3\n")
    (tmp_path / "probes.py").write_text("def echo(ns, x):\n    return x\n")
    import importlib.util
    spec = importlib.util.spec_from_file_location("probes_seed_test", tmp_path / "probes.py")
    probes = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(probes)
    seeds = Seeds(SECRET, "a")
    student, reference = _Recorder(), _Recorder()
    plugin = GradingPlugin(student=student, reference=reference, probes=probes, seeds=seeds, test_timeout=10,
                           hidden_dir=tmp_path / "hidden")
    run_tests([tmp_path / "hidden"], plugin, tmp_path)
    assert [r.outcome for r in plugin.results] == ["passed", "passed"]
    a, b = "test_s.py::test_a", "test_s.py::test_b"
    assert student.seeds == [seeds.call(a, 0), seeds.call(a, 1), seeds.call(b, 0)]
    assert reference.seeds == [seeds.call(a, 0), seeds.call(a, 1)]   # k-th reference call = k-th student call
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
    nb = edit(master, tmp_path / "seen.ipynb", insert={2: SEEN},
              replace={"return x * 2": "print('SEEN call', torch.initial_seed())\n    return x * 2"})
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
