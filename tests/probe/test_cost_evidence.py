"""`student.cost(probe, *args)`: the CPU time of a call, read by the judge from /proc, which code in the
notebook cannot lower: not by switching the trace or torch's function modes off, not by doing the work in a
thread or a child process that is gone when the call returns.  And the verdicts built on it
(`assert_loop_free`, `advise`)."""

import re
import time

import pytest
import torch

from autograder.execute.backend import ProbeBackend
from autograder.execute.runner import OverBudget
from autograder.judge import checks
from autograder.judge.checks import LOOP_FLOOR, LOOP_MARGIN, CheckFailed, TooCostly, advise, assert_loop_free
from autograder.notebook.parse import Cell
from autograder.probe.client import ProbeClient, TestContext
from autograder.probe.ledger import CostLedger
from autograder.probe.seeds import Seeds
from tests.execute.live import client, runner_fixture

SPIN = "def spin(s):\n    t = time.process_time()\n    while time.process_time() - t < s:\n        pass\n    return 7\n"
CELLS = [
    Cell(
        1,
        "import sys, time, threading, multiprocessing, torch\n" + SPIN + "def quick(s):\n    return 7\n"
        "def nap(s):\n    time.sleep(s)\n    return 7\n"
        "def hidden(s):\n    sys.settrace(None)\n    with torch._C.DisableTorchFunction():\n        return spin(s)\n"
        "def in_thread(s):\n    t = threading.Thread(target=spin, args=(s,))\n    t.start()\n    t.join()\n    return 7\n"
        "def in_child(s):\n    p = multiprocessing.get_context('fork').Process(target=spin, args=(s,))\n"
        "    p.start()\n    p.join()\n    return 7\n",
    )
]
PROBES = "def run(ns, name, s):\n    return ns[name](s)\n"


class _Probes:
    @staticmethod
    def run(ns, name, s): ...


runner = runner_fixture(CELLS, PROBES)


def _client(backend):
    return client(backend, _Probes, "test_cost", 60)


def test_a_quick_call_costs_little(runner):
    got = _client(runner).cost(_Probes.run, "quick", 0.0)
    assert got.value == 7 and got.cpu is not None and got.cpu < 0.05


@pytest.mark.parametrize("name", ["spin", "hidden", "in_thread", "in_child"])
def test_work_shows_however_it_is_hidden(runner, name):
    got = _client(runner).cost(_Probes.run, name, 0.4)
    assert got.value == 7
    assert got.cpu is not None and got.cpu >= 0.3, (name, got.cpu)


class _Fixed(ProbeBackend):
    """A backend that says what each call cost."""

    def __init__(self, costs):
        self.costs = list(costs)

    def call(self, *a, **k):
        return "value"

    def call_costed(self, *a, **k):
        return "value", self.costs.pop(0)


def test_assert_loop_free_passes_cheap_calls_and_measures_again_once():
    assert assert_loop_free(_client(_Fixed([0.01])), _Probes.run, "f", 0, name="f", advice="") == "value"
    # one unlucky measure under the budget is forgiven: the cheaper of two counts
    assert assert_loop_free(_client(_Fixed([0.2, 0.01])), _Probes.run, "f", 0, name="f", advice="") == "value"
    with pytest.raises(CheckFailed, match="took 0.20 s of CPU time"):
        assert_loop_free(_client(_Fixed([0.2, 0.25])), _Probes.run, "f", 0, name="f", advice="it loops")
    # a backend that cannot stop a call past its budget: measured again, as any finished call over the limit
    assert assert_loop_free(_client(_Fixed([1.0, 0.01])), _Probes.run, "f", 0, name="f", advice="") == "value"
    with pytest.raises(CheckFailed, match="took 1.00 s of CPU time"):
        assert_loop_free(_client(_Fixed([1.0, 2.0])), _Probes.run, "f", 0, name="f", advice="it loops")
    # a slow machine: the reference's own cost raises the limit
    assert (
        assert_loop_free(_client(_Fixed([0.5])), _Probes.run, "f", 0, reference_cpu=0.1, name="f", advice="") == "value"
    )
    assert LOOP_FLOOR < 0.5
    # a check of its own ratio: a retrace per call costs about 12 calls, under 10 x the reference plus load's share
    with pytest.raises(CheckFailed, match="under 0.40 s"):
        assert_loop_free(
            _client(_Fixed([0.5, 0.5])), _Probes.run, "f", 0, reference_cpu=0.1, ratio=4, name="f", advice=""
        )


def test_a_backend_that_cannot_measure_gets_the_calls_wall_time():
    class Slow(ProbeBackend):
        def call(self, *a, **k):
            time.sleep(0.2)
            return 3

    got = _client(Slow()).cost(_Probes.run, "f", 0)
    assert got.value == 3 and got.cpu >= 0.2  # never None for a student backend: None means "no student code ran"


def test_advice_fails_a_test_with_its_words():
    advise(True, "never shown")
    with pytest.raises(CheckFailed, match=r"^Advice \(no points\): use \.to\(device\)"):
        advise(False, "use .to(device)")


def test_infinities_are_compared_exactly():
    from autograder.judge.checks import assert_tensor

    inf = float("inf")
    assert_tensor(torch.tensor([1.0, inf, -inf]), torch.tensor([1.0, inf, -inf]))
    for got in ([1.0, 3.4e38, -inf], [1.0, inf, inf], [1.0, inf, 0.0]):
        with pytest.raises(CheckFailed):
            assert_tensor(torch.tensor(got), torch.tensor([1.0, inf, -inf]))


def test_a_call_past_the_wall_cap_is_a_loop(runner, monkeypatch):
    monkeypatch.setattr(
        checks, "LOOP_WALL", 1.0
    )  # one that sleeps spends no CPU: the wall cap (here 20 x 0.15 s) stops it
    with pytest.raises(CheckFailed, match="did not finish within 3 s"):
        assert_loop_free(_client(runner), _Probes.run, "nap", 60.0, name="nap", advice="it loops")
    assert _client(runner).cost(_Probes.run, "quick", 0.0).value == 7  # a fresh worker answers the next call


@pytest.mark.parametrize("name", ["spin", "in_child"])
def test_a_loop_is_stopped_once_it_passes_its_budget(runner, name):
    """A minute's loop costs its CPU budget, not its minute, wherever it hides its work; the reason says why
    in words that name the function and no input; the next call gets a fresh worker."""
    t0 = time.monotonic()
    with pytest.raises(TooCostly, match=r"stopped there.*vectorised code takes under 0\.15 s") as failed:
        assert_loop_free(
            _client(runner), _Probes.run, name, 60.0, name=f"{name} of 200000 rows", function=name, advice="it loops"
        )
    budget = LOOP_MARGIN * LOOP_FLOOR
    assert failed.value.reason.startswith(f"{name} took more than ") and "200000" not in failed.value.reason
    cpu = float(re.search(r"took more than ([0-9.]+) s", failed.value.reason).group(1))
    assert budget <= cpu < budget + 0.5  # stopped within a few looks of its budget, not after its 60 s
    assert time.monotonic() - t0 < 30  # wall time, loosely: a host loaded 15 times over stretches it
    assert _client(runner).cost(_Probes.run, "quick", 0.0).value == 7
    assert 0.0 < budget < 1.0


def test_a_stopped_call_is_never_run_again_for_the_submission(runner):
    """Two tests of one submission make the same costed call: the second is answered by the first's proof
    (`CostLedger`), without a call; another submission (another ledger) measures for itself."""
    ledger = CostLedger()

    def test_client(test):
        return ProbeClient(runner, _Probes, TestContext(Seeds(b"secret", "a"), test, 60, ledger), "student")

    with pytest.raises(OverBudget) as first:
        test_client("test_one").cost(_Probes.run, "spin", 60.0, budget=0.3)
    assert first.value.cpu >= 0.3
    t0 = time.process_time(), time.monotonic()
    with pytest.raises(OverBudget) as again:
        test_client("test_two").cost(_Probes.run, "spin", 60.0, budget=0.2)
    assert again.value.cpu == first.value.cpu and time.monotonic() - t0[1] < 0.2
    assert test_client("test_three").cost(_Probes.run, "spin", 0.01, budget=0.3).value == 7  # other arguments: run
    with pytest.raises(OverBudget):  # a larger budget than the proof: measured again
        test_client("test_four").cost(_Probes.run, "spin", 60.0, budget=first.value.cpu + 0.2)
    with pytest.raises(OverBudget) as elsewhere:  # another submission's ledger knows nothing of it
        _client(runner).cost(_Probes.run, "spin", 60.0, budget=0.3)
    assert elsewhere.value.cpu != first.value.cpu


def test_a_ledger_hashes_arguments_only_once_it_holds_a_proof(monkeypatch):
    """A cost check's arguments are megabytes: a submission whose calls all finished under budget (a correct one)
    never pays for hashing them; once a call was stopped, the same arguments find its proof."""
    hashed = []

    def key(probe, args):
        hashed.append(probe)
        return probe + repr(args)

    monkeypatch.setattr(CostLedger, "key", staticmethod(key))
    ledger = CostLedger()
    assert ledger.proven_over("run", ("spin", 60.0), 0.3) is None and hashed == []
    ledger.record_over("run", ("spin", 60.0), 0.5)
    assert ledger.proven_over("run", ("spin", 60.0), 0.3) == 0.5
    assert ledger.proven_over("run", ("spin", 60.0), 0.6) is None  # a larger budget than the proof
    assert ledger.proven_over("run", ("quick", 0.0), 0.3) is None and len(hashed) == 4


def test_a_cost_reading_finds_the_workers_processes_once(runner, monkeypatch):
    """Each reading of a costed call (before, at each look, after) finds the worker's processes once, for its clock
    ticks and its nanoseconds both: from its cgroup where it has one, else by a walk over every process's /proc
    stat file."""
    from autograder.execute import process
    from autograder.execute.runner import cpu_spent

    runner.execute()
    worker, walks, real = runner.worker, [], process._tree
    monkeypatch.setattr(process, "_tree", lambda root: walks.append(root) or real(root))
    assert cpu_spent(worker)() >= 0.0 and len(walks) == (0 if worker.cgroups else 2)
    if worker.cgroups:
        assert worker.pid in worker._members() and set(real(worker.pid)) <= set(worker._members())
    monkeypatch.setattr(worker, "cgroups", [])
    assert cpu_spent(worker)() >= 0.0 and len(walks) == 2
