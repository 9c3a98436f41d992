"""A looping answer to a cost-checked exercise costs about as much to grade as a correct one, and says why.

The demo class's `partial` notebook of 01_tensors answers `pairwise_distances` with a double Python loop (a very
common answer).  Its cost checks (`assert_loop_free`, public and hidden) stop the loop as soon as it has spent
its CPU budget (`NotebookRunner.call_costed`), never run the same call twice (`CostLedger`), and the hidden
test's feedback gives the reason in the student's words, whatever the feedback policy withholds.

Measured as CPU seconds the judge read from /proc for the student's costed calls, master and loop side by side
in one process: robust to a loaded host, which stretches wall time but not CPU time.
"""
from __future__ import annotations

from pathlib import Path

import pytest

from autograder.config.assignment import load_assignment
from autograder.execute import runner as runner_module
from autograder.execute.runner import OverBudget
from autograder.judge.session import GradeOptions, close_references, grade_notebook

FILES = ["public/test_vectorised.py", "hidden/test_vectorised.py"]


@pytest.fixture()
def costed_cpu(monkeypatch):
    """Per call of `call_costed`: the CPU seconds it spent (a stopped call: when it was stopped)."""
    spent: list[float] = []
    real = runner_module.NotebookRunner.call_costed

    def counted(self, *args, **kwargs):
        try:
            value, cpu = real(self, *args, **kwargs)
        except OverBudget as exc:
            spent.append(exc.cpu)
            raise
        spent.append(cpu)
        return value, cpu

    monkeypatch.setattr(runner_module.NotebookRunner, "call_costed", counted)
    return spent


def test_a_looping_answer_costs_at_most_a_second_more_than_the_master(kit_root, tmp_path, costed_cpu):
    assignment = load_assignment("01_tensors", kit_root)
    options = GradeOptions(device="cpu", cache_dir=tmp_path / "cache")
    graded = {}
    try:
        for name, notebook in [("master", assignment.solution),
                               ("loop", kit_root / "examples" / "submissions" / "01_tensors" / "partial.ipynb")]:
            costed_cpu.clear()
            graded[name] = grade_notebook(assignment, Path(notebook), submission_id=name, options=options,
                                          test_files=FILES), sum(costed_cpu), len(costed_cpu)
    finally:
        close_references()
    (master, master_cpu, _), (loop, loop_cpu, loop_calls) = graded["master"], graded["loop"]
    assert master.score == master.max_score
    assert loop_cpu - master_cpu <= 1.0, (master_cpu, loop_cpu)
    assert loop_calls <= 2  # one stopped call per cost test: never measured again
    by_test = {t.id.split("::")[0] + "::" + t.id.split("::")[1].split("[")[0]: t for t in loop.tests}
    for test_id in ("public/test_vectorised.py::test_pairwise_distances_no_loops",
                    "hidden/test_vectorised.py::test_no_python_loops"):
        t = by_test[test_id]
        shown = t.student_output(loop.hidden_policy)
        assert t.outcome == "failed" and t.score == 0, (test_id, t.outcome, shown)
        assert "pairwise_distances" in shown and "took more than" in shown and "where vectorised code takes under" in shown, shown
        assert "loops in Python" in shown, shown
    # wall time, loosely (a loaded host stretches it): the loop's tests are not the 15-s stops they would be
    assert sum(t.duration for t in loop.tests) <= sum(t.duration for t in master.tests) + 8.0
