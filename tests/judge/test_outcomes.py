"""Whose fault an outcome is: a check that raises on the value a submission returned is that submission's
`failed`; the grader's and the host's faults stay `error` (provisional, graded again); on the master
itself every raise is the assignment's bug (`error`), which stops grading before anyone is graded."""

import pytest
import torch

from autograder.judge.plugin import GradingPlugin, _classify
from autograder.judge.suite import TestSuite
from autograder.probe.seeds import Seeds
from tests.judge.test_suite import _Fixed
from tests.probe.probes_file import probes_module

TESTS = '''
import pytest, torch

@pytest.mark.points(1)
def test_shape(student, probes):
    assert student(probes.answer).shape == (2,)   # None.shape when the answer is None

@pytest.mark.points(1)
def test_length(student, probes):
    assert len(student(probes.answer)) == 2        # len(3)

@pytest.mark.points(1)
def test_broadcast(student, probes):
    assert torch.equal(student(probes.answer) + torch.ones(2), torch.tensor([2.0, 3.0]))

@pytest.mark.points(1)
def test_grader_bug_on_the_wrong_path(student, probes):
    if student(probes.answer) is None:
        helper_that_does_not_exist()               # the assignment's bug: NameError
    assert True

@pytest.mark.points(1)
def test_fail_call(student, probes):
    if student(probes.answer) is None:
        pytest.fail("no answer")

@pytest.mark.points(1)
def test_host(student, probes):
    student(probes.answer)
    raise OSError(28, "No space left on device")
'''


@pytest.fixture
def suite(tmp_path):
    (tmp_path / "public").mkdir()
    (tmp_path / "public" / "test_x.py").write_text(TESTS)
    probes = probes_module(tmp_path, "def answer(ns):\n    return ns['x']\n", "probes_outcomes_test")
    plugin = GradingPlugin(student=_Fixed(None), reference=None, probes=probes, seeds=Seeds(b"k", "a"), test_timeout=10)
    with TestSuite([tmp_path / "public"], plugin, tmp_path) as s:
        yield s


def _run(suite, value, master=False):
    suite.plugin.bind(_Fixed(value), None, Seeds(b"k", "a"), master=master)
    suite.run()
    return {r.id.split("::")[1]: r for r in suite.plugin.results}


@pytest.mark.parametrize("value", [None, 3, torch.ones(3), "a string"])
def test_a_check_that_raises_on_a_wrong_value_fails_that_submission(suite, value):
    got = _run(suite, value)
    assert got["test_fail_call"].outcome == ("failed" if value is None else "passed")
    for name in ("test_shape", "test_length", "test_broadcast"):
        r = got[name]
        assert r.score == 0 and r.outcome in ("failed",), (name, r.outcome, r.message)
        if not r.message.startswith("assert"):
            assert r.message.startswith("your answer could not be checked"), r.message


def test_the_graders_and_the_hosts_faults_stay_errors(suite):
    got = _run(suite, None)
    assert got["test_grader_bug_on_the_wrong_path"].outcome == "error"  # NameError: a test bug
    assert got["test_host"].outcome == "error"  # OSError: the host
    assert "could not check" in got["test_host"].message


def test_on_the_master_every_raise_is_the_assignments_bug(suite):
    got = _run(suite, None, master=True)
    assert {n: got[n].outcome for n in ("test_shape", "test_length", "test_broadcast")} == dict.fromkeys(
        ("test_shape", "test_length", "test_broadcast"), "error"
    )
    assert _run(suite, torch.tensor([1.0, 2.0]))["test_shape"].outcome == "passed"  # and a bind resets it


@pytest.mark.parametrize(
    "exc",
    [
        MemoryError(),
        torch.OutOfMemoryError("CUDA out of memory"),
        RuntimeError("[enforce fail at alloc_cpu.cpp:117] DefaultCPUAllocator: can't allocate memory"),
    ],
)
def test_running_out_of_memory_in_the_judge_is_the_hosts(exc):
    assert _classify(exc)[0] == "error"
