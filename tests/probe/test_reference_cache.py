"""The reference's cached answers: computed by the master's worker once, read from disk once per
process, and handed to each submission's tests as a fresh copy (a test that modifies what it got must
not change what the next submission is compared with)."""

import torch

from autograder.execute.backend import ProbeBackend
from autograder.probe.reference import CachedReference


class _Master(ProbeBackend):
    def __init__(self):
        self.calls = 0

    def call(self, probe, args=(), kwargs=None, *, seed=0, timeout=None):
        self.calls += 1
        return {"w": torch.arange(3.0, requires_grad=True), "n": [seed, args]}

    def call_many(self, calls, *, timeout=None):  # as NotebookRunner's: the cache sends its misses in one batch
        return [(True, self.call(p, a, k, seed=s)) for p, a, k, s in calls]

    def close(self):
        pass


def test_answers_are_computed_once_and_copied_per_caller(tmp_path):
    master = _Master()
    ref = CachedReference(lambda: master, tmp_path)
    first = ref.call("fit", (1,), seed=7)
    first["w"].data.add_(100)  # a test that modifies its answer in place
    first["n"].append("junk")
    second = ref.call("fit", (1,), seed=7)
    assert master.calls == 1 and (ref.hits, ref.misses) == (1, 1)
    assert torch.equal(second["w"].detach(), torch.arange(3.0)) and second["w"].requires_grad and second["w"].is_leaf
    assert second["n"] == [7, (1,)]
    second["w"].data.mul_(0)  # the copy a cache hit hands out is the caller's too
    assert torch.equal(ref.call("fit", (1,), seed=7)["w"].detach(), torch.arange(3.0)) and master.calls == 1
    assert ref.call("fit", (2,), seed=7)["n"] == [7, (2,)] and master.calls == 2  # other arguments: another answer

    fresh = CachedReference(lambda: _Master(), tmp_path)  # another process: the answers come from disk
    assert torch.equal(fresh.call("fit", (1,), seed=7)["w"].detach(), torch.arange(3.0)) and fresh.misses == 0
