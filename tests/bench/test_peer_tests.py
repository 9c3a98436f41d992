"""The peers' tests (bench/peer_tests.py) and how bench/peers.py lays them out, checked without running a peer.

`bench/run.py --only nbgrader-batch,otter --copies 1 --samples perfect,partial,blank` is the end-to-end check
(master full marks, blank 0, partial in between, in both graders).
"""

from __future__ import annotations

import ast
import json
import re
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "bench"))

import peer_tests  # noqa: E402
import peers  # noqa: E402

ASSIGNMENTS = sorted(p.name for p in (ROOT / "assignments").iterdir() if (p / "manifest.toml").is_file())
# top-level modules a master imports -> the distribution that provides it
DISTRIBUTIONS = {
    "torch": "torch",
    "numpy": "numpy",
    "triton": "triton",
    "pandas": "pandas",
    "matplotlib": "matplotlib",
    "tensorflow": "tensorflow-cpu",
    "keras": "tensorflow-cpu",
}  # TensorFlow brings its Keras


def _code_cells(assignment: str) -> list[str]:
    nb = json.loads((ROOT / "solutions" / f"{assignment}.ipynb").read_text())
    return ["".join(c["source"]) for c in nb["cells"] if c["cell_type"] == "code"]


def _checked_exercises(assignment: str) -> list[str]:
    return [ex for ex in map(peer_tests.exercise_of_check_cell, _code_cells(assignment)) if ex]


def test_every_assignment_has_peer_tests() -> None:
    assert ASSIGNMENTS and sorted(peer_tests.TESTS) == ASSIGNMENTS
    assert peers.ASSIGNMENTS == tuple(peer_tests.TESTS)


@pytest.mark.parametrize("assignment", ASSIGNMENTS)
def test_one_peer_test_per_checked_exercise_in_notebook_order(assignment: str) -> None:
    checked = _checked_exercises(assignment)
    assert checked and len(set(checked)) == len(checked)
    assert [ex for ex, _ in peer_tests.TESTS[assignment]] == checked


def test_check_cells_alone_or_after_demo_code() -> None:
    assert peer_tests.exercise_of_check_cell('check("views")') == "views"
    assert peer_tests.exercise_of_check_cell('net = make()\nprint(net)\ncheck("linear")\n') == "linear"
    assert (
        peer_tests.exercise_of_check_cell('from autograder.student.selfcheck import Checker\ncheck = Checker("x")')
        is None
    )
    assert peer_tests.exercise_of_check_cell('# check("views") later') is None


@pytest.mark.parametrize("assignment", ASSIGNMENTS)
def test_lines_are_single_statements_doctest_can_run(assignment: str) -> None:
    for ex, lines in peer_tests.TESTS[assignment]:
        assert lines, ex
        for line in lines:
            where = f"{assignment}/{ex}: {line}"
            assert "\n" not in line, where
            compile(line, "<peer test>", "single")  # one interactive statement, as doctest runs a `>>>` line
            for stmt in ast.parse(line).body:
                # a simple statement; no bare expression (its value would be doctest output: a failure in otter)
                assert isinstance(stmt, (ast.Assert, ast.Assign, ast.AugAssign, ast.Import)), where
                targets = (
                    stmt.targets
                    if isinstance(stmt, ast.Assign)
                    else [stmt.target]
                    if isinstance(stmt, ast.AugAssign)
                    else []
                )
                names = [
                    n.id
                    for t in targets
                    for n in ast.walk(t)
                    if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Store)
                ]
                assert all(n.startswith("_") for n in names), f"helpers start with '_': {where}"


@pytest.mark.parametrize("assignment", ASSIGNMENTS)
def test_nbgrader_source_has_a_graded_cell_after_each_check(assignment: str) -> None:
    nb = peers._nbgrader_source_notebook(assignment)
    cells = nb["cells"]
    graded = [(i, c) for i, c in enumerate(cells) if c.get("metadata", {}).get("nbgrader", {}).get("grade")]
    assert [c["metadata"]["nbgrader"]["grade_id"] for _, c in graded] == [
        f"test_{ex}" for ex in _checked_exercises(assignment)
    ]
    assert sum(c["metadata"]["nbgrader"]["points"] for _, c in graded) == peer_tests.POINTS * len(
        peer_tests.TESTS[assignment]
    )
    for i, c in graded:
        ex = c["metadata"]["nbgrader"]["grade_id"][len("test_") :]
        assert peer_tests.exercise_of_check_cell("".join(cells[i - 1]["source"])) == ex
    assert any(c.get("metadata", {}).get("nbgrader", {}).get("solution") for c in cells)


@pytest.mark.parametrize("assignment", ASSIGNMENTS)
def test_otter_tests_are_doctests_of_the_same_lines(assignment: str, tmp_path: Path) -> None:
    peers._otter_tests(assignment, tmp_path)
    for ex, lines in peer_tests.TESTS[assignment]:
        ns: dict = {}
        exec((tmp_path / f"{ex}.py").read_text(), ns)
        test = ns["test"]
        assert ns["OK_FORMAT"] is True and test["name"] == ex and test["points"] == peer_tests.POINTS
        (suite,) = test["suites"]
        assert suite["type"] == "doctest" and suite["cases"][0]["code"] == "".join(f">>> {x}\n" for x in lines)


def test_peer_venvs_pin_tensorflow_as_the_kit_does() -> None:
    """A ratio compares like with like: the peers' notebooks import the TensorFlow the kit's `tensorflow` extra
    pins, with its ml_dtypes (0.7.0's import cost each peer kernel 0.55 s of CPU that the kit's workers do not pay),
    and so does the kit's own install."""
    from packaging.requirements import Requirement

    from autograder.config.compat import tomllib

    extra = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]["optional-dependencies"]["tensorflow"]
    pins = [r.split(";")[0].strip() for r in extra if Requirement(r).marker is None or Requirement(r).marker.evaluate()]
    assert pins and set(pins) <= set(peers.NOTEBOOK_PACKAGES), (pins, peers.NOTEBOOK_PACKAGES)
    # and `make install`, which installs TensorFlow by its TF_SPEC, adds the extra's other pins to it
    make = (ROOT / "Makefile").read_text()
    install = next(line for line in make.splitlines() if "pip install -q $(TF_SPEC)" in line)
    assert all(f'"{p}"' in install for p in pins if not p.startswith("tensorflow")), install


@pytest.mark.parametrize("assignment", ASSIGNMENTS)
def test_peer_venvs_have_what_the_master_imports(assignment: str) -> None:
    installed = {re.split(r"[=<>]", p)[0] for p in peers.NOTEBOOK_PACKAGES}
    for name in ("nbgrader", "otter"):
        assert set(peers.NOTEBOOK_PACKAGES) <= set(peers.PACKAGES[name])
    for src in _code_cells(assignment):
        for node in ast.walk(ast.parse(src)):
            mods = (
                [a.name for a in node.names]
                if isinstance(node, ast.Import)
                else [node.module]
                if isinstance(node, ast.ImportFrom) and node.module and not node.level
                else []
            )
            for mod in mods:
                top = mod.split(".")[0]
                if (
                    top in sys.stdlib_module_names or top == "autograder"
                ):  # the stub provides autograder.student.selfcheck
                    continue
                assert DISTRIBUTIONS.get(top) in installed, f"{assignment} imports {mod}: not in the peers' venvs"


def test_peers_keep_their_temporary_files_in_the_bench_work_folder(tmp_path: Path, monkeypatch) -> None:
    """A peer runs the notebooks unsandboxed: what their cells leave in the temporary folder (tf02b's builds of their
    op) lands in the bench's work folder, which goes when the bench ends, not in the host's /tmp."""
    import subprocess

    monkeypatch.setenv("AUTOGRADER_WORKER", "1")
    env = peers._peer_env(Path(sys.executable).parent, tmp_path / "course" / "tmp")
    assert "AUTOGRADER_WORKER" not in env and env["PATH"].startswith(f"{Path(sys.executable).parent}:")
    code = "import tempfile; print(tempfile.mkdtemp(prefix='kit-ops-'))"
    made = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True, check=True).stdout
    assert Path(made.strip()).parent == tmp_path / "course" / "tmp"
