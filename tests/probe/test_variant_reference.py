"""The reference per variant of the hidden inputs: answers cached per variant, and the master proven on
each variant once, whatever the number of judges asking at the same time."""

import threading
import time

import pytest
import torch

from autograder.execute.backend import ProbeBackend
from autograder.probe.reference import CachedReference


class _Master(ProbeBackend):
    def __init__(self):
        self.calls = 0

    def call(self, probe, args=(), kwargs=None, *, seed=0, timeout=None):
        self.calls += 1
        return torch.full((2,), float(seed))

    def call_many(self, calls, *, timeout=None):
        self.batches = getattr(self, "batches", 0) + 1
        return [(True, self.call(p, a, k, seed=s)) for p, a, k, s in calls]

    def close(self):
        pass


def test_answers_are_cached_per_variant(tmp_path):
    master = _Master()
    ref = CachedReference(lambda: master, tmp_path)
    ref.new_submission()
    ref.call("p", (1,), seed=1)
    ref.new_submission("v1")
    ref.call("p", (1,), seed=2)
    ref.new_submission("v2")
    ref.call("p", (1,), seed=3)
    ref.new_submission("s0123456789abcdef")  # a student's own variant: in memory only, no reader for it on disk
    ref.call("p", (1,), seed=4)
    assert torch.equal(ref.call("p", (1,), seed=4), torch.full((2,), 4.0)) and master.calls == 4
    course_wide = {f.name for f in tmp_path.iterdir() if f.is_file()}
    assert len(course_wide) == 1  # the course-wide answers stay where they always were
    assert sorted(p.name for p in (tmp_path / "variants").iterdir()) == ["v1", "v2"]
    for v in ("v1", "v2"):
        assert len([f for f in (tmp_path / "variants" / v).iterdir() if not f.name.startswith(".")]) == 1
    assert set(ref._memory) == {"", "s0123456789abcdef"}  # one variant's answers at a time, and the course-wide

    fresh = CachedReference(lambda: _Master(), tmp_path)  # another judge: each variant's answers from disk
    for v, seed in (("v1", 2), ("", 1), ("v2", 3)):
        fresh.new_submission(v)
        assert torch.equal(fresh.call("p", (1,), seed=seed), torch.full((2,), float(seed)))
    assert fresh.misses == 0


def test_a_course_wide_answer_serves_every_variant(tmp_path):
    """The same call (probe, arguments, seed: a `same_inputs` test's) under a student's variant is answered
    from the course-wide answers, in memory or on disk, without the master's worker."""
    master = _Master()
    ref = CachedReference(lambda: master, tmp_path)
    ref.new_submission()
    ref.call("p", (1,), seed=1)
    ref.new_submission("s0123456789abcdef")
    assert torch.equal(ref.call("p", (1,), seed=1), torch.full((2,), 1.0)) and master.calls == 1
    fresh = CachedReference(lambda: _Master(), tmp_path)  # another judge: the course-wide answer from disk
    for v in ("s0123456789abcdef", "v1"):
        fresh.new_submission(v)
        assert torch.equal(fresh.call("p", (1,), seed=1), torch.full((2,), 1.0))
    assert fresh.misses == 0
    fresh.call("p", (1,), seed=5)  # another call: the master's
    assert fresh.misses == 1


def test_misses_go_to_the_master_in_one_batch(tmp_path):
    """A `map` of the proof's (or the reference pass's) calls is one round trip to the master's worker."""
    master = _Master()
    ref = CachedReference(lambda: master, tmp_path)
    ref.new_submission("sa")
    ref.call("p", (0,), seed=0)
    answers = ref.call_many([("p", (i,), {}, i) for i in range(5)] + [("p", (1,), {}, 1)])
    assert master.batches == 2 and master.calls == 5 and (ref.misses, ref.hits) == (5, 2)  # seed 0 and a repeat
    assert [float(v[0]) for _, v in answers] == [0, 1, 2, 3, 4, 1] and all(ok for ok, _ in answers)


def test_a_probe_the_master_raises_in_is_the_assignments_fault(tmp_path):
    from autograder.execute.backend import answer
    from autograder.probe.reference import ReferenceFailed

    class Raising(_Master):
        def call_many(self, calls, *, timeout=None):
            return [(False, {"type": "ValueError", "message": "bad"}) for _ in calls]

    ref = CachedReference(Raising, tmp_path)
    [(ok, err)] = ref.call_many([("p", (1,), {}, 3)])
    assert ok is None and isinstance(err, ReferenceFailed) and "ValueError: bad" in str(err)
    with pytest.raises(ReferenceFailed):
        answer(ok, err)


def test_a_variant_is_proven_once_however_many_judges_ask(tmp_path):
    runs = []

    def prove(files) -> str:
        runs.append(files)
        time.sleep(0.3)  # the master's run on the variant: long enough for the others to arrive
        return ""

    judges = [CachedReference(_Master, tmp_path) for _ in range(4)]  # each its own open file: flock conflicts
    answers = []
    threads = [
        threading.Thread(target=lambda r=r: answers.append(r.prove("v1", ["hidden/test_x.py"], prove))) for r in judges
    ]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert answers == [""] * 4 and runs == [["hidden/test_x.py"]]
    assert (tmp_path / "variants" / "v1" / ".proven-hidden-test_x.py").is_file()
    later = CachedReference(_Master, tmp_path)  # a later run reads the mark, and proves only what it lacks
    assert later.prove("v1", ["hidden/test_x.py"], lambda files: "must not run") == ""
    assert later.prove("v1", ["hidden/test_x.py", "hidden/test_y.py"], lambda files: runs.append(files) or "") == ""
    assert runs[-1] == ["hidden/test_y.py"]


def test_a_failed_proof_is_not_kept(tmp_path):
    ref, f = CachedReference(_Master, tmp_path), ["hidden/test_x.py"]
    assert ref.prove("v1", f, lambda files: "the master scores 7/10") == "the master scores 7/10"
    assert not list((tmp_path / "variants" / "v1").glob(".proven*"))
    assert ref.prove("v1", f, lambda files: "") == ""  # tried again (a host fault may have passed), then kept
    assert ref.prove("v1", f, lambda files: "must not run") == ""
    assert (
        ref.prove("v2", f, lambda files: "another variant: proven on its own") == "another variant: proven on its own"
    )
    assert ref.prove("s0123456789abcdef", f, lambda files: "") == ""  # a student's own: in memory, no marks
    assert ref.prove("s0123456789abcdef", f, lambda files: "must not run") == ""
    assert not (tmp_path / "variants" / "s0123456789abcdef").exists()
    memory_only = CachedReference(_Master, None)
    assert memory_only.prove("v2", f, lambda files: "why") == "why"
    assert memory_only.prove("v2", f, lambda files: "") == ""
    assert memory_only.prove("v2", f, lambda files: "must not run") == ""


def test_a_reference_map_is_one_request_to_the_master(tmp_path):
    """A hidden test's `reference.map` under a student's variant: its misses reach the master's worker in one
    request, with the seeds of the test's calls (taken when the map was made), when an answer is first read."""
    import types

    from autograder.probe.client import ProbeClient, TestContext
    from autograder.probe.seeds import Seeds

    master = _Master()
    ref = CachedReference(lambda: master, tmp_path)
    ref.new_submission("sa")
    seeds = Seeds(b"k", "a", "sa")
    client = ProbeClient(ref, types.SimpleNamespace(p=lambda ns, x: x), TestContext(seeds, "t.py::a", 10), "reference")
    got = client.map("p", [(i,) for i in range(4)])
    assert master.calls == 0 and len(got) == 4  # asked for when read: a test that stops first asks nothing
    assert client("p", 9) is not None and master.calls == 1  # a single call answers at once
    assert got[3] is not None and master.batches == 2 and master.calls == 5
    assert [v.tolist() for v in got] == [_Master().call("p", seed=seeds.call("t.py::a", k)).tolist() for k in range(4)]
