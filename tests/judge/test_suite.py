"""An assignment's tests are collected once per process and run against one submission after another
(`judge.suite`): nothing of one submission's run may reach the next one's results."""

from pathlib import Path

from autograder.execute.backend import ProbeBackend, ProbeError
from autograder.judge.plugin import GradingPlugin
from autograder.judge.suite import TestSuite, close_suite, open_suite, run_tests
from autograder.probe.seeds import Seeds
from tests.probe.probes_file import probes_module

TESTS = '''
import pytest

@pytest.fixture(scope="session")
def session_list():
    return []          # a new list per submission: session fixtures are torn down after each run

@pytest.mark.points(4)
def test_partial(student, probes, credit, session_list):
    session_list.append(1)
    assert len(session_list) == 1
    got = student(probes.answer, 1)
    credit.award(0.5, "half")
    assert got == 2

@pytest.mark.points(2)
def test_setup_can_fail(broken_fixture):
    pass

@pytest.mark.points(2)
def test_credit_after_a_fixture(broken_fixture, credit):
    credit.award(0.5, "half")    # never reached when the fixture fails: no credit from an earlier run
    assert False

@pytest.fixture
def broken_fixture(student, probes):
    if student(probes.answer, 0) == "boom":
        raise RuntimeError("fixture failed")
    return 1
'''


class _Fixed(ProbeBackend):
    def __init__(self, value):
        self.value, self.calls = value, 0

    def call(self, probe, args=(), kwargs=None, *, seed=0, timeout=None):
        self.calls += 1
        if isinstance(self.value, Exception):
            raise self.value
        return self.value


def _kit(root: Path):
    (root / "public").mkdir(parents=True)
    (root / "public" / "test_x.py").write_text(TESTS)
    return probes_module(root, "def answer(ns, x):\n    return x\n", "probes_suite_test")


def _plugin(probes, backend):
    return GradingPlugin(student=backend, reference=None, probes=probes, seeds=Seeds(b"k", "a"), test_timeout=10)


def _outcomes(results):
    return [(r.id.split("::")[1], r.outcome, r.score) for r in results]


def test_a_reused_suite_gives_each_submission_what_a_fresh_one_would(tmp_path):
    probes = _kit(tmp_path)
    backends = [
        _Fixed(2),
        _Fixed("boom"),
        _Fixed(3),
        _Fixed(ProbeError({"type": "ValueError", "message": "no"})),
        _Fixed(2),
    ]
    fresh = []
    for b in backends:
        plugin = _plugin(probes, b)
        run_tests([tmp_path / "public"], plugin, tmp_path)
        fresh.append(_outcomes(plugin.results))
    assert fresh[0] == [
        ("test_partial", "partial", 2.0),
        ("test_setup_can_fail", "passed", 2.0),
        ("test_credit_after_a_fixture", "partial", 1.0),
    ]
    assert fresh[1][1:] == [("test_setup_can_fail", "failed", 0.0), ("test_credit_after_a_fixture", "failed", 0.0)]
    assert fresh[3][0] == ("test_partial", "failed", 0.0)

    with TestSuite([tmp_path / "public"], _plugin(probes, backends[0]), tmp_path) as suite:
        reused = []
        for b in backends:
            suite.plugin.bind(b, None, Seeds(b"k", "a"))
            suite.run()
            reused.append(_outcomes(suite.plugin.results))
    assert reused == fresh


def test_open_suite_keeps_one_suite_and_recollects_for_another_key(tmp_path):
    probes = _kit(tmp_path)
    made = []

    def make():
        made.append(1)
        return _plugin(probes, _Fixed(2))

    try:
        a = open_suite(("a", "v1"), [tmp_path / "public"], make, tmp_path)
        assert open_suite(("a", "v1"), [tmp_path / "public"], make, tmp_path) is a and len(made) == 1
        b = open_suite(("a", "v2"), [tmp_path / "public"], make, tmp_path)
        assert b is not a and len(made) == 2
        a_items = a.items
        assert a_items and a._config is None  # the replaced suite was closed
    finally:
        close_suite()


def test_failures_are_reported_without_formatting_a_traceback(tmp_path, monkeypatch):
    """pytest's traceback formatting cost 12-37 ms per failing test (a blank notebook fails them all);
    the plugin's plain report skips it, and the result's message still says what failed."""
    import _pytest.nodes

    calls, original = [], _pytest.nodes.Node._repr_failure_py

    def formatted(*args, **kwargs):
        calls.append(1)
        return original(*args, **kwargs)

    probes = _kit(tmp_path)
    plugin = _plugin(probes, _Fixed(ProbeError({"type": "NotImplementedError", "message": "stub", "frames": []})))
    with monkeypatch.context() as m:
        m.setattr(_pytest.nodes.Node, "_repr_failure_py", formatted)
        run_tests([tmp_path / "public"], plugin, tmp_path)
    assert calls == []
    from autograder.notebook.stub import not_answered

    assert [(r.outcome, r.message) for r in plugin.results][0] == ("failed", not_answered([]))  # a stub, in words


def test_the_grading_machines_pytest_environment_cannot_change_grades(tmp_path, monkeypatch):
    """A plugin on the grading machine (here one named by PYTEST_PLUGINS that passes every test, and every
    installed entry-point plugin such as hypothesis') and options in PYTEST_ADDOPTS do not reach a judge."""
    probes = _kit(tmp_path)
    (tmp_path / "site").mkdir()
    (tmp_path / "site" / "everything_passes.py").write_text(
        "import pytest\n"
        "@pytest.hookimpl(hookwrapper=True)\n"
        "def pytest_runtest_makereport(item, call):\n"
        "    outcome = yield\n"
        "    outcome.get_result().outcome = 'passed'\n"
    )
    monkeypatch.syspath_prepend(str(tmp_path / "site"))
    monkeypatch.setenv("PYTEST_PLUGINS", "everything_passes")
    monkeypatch.setenv("PYTEST_ADDOPTS", "--maxfail=1 -p no:autograder-does-not-exist")
    monkeypatch.delenv("PYTEST_DISABLE_PLUGIN_AUTOLOAD", raising=False)
    wrong = _Fixed(ProbeError({"type": "ValueError", "message": "no", "frames": []}))
    with TestSuite([tmp_path / "public"], _plugin(probes, wrong), tmp_path) as suite:
        plugins = {name for name, _ in suite._config.pluginmanager.list_name_plugin()}
        suite.run()
        results = _outcomes(suite.plugin.results)
    assert "everything_passes" not in plugins and not any("hypothesis" in p for p in plugins), plugins
    assert [r[0] for r in results] == [
        "test_partial",
        "test_setup_can_fail",
        "test_credit_after_a_fixture",
    ]  # no --maxfail
    assert all(outcome == "failed" and score == 0 for _, outcome, score in results), results
    import os

    assert os.environ["PYTEST_PLUGINS"] == "everything_passes"  # the judge's own environment is restored
