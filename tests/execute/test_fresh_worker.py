"""`student.fresh(probe, *args)` runs a probe in a worker that never ran the notebook: nothing the notebook
defined, patched or wrote reaches it (evidence for points about *how* code was built, e.g. the kit compiling
a kernel's source itself), and the notebook's own worker is untouched by it."""

import pytest

from autograder.execute.backend import ProbeBackend, ProbeError
from autograder.notebook.parse import Cell
from autograder.probe.inprocess import InProcess
from tests.execute.live import client, runner_fixture

CELLS = [
    Cell(
        1,
        "import torch\nSECRET = 'from the notebook'\n"
        "torch.softmax = lambda *a, **k: 'patched'\nopen('planted', 'w').write('x')\n",
    )
]
PROBES = (
    "import os\nimport torch\n\n"
    "def look(ns):\n    return {'names': sorted(k for k in ns if not k.startswith('__')),\n"
    "            'softmax': torch.softmax(torch.zeros(2), 0), 'planted': os.path.exists('planted'),\n"
    "            'seed': torch.randn(2)}\n\n"
    "def fail(ns):\n    raise ValueError('from the kit')\n"
)


class _Probes:
    @staticmethod
    def look(ns): ...

    @staticmethod
    def fail(ns): ...


runner = runner_fixture(CELLS, PROBES)


def _client(backend):
    return client(backend, _Probes, "test_x", 60)


def test_a_fresh_worker_never_ran_the_notebook(runner):
    client = _client(runner)
    inside = client(_Probes.look)
    fresh = client.fresh(_Probes.look)
    assert "SECRET" in inside["names"] and inside["softmax"] == "patched" and inside["planted"]
    assert "SECRET" not in fresh["names"] and not fresh["planted"]
    assert fresh["softmax"].tolist() == [0.5, 0.5]


def test_the_notebook_worker_is_untouched_and_errors_are_the_calls(runner):
    client = _client(runner)
    client(_Probes.look)
    worker = runner.worker
    with pytest.raises(ProbeError, match="from the kit"):
        client.fresh(_Probes.fail)
    assert runner.worker is worker and runner.restarts == 0 and client(_Probes.look)["names"]


def test_a_fresh_call_takes_its_place_in_the_tests_seeds(runner):
    """The k-th call of a test runs under the k-th seed, fresh or not: a test's inputs do not move."""
    a, b = _client(runner), _client(runner)
    a(_Probes.look)
    b.fresh(_Probes.look)
    assert a(_Probes.look)["seed"].tolist() == b.fresh(_Probes.look)["seed"].tolist()


def test_a_self_check_runs_it_on_an_empty_namespace():
    import types

    probes = types.ModuleType("probes")
    exec(PROBES, probes.__dict__)
    got = _client(InProcess({"SECRET": 1}, probes)).fresh(_Probes.look)
    assert "SECRET" not in got["names"]


class _Counting(ProbeBackend):
    """A backend whose fresh calls are processes of their own (as `NotebookRunner`'s), counting them."""

    FRESH_PROCESS = True

    def __init__(self) -> None:
        self.fresh_calls: list[tuple] = []

    def call(self, probe, args=(), kwargs=None, *, seed=0, timeout=None):
        return {"seed": seed}

    def call_fresh(self, probe, args=(), kwargs=None, *, seed=0, timeout=None):
        self.fresh_calls.append((probe, args))
        if probe == "fail":
            raise ProbeError({"type": "ValueError", "message": "from the kit", "frames": []})
        return {"built": args, "seed": seed}


def _test_client(backend, test_id, kept):
    from autograder.probe.client import ProbeClient, TestContext
    from autograder.probe.seeds import Seeds

    return ProbeClient(backend, _Probes, TestContext(Seeds(b"secret", "a"), test_id, 60, kept=kept), "student")


def test_fresh_once_answers_once_per_submission():
    """The same probe on the same arguments in another test of the submission: the kept answer, no worker;
    other arguments, or another submission (another `kept`), run again; an error is never kept."""
    backend, kept = _Counting(), {}
    first = _test_client(backend, "test_a", kept).fresh_once(_Probes.look, "source", True)
    assert _test_client(backend, "test_b", kept).fresh_once(_Probes.look, "source", True) == first
    _test_client(backend, "test_b", kept).fresh_once(_Probes.look, "source", False)
    _test_client(backend, "test_a", {}).fresh_once(_Probes.look, "source", True)
    assert backend.fresh_calls == [("look", ("source", True)), ("look", ("source", False)), ("look", ("source", True))]
    for _ in range(2):
        with pytest.raises(ProbeError):
            _test_client(backend, "test_c", kept).fresh_once(_Probes.fail)
    assert backend.fresh_calls[-2:] == [("fail", ()), ("fail", ())]


def test_fresh_once_keeps_the_tests_later_seeds():
    """A kept answer still takes its place in the test's seeds: the call after it runs under the seed it would have."""
    backend, kept = _Counting(), {}
    _test_client(backend, "test_a", kept).fresh_once(_Probes.look, "x")
    again, fresh = _test_client(backend, "test_b", kept), _test_client(backend, "test_b", {})
    again.fresh_once(_Probes.look, "x")
    fresh.fresh_once(_Probes.look, "x")
    assert again(_Probes.look)["seed"] == fresh(_Probes.look)["seed"]


def test_fresh_once_in_one_process_runs_every_time():
    """A self-check's fresh calls share the student's process (a library loaded twice there registers nothing
    new): nothing is kept."""
    backend, kept = _Counting(), {}
    backend.FRESH_PROCESS = False
    for test in ("test_a", "test_b"):
        _test_client(backend, test, kept).fresh_once(_Probes.look, "x")
    assert len(backend.fresh_calls) == 2 and kept == {}


def test_the_masters_fresh_once_answers_outlive_its_submissions():
    """The master's notebook is the same in every share of the reference pass and every variant's proof, each a
    submission of its own: `CachedReference` keeps its `fresh_once` answers (tf02b: one compile of its kernel per
    judge, not one per test file); a student's backend keeps them for its submission only (`kept`)."""
    from autograder.probe.reference import CachedReference

    worker = _Counting()
    master = CachedReference(lambda: worker, None)  # type: ignore[arg-type,return-value]
    first = _test_client(master, "test_a", {}).fresh_once(_Probes.look, "source")
    master.new_submission("v-1")
    assert _test_client(master, "test_b", {}).fresh_once(_Probes.look, "source") == first
    assert worker.fresh_calls == [("look", ("source",))]
    student = _Counting()
    for kept in ({}, {}):
        _test_client(student, "test_a", kept).fresh_once(_Probes.look, "source")
    assert len(student.fresh_calls) == 2 and student.fresh_kept is None


def test_the_master_graded_through_the_reference_gets_fresh_workers_too(runner):
    """The reference pass grades the master through `CachedReference`: its fresh calls run in workers that never
    ran the master's cells, as a student's do (a library the cells loaded would otherwise meet the kit's)."""
    from autograder.probe.reference import CachedReference

    master = CachedReference(lambda: runner, None)
    fresh = _client(master).fresh(_Probes.look)
    assert "SECRET" not in fresh["names"] and not fresh["planted"]
    assert "SECRET" in _client(master)(_Probes.look)["names"]
