"""The bench's class-bound tools, on what they report rather than on timings: they run among the parallel tests
(bench/worker_cpu.py grades 02b_kernels' samples; bench/cores.py times sleeps)."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest
import torch

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "bench"))

import cores  # noqa: E402
import worker_cpu  # noqa: E402


def test_worker_cpu_reads_each_workers_part(monkeypatch) -> None:
    """02b_kernels: a correct notebook's cells, calls, four fresh workers (the kit's C and Triton runs) and the
    master's answers; a partial one's variant proof runs the master; a blank one runs nothing fresh.  The runner's
    methods are given back afterwards, and the judge's torch threads.  A class's bound sums those parts."""
    from autograder.execute.runner import NotebookRunner

    methods, threads = (NotebookRunner.execute, NotebookRunner.close), torch.get_num_threads()
    monkeypatch.setenv("AUTOGRADER_SECRET", "bench-worker-cpu")
    m = worker_cpu.measure("02b_kernels", ["perfect", "partial", "blank"])
    perfect, partial, blank = m["rows"]
    assert perfect["score"] == 100 and perfect["fresh_workers"] == 4
    assert perfect["student_calls_cpu_s"] > perfect["student_cells_cpu_s"] > 0 and perfect["master_cpu_s"] > 0
    assert 0 < perfect["largest_fresh_cpu_s"] < perfect["fresh_cpu_s"] and perfect["proof"]["master_s"] == 0
    assert partial["score"] < 100 and partial["proof"]["master_s"] > 0
    assert blank["fresh_workers"] == 0 and m["gate"]["master_cpu_s"] > 0 and m["gate"]["fresh_cpu_s"] > 0
    one = (  # the bound counts the largest fresh worker of each notebook, not all of them, and no judge
        perfect["student_cells_cpu_s"] + perfect["student_calls_cpu_s"] + perfect["largest_fresh_cpu_s"]
    ) + perfect["master_cpu_s"]
    assert worker_cpu.bound({**m, "rows": [perfect]}, 3) == pytest.approx(
        3 * one + m["gate"]["master_cpu_s"] + m["gate"]["fresh_cpu_s"]
    )
    assert (NotebookRunner.execute, NotebookRunner.close) == methods and torch.get_num_threads() == threads


def test_cores_times_each_work_alone_and_two_at_once(monkeypatch) -> None:
    """Two jobs' speedup is 2 x one alone / two at once, by the wall clock; a failing command is an error."""
    monkeypatch.setattr(
        cores, "_commands", lambda work: {"sleep": [sys.executable, "-c", "import time; time.sleep(0.3)"]}
    )
    m = cores.measure(rounds=1)
    row = m["rows"]["sleep"]
    assert row["alone_wall_s"] >= 0.3 and row["paired_wall_s"] >= 0.3 and row["alone_cpu_s"] < 0.3
    assert row["speedup"] == pytest.approx(2 * row["alone_wall_s"] / row["paired_wall_s"], abs=0.01)
    with pytest.raises(RuntimeError, match="failed with status 3"):
        cores._run([[sys.executable, "-c", "raise SystemExit(3)"]])
