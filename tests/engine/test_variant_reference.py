"""The reference per variant of the hidden inputs: answers cached per variant, and the master proven on
each variant once, whatever the number of judges asking at the same time."""
import threading
import time

import torch

from autograder.probe.reference import CachedReference


class _Master:
    def __init__(self):
        self.calls = 0

    def call(self, probe, args=(), kwargs=None, *, seed=0, timeout=None):
        self.calls += 1
        return torch.full((2,), float(seed))

    def close(self):
        pass


def test_answers_are_cached_per_variant(tmp_path):
    master = _Master()
    ref = CachedReference(lambda: master, tmp_path)
    ref.new_submission()
    ref.call("p", (1,), seed=1)
    ref.new_submission("sa")
    ref.call("p", (1,), seed=2)
    ref.new_submission("sb")
    ref.call("p", (1,), seed=3)
    assert master.calls == 3
    course_wide = {f.name for f in tmp_path.iterdir() if f.is_file()}
    assert len(course_wide) == 1  # the course-wide answers stay where they always were
    for v in ("sa", "sb"):
        assert len([f for f in (tmp_path / "variants" / v).iterdir() if not f.name.startswith(".")]) == 1
    assert set(ref._memory) == {"", "sb"}  # one student's answers in memory at a time, and the course-wide ones

    fresh = CachedReference(lambda: _Master(), tmp_path)  # another judge: each variant's answers from disk
    for v, seed in (("sa", 2), ("", 1), ("sb", 3)):
        fresh.new_submission(v)
        assert torch.equal(fresh.call("p", (1,), seed=seed), torch.full((2,), float(seed)))
    assert fresh.misses == 0


def test_a_variant_is_proven_once_however_many_judges_ask(tmp_path):
    runs = []

    def prove() -> str:
        runs.append(1)
        time.sleep(0.3)  # the master's run on the variant: long enough for the others to arrive
        return ""

    judges = [CachedReference(_Master, tmp_path) for _ in range(4)]  # each its own open file: flock conflicts
    answers = []
    threads = [threading.Thread(target=lambda r=r: answers.append(r.prove("sa", prove))) for r in judges]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert answers == [""] * 4 and len(runs) == 1
    assert (tmp_path / "variants" / "sa" / ".proven").is_file()
    assert CachedReference(_Master, tmp_path).prove("sa", lambda: "must not run") == ""  # a later run reads the mark


def test_a_failed_proof_is_not_kept(tmp_path):
    ref = CachedReference(_Master, tmp_path)
    assert ref.prove("sa", lambda: "the master scores 7/10") == "the master scores 7/10"
    assert not (tmp_path / "variants" / "sa" / ".proven").exists()
    assert ref.prove("sa", lambda: "") == ""  # tried again (a host fault may have passed), then kept
    assert ref.prove("sa", lambda: "must not run") == ""
    memory_only = CachedReference(_Master, None)
    assert memory_only.prove("sb", lambda: "why") == "why" and memory_only.prove("sb", lambda: "") == ""
    assert memory_only.prove("sb", lambda: "must not run") == ""
