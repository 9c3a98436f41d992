"""`student.map(probe, [args, ...])` makes a test's calls in one round trip to the worker, with the
seeds, results and failures the same calls would have had one by one: an item whose call raised,
hung or crashed raises that when read, so the items before it are checked first, as in a loop."""

import pytest
import torch

from autograder.execute.backend import ProbeBackend, ProbeCrashed, ProbeError, ProbeTimeout
from autograder.notebook.parse import Cell
from tests.execute.live import client, runner_fixture

CELLS = [
    Cell(
        1,
        "import os, torch\ndef double(x):\n    if x == 13:\n        raise ValueError('unlucky')\n"
        "    while x == 99:\n        pass\n    if x == 66:\n        os._exit(3)\n    return x * 2\n"
        "def noise(n):\n    return torch.randn(n)\n",
    )
]
PROBES = (
    "def double(ns, x):\n    return ns['double'](x)\n\ndef noise(ns, n):\n    return ns['noise'](n)\n\n"
    "def tamper(ns):\n    globals()['double'] = lambda ns, x: 42\n"
)


runner = runner_fixture(CELLS, PROBES)


class _Probes:
    @staticmethod
    def double(ns, x): ...

    @staticmethod
    def noise(ns, n): ...


def _client(backend, test="test_x", timeout=30):
    return client(backend, _Probes, test, timeout)


def test_a_batch_answers_each_call_as_one_by_one_calls_would(runner):
    one_by_one = _client(runner)
    singles = [one_by_one(_Probes.noise, 3) for _ in range(4)]
    batched = _client(runner).map(_Probes.noise, [(3,)] * 4)
    assert len(batched) == 4 and all(torch.equal(a, b) for a, b in zip(singles, batched))  # same seeds, in order
    assert not torch.equal(batched[0], batched[1])  # each call its own seed
    assert list(_client(runner).map(_Probes.double, [(1,), (2,), (5,)])) == [2, 4, 10]
    assert list(_client(runner).map(_Probes.double, [])) == []


def test_a_failing_call_raises_when_its_item_is_read_and_keeps_the_worker(runner):
    answers = runner.call_many([("double", (1,), {}, 0), ("double", (13,), {}, 0), ("double", (3,), {}, 0)])
    assert answers[0] == (True, 2) and answers[2] == (True, 6)
    assert answers[1][0] is False and answers[1][1]["type"] == "ValueError"
    got = _client(runner).map(_Probes.double, [(1,), (13,), (3,)])
    assert got[0] == 2 and got[2] == 6
    with pytest.raises(ProbeError, match="unlucky"):
        got[1]
    with pytest.raises(ProbeError, match="unlucky"):
        list(got)  # a loop over the items stops where the one-by-one calls would have
    assert runner.call("double", (21,)) == 42  # the same worker goes on


@pytest.mark.parametrize("bad, error", [(99, ProbeTimeout), (66, ProbeCrashed)])
def test_a_call_that_hangs_or_kills_the_worker_keeps_the_answers_before_it(runner, bad, error):
    client = _client(runner, "test_y", 3)
    got = client.map(_Probes.double, [(1,), (2,), (bad,), (4,)])
    assert got[0] == 2 and got[1] == 4  # answered before the worker hung or died
    for k in (2, 3):
        with pytest.raises(error):
            got[k]
    assert runner.call("double", (5,)) == 10  # a fresh worker, the notebook replayed


def test_backends_without_batches_get_the_calls_one_by_one():
    class Local(ProbeBackend):
        def __init__(self):
            self.seeds = []

        def call(self, probe, args=(), kwargs=None, *, seed=0, timeout=None):
            self.seeds.append(seed)
            return args[0] * 2

    a, b = Local(), Local()
    assert _client(a).map(_Probes.double, [(1,), (2,)]) == [2, 4]
    c = _client(b)
    assert [c(_Probes.double, 1), c(_Probes.double, 2)] == [2, 4]
    assert a.seeds == b.seeds and a.seeds[0] != a.seeds[1]


def test_a_call_cannot_tamper_with_the_probes_of_later_requests(runner):
    """Each request (a test's batch) runs from a probes module made for it: a probe module a call patched
    (here through its globals) answers no later test.  Within its own batch it may: what a call reports
    is the student's to forge anyway, and points come only from values compared with the reference."""
    runner.call_many([("tamper", (), {}, 0)])
    assert runner.call("double", (4,)) == 8


class _Once(ProbeBackend):
    """Answers `double`, counts the calls; `13` raises in the notebook, `99` runs past the time limit."""

    def __init__(self):
        self.calls = []

    def call(self, probe, args=(), kwargs=None, *, seed=0, timeout=None):
        self.calls.append((args, seed))
        if args[0] == 13:
            raise ProbeError({"type": "ValueError", "message": "unlucky"})
        if args[0] == 99:
            raise ProbeTimeout("the test's time limit is used up")
        return (args[0] * 2, seed)


def _once_client(backend, test, kept, variant=""):
    from autograder.probe.client import ProbeClient, TestContext
    from autograder.probe.seeds import Seeds

    return ProbeClient(backend, _Probes, TestContext(Seeds(b"secret", "a", variant), test, 60, kept=kept), "student")


def test_once_answers_a_call_once_per_submission_whichever_test_asks():
    """`student.once`: a second test with the same probe and arguments reads the kept answer (one call, one
    seed: the call's, not the test's); other arguments, another submission or another student's variant call
    again; the test's own calls keep the seeds they would have had without it."""
    backend, kept = _Once(), {}
    first = _once_client(backend, "test_a", kept).once(_Probes.double, 5)
    assert _once_client(backend, "test_b", kept).once(_Probes.double, 5) == first
    assert len(backend.calls) == 1
    _once_client(backend, "test_b", kept).once(_Probes.double, 6)
    assert _once_client(backend, "test_a", {}).once(_Probes.double, 5) == first  # another submission: the same seed
    other = _once_client(backend, "test_a", {}, variant="s1").once(_Probes.double, 5)
    assert other[1] != first[1]  # another student's inputs vary
    assert len(backend.calls) == 4
    asked, plain = _once_client(backend, "test_c", kept), _once_client(backend, "test_c", {})
    asked.once(_Probes.double, 5)
    assert asked(_Probes.double, 1) == plain(_Probes.double, 1)


def test_once_keeps_the_notebooks_error_but_not_a_timeout():
    backend, kept = _Once(), {}
    for test in ("test_a", "test_b"):
        with pytest.raises(ProbeError, match="unlucky"):
            _once_client(backend, test, kept).once(_Probes.double, 13)
    assert len(backend.calls) == 1  # the notebook's exception is the call's answer
    for test in ("test_a", "test_b"):
        with pytest.raises(ProbeTimeout):
            _once_client(backend, test, kept).once(_Probes.double, 99)
    assert len(backend.calls) == 3  # a timeout is the asking test's: the next one asks again on its own time
