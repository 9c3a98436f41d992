"""Two assignments with same-named test files, judged in one process, each run their own tests.

(pytest's importlib mode keys test modules by their path under the rootdir, e.g.
`hidden.test_linear_regression`, and reuses a cached module of that name.)
"""

from pathlib import Path

from autograder.execute.backend import ProbeBackend
from autograder.judge.plugin import GradingPlugin
from autograder.judge.suite import run_tests
from autograder.probe.seeds import Seeds
from tests.probe.probes_file import probes_module


class _Echo(ProbeBackend):
    def call(self, probe, args=(), kwargs=None, *, seed=0, timeout=None):
        return args[0]


def _run(root: Path, i: int) -> list[tuple[str, str]]:
    for kind in ("public", "hidden"):
        (root / kind).mkdir(parents=True)
        (root / kind / "test_same.py").write_text(
            f"import pytest\n\n@pytest.mark.points(1)\ndef test_{kind}(student, probes):\n"
            f"    assert student(probes.echo{i}, {i}) == {i}\n"
        )
    probes = probes_module(root, f"def echo{i}(ns, x):\n    return x\n", f"probes_isolation_{i}")
    plugin = GradingPlugin(
        student=_Echo(),
        reference=None,
        probes=probes,
        seeds=Seeds(b"k", "a"),
        test_timeout=10,
        hidden_dir=root / "hidden",
    )
    run_tests([root / "public", root / "hidden"], plugin, root)
    return [(r.id, r.outcome) for r in plugin.results]


def test_same_named_test_files_do_not_leak_between_assignments(tmp_path):
    expected = [("public/test_same.py::test_public", "passed"), ("hidden/test_same.py::test_hidden", "passed")]
    assert _run(tmp_path / "a0", 0) == expected
    assert _run(tmp_path / "a1", 1) == expected
