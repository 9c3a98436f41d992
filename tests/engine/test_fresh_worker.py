"""`student.fresh(probe, *args)` runs a probe in a worker that never ran the notebook: nothing the notebook
defined, patched or wrote reaches it (evidence for points about *how* code was built, e.g. the kit compiling
a kernel's source itself), and the notebook's own worker is untouched by it."""
import pytest

from autograder.execute.runner import ProbeError
from autograder.notebook.parse import Cell
from autograder.probe.inprocess import InProcess
from tests.engine.live import client, runner_fixture

CELLS = [Cell(1, "import torch\nSECRET = 'from the notebook'\n"
                 "torch.softmax = lambda *a, **k: 'patched'\nopen('planted', 'w').write('x')\n")]
PROBES = ("import os\nimport torch\n\n"
          "def look(ns):\n    return {'names': sorted(k for k in ns if not k.startswith('__')),\n"
          "            'softmax': torch.softmax(torch.zeros(2), 0), 'planted': os.path.exists('planted'),\n"
          "            'seed': torch.randn(2)}\n\n"
          "def fail(ns):\n    raise ValueError('from the kit')\n")


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
