"""A looping answer to a cost-checked exercise costs about as much to grade as a correct one, and says why.

The demo class's `partial` notebook of 01_tensors answers `pairwise_distances` with a double Python loop (a very
common answer).  Its cost checks (`assert_loop_free`, public and hidden) stop the loop as soon as it has spent
its CPU budget (`NotebookRunner.call_costed`), never run the same call twice (`CostLedger`), and the hidden
test's feedback gives the reason in the student's words, whatever the feedback policy withholds.

Measured as CPU seconds the judge read from /proc for the student's costed calls, master and loop side by side
in one process: robust to a loaded host, which stretches wall time but not CPU time.  The budget a loop may
spend is set from the reference's own CPU time (`assert_loop_free`), which a loaded host raises a little; so
the loop is held to the budget it was given, and the budget to that of code taking a few hundredths.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from autograder.config.assignment import load_assignment
from autograder.execute import runner as runner_module
from autograder.execute.runner import WATCH_EVERY, OverBudget
from autograder.judge.checks import LOOP_FLOOR, LOOP_MARGIN, LOOP_RATIO
from autograder.judge.session import GradeOptions, close_references, grade_notebook

FILES = ["public/test_vectorised.py", "hidden/test_vectorised.py"]
# How far past its budget a watched call may run before it is stopped: one look every WATCH_EVERY seconds, the
# clock tick /proc counts in, and killing the worker.
OVERSHOOT = 4 * WATCH_EVERY + 0.05
# The most a cost test's budget may be: the reference's vectorised pairwise_distances takes a few hundredths of
# a second of CPU (here 0.01-0.06 s: budgets 0.3-0.64 s); 0.1 s allows a loaded host that slows its caches.
MAX_BUDGET = LOOP_MARGIN * max(LOOP_FLOOR, LOOP_RATIO * 0.1)


@pytest.fixture()
def costed_cpu(monkeypatch):
    """Per call of `call_costed`: the CPU seconds it spent (a stopped call: when it was stopped), its budget,
    and whether it was stopped."""
    spent: list[tuple[float, float | None, bool]] = []
    real = runner_module.NotebookRunner.call_costed

    def counted(self, *args, **kwargs):
        try:
            value, cpu = real(self, *args, **kwargs)
        except OverBudget as exc:
            spent.append((exc.cpu, kwargs.get("budget"), True))
            raise
        spent.append((cpu, kwargs.get("budget"), False))
        return value, cpu

    monkeypatch.setattr(runner_module.NotebookRunner, "call_costed", counted)
    return spent


def test_a_looping_answer_costs_its_budget_not_its_minute(kit_root, tmp_path, costed_cpu):
    assignment = load_assignment("01_tensors", kit_root)
    options = GradeOptions(device="cpu", cache_dir=tmp_path / "cache")
    graded = {}
    try:
        for name, notebook in [
            ("master", assignment.solution),
            ("loop", kit_root / "examples" / "submissions" / "01_tensors" / "partial.ipynb"),
        ]:
            costed_cpu.clear()
            graded[name] = (
                grade_notebook(assignment, Path(notebook), submission_id=name, options=options, only=FILES),
                list(costed_cpu),
            )
    finally:
        close_references()
    (master, master_calls), (loop, loop_calls) = graded["master"], graded["loop"]
    assert master.score == master.max_score
    assert not any(stopped for _, _, stopped in master_calls), master_calls
    assert 1 <= len(loop_calls) <= 2, loop_calls  # one stopped call per cost test: never measured again
    for cpu, budget, stopped in loop_calls:
        assert stopped and budget is not None, loop_calls  # the loop was stopped, not run to its end
        assert budget <= MAX_BUDGET, loop_calls  # a loop-sized budget, not a minute
        assert cpu <= budget + OVERSHOOT, loop_calls  # stopped as soon as it was spent
    by_test = {t.id.split("::")[0] + "::" + t.id.split("::")[1].split("[")[0]: t for t in loop.tests}
    for test_id in (
        "public/test_vectorised.py::test_pairwise_distances_no_loops",
        "hidden/test_vectorised.py::test_no_python_loops",
    ):
        t = by_test[test_id]
        shown = t.student_output(loop.hidden_policy)
        assert t.outcome == "failed" and t.score == 0, (test_id, t.outcome, shown)
        assert (
            "pairwise_distances" in shown and "took more than" in shown and "where vectorised code takes under" in shown
        ), shown
        assert "loops in Python" in shown, shown
    # wall time, loosely (a loaded host stretches it): the loop's tests are not the 15-s stops they would be
    assert sum(t.duration for t in loop.tests) <= sum(t.duration for t in master.tests) + 8.0
