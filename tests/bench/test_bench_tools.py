"""The benchmark's own pieces: the generated class, the floor's recording backend, the profile's grouping.

Fast unit tests (no sandbox, no grading run); `bench/run.py --copies 1` is the end-to-end check.
"""

from __future__ import annotations

import cProfile
import json
import os
import pstats
import sys
import time
import types
from pathlib import Path

import pytest
import torch

pytestmark = pytest.mark.serial  # the bench's samplers and timings, measured

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "bench"))

import class_stages  # noqa: E402
import floor  # noqa: E402
import profile_stages  # noqa: E402
import run  # noqa: E402
import test_costs  # noqa: E402


@pytest.mark.parametrize("assignment", ["01_tensors", "03_components"])
def test_samples_are_the_master_varied(assignment: str) -> None:
    master = (ROOT / "solutions" / f"{assignment}.ipynb").read_bytes()
    made = run.samples(assignment)
    assert set(made) == set(run.SAMPLES)
    assert made["perfect"] == master
    with pytest.raises(ValueError):
        json.loads(made["invalid_json"])
    cells = json.loads(master)["cells"]
    for name in ("partial", "exception_midway", "infinite_loop", "blank"):
        nb = json.loads(made[name])
        assert len(nb["cells"]) == len(cells), name  # the peers map cells by position
    text = {k: made[k].decode() for k in ("partial", "blank", "exception_midway", "infinite_loop")}
    assert "BEGIN SOLUTION" not in text["blank"] and "NotImplementedError" in text["blank"]
    assert "BEGIN SOLUTION" in text["partial"] and "NotImplementedError" in text["partial"]
    assert "bench: a broken cell" in text["exception_midway"] and "while True" in text["infinite_loop"]


def test_make_class_names_copies_by_sample(tmp_path: Path) -> None:
    klass = run.make_class(tmp_path, "01_tensors", 2, ["perfect", "blank"])
    assert [sid for sid, _ in klass] == ["perfect_000", "blank_000", "perfect_001", "blank_001"]
    assert all(p.is_file() for _, p in klass) and run.kind_of("blank_001") == "blank"


def test_recorder_keeps_copies_and_direct_runs_the_probe_under_its_seed() -> None:
    probes = types.ModuleType("probes")

    def draw(ns, xs):
        xs.append(torch.rand(1).item())  # mutates its argument: the recording must not see that
        return ns["scale"] * xs[-1]

    def boom(ns):
        raise ValueError("no")

    probes.draw, probes.boom = draw, boom
    calls: list = []
    backend = floor.Recorder(floor.Direct({"scale": 2.0}, probes), calls)
    a = backend.call("draw", ([1.0],), seed=7)
    b = backend.call("draw", ([1.0],), seed=7)
    assert a == b and 0 < a < 2  # the same seed, the same draw
    assert calls == [("draw", [[1.0]], {}, 7), ("draw", [[1.0]], {}, 7)]
    with pytest.raises(floor.ProbeError):
        backend.call("boom", (), seed=1)
    assert len(calls) == 3


def test_bare_backend_hands_back_the_probes_own_value_under_its_seed() -> None:
    probes = types.ModuleType("probes")
    kept = torch.zeros(2)
    probes.same = lambda ns, x: kept
    probes.draw = lambda ns: torch.rand(1).item()
    backend = floor.bare({}, probes)
    assert backend.call("same", (1,)) is kept  # no copy: the lower bound's run pays none
    assert backend.call("draw", seed=3) == backend.call("draw", seed=3)
    probes.boom = lambda ns: 1 / 0
    with pytest.raises(floor.ProbeError):
        backend.call("boom")


def test_in_fork_times_the_work_in_a_child() -> None:
    import time

    seen: list = []
    seconds = floor.in_fork(lambda: (seen.append(1), time.sleep(0.05)))
    assert 0.05 <= seconds < 5 and seen == []  # the child's append never reached this process
    with pytest.raises(RuntimeError):
        floor.in_fork(lambda: floor.os._exit(3))  # a child that dies without reporting


def test_transport_exchanges_every_message() -> None:
    seconds = floor.transport(cells=5, requests=3, replies=10)  # would hang if a message went missing
    assert 0 < seconds < 5


def test_module_of_groups_files() -> None:
    assert profile_stages.module_of("/k/autograder/execute/runner.py") == "autograder.execute"
    assert profile_stages.module_of("/v/lib/python3.11/site-packages/_pytest/main.py") == "_pytest"
    assert profile_stages.module_of("/v/lib/python3.11/site-packages/pluggy/_hooks.py") == "_pytest"
    assert profile_stages.module_of("/v/lib/python3.11/site-packages/torch/nn/modules/module.py") == "torch"
    assert profile_stages.module_of("/k/assignments/01_tensors/hidden/test_x.py") == "assignment tests"
    assert profile_stages.module_of(json.__file__) == "python stdlib"
    assert profile_stages.module_of(__file__) == "other"


def _busy_json() -> None:
    for _ in range(300):
        json.dumps(list(range(500)))


def _busy_json_profiled() -> pstats.Stats:
    """The profile of `_busy_json`: stdlib and C work called from this module, nothing of the engine."""
    prof = cProfile.Profile()
    prof.enable()
    _busy_json()
    prof.disable()
    return pstats.Stats(prof)


def test_by_module_charges_stdlib_and_c_time_to_the_caller() -> None:
    stats = _busy_json_profiled()
    here = profile_stages.module_of(__file__)
    modules = profile_stages.by_module(stats)
    total = sum(v[2] for v in stats.stats.values())  # type: ignore[attr-defined]
    assert "python stdlib" not in modules
    assert modules[here] > 0.8 * total  # json's encoder and its C parts, charged to this test's module
    assert sum(modules.values()) == pytest.approx(total, rel=1e-6)


def test_stages_sum_to_the_total() -> None:
    row = profile_stages.stages(_busy_json_profiled(), 1, 5.0)
    assert row["other"] == pytest.approx(5.0)  # nothing of the engine ran: every stage is 0
    assert sum(row.values()) == pytest.approx(5.0)


def test_class_stages_split_the_judging_from_its_proofs() -> None:
    """A pipeline of the same names (compiled under the engine's file name): each proof's time is inside its judging,
    and what neither the judging nor the reference pass took is the rest of the command."""
    engine: dict = {}
    source = (
        "import time\n"
        "def _prove_variant():\n    time.sleep(0.02)\n"
        "def _judge(lost):\n    time.sleep(0.01)\n    if lost:\n        _prove_variant()\n"
        "def _reference_pass():\n    time.sleep(0.03)\n"
    )
    exec(compile(source, "/k/autograder/pipeline.py", "exec"), engine)
    prof = cProfile.Profile()
    t0 = time.perf_counter()
    prof.enable()
    engine["_reference_pass"]()
    for lost in (True, False, True):
        engine["_judge"](lost)
    time.sleep(0.05)
    prof.disable()
    row = class_stages.split(pstats.Stats(prof), time.perf_counter() - t0)
    judging, proofs = (
        row["judging (cells, tests, proofs)"],
        row["variant proofs (the master on a losing student's variant)"],
    )
    assert (judging["calls"], proofs["calls"]) == (3, 2)
    assert 0.04 <= proofs["s"] < judging["s"]
    assert row["the rest of the command (intake, results, grades.csv)"]["s"] >= 0.05
    assert "02b_kernels: 8 notebooks" in class_stages.render(
        {
            "assignment": "02b_kernels",
            "notebooks": 8,
            "samples": ["perfect"],
            "total_s": 1.0,
            "execution_time_s": 0.5,
            "stages": row,
        }
    )


def test_summary_table_puts_each_assignment_against_its_floor() -> None:
    per = {
        "01_tensors": {
            "notebooks": 12,
            "ratios": {"median_per_submission_vs_floor": 3.0, "ours_vs_nbgrader-batch": 6.5},
            "floor": {"floor_s": 0.15, "cells_s": 0.05, "calls_s": 0.1},
            "summaries": {
                "ours": {
                    "submissions_per_min": 50.0,
                    "execution_time_excluding_timeouts": {"median": 0.6},
                    "overhead_excluding_timeouts": {"median": 0.25},
                    "by_kind": {"perfect": {"execution_time_median": 0.8}},
                }
            },
        },
        "00_devices": {"notebooks": 6, "ratios": {}, "summaries": {}},
    }
    lines = run.summary_table(per).splitlines()
    assert len(lines) == 4 and "perfect - student floor s" in lines[0]
    cols = lines[2].split()
    assert cols[:8] == ["01_tensors", "12", "50.0", "0.60", "0.80", "0.15", "3.0", "0.70"]  # 0.8 - (0.05 + 0.1/2)
    assert cols[8:] == ["0.25", "6.5", "NA"]
    assert lines[3].split()[0] == "00_devices" and lines[3].split()[2] == "NA"


def test_floor_measures_every_part_of_the_bound(tmp_path, monkeypatch) -> None:
    monkeypatch.chdir(tmp_path)  # what cells and probes save lands there, as in floor.main
    f = floor.measure("01_tensors")
    assert f["tests"] == f["tests_passed_inprocess"] > 0
    parts = ("pytest_checks_s", "forked_student_s", "copies_s", "transport_s")
    assert all(f[k] > 0 for k in parts) and f["bound_s"] == pytest.approx(sum(f[k] for k in parts))
    assert f["floor_s"] == pytest.approx(f["cells_s"] + f["calls_s"]) and f["inprocess_pytest_bare_s"] > 0


@pytest.mark.parametrize("pss", [False, True])
def test_memory_sampler_reads_page_tables_only_when_asked(pss: bool, monkeypatch) -> None:
    """The timed runs sample VmHWM from /proc/<pid>/status only: reading smaps_rollup (psutil's
    memory_full_info) slowed the grader it measured, so only the `ours-memory` run does."""
    import subprocess

    import memsample
    import psutil

    walked: list[int] = []
    full = psutil.Process.memory_full_info

    def counting(self):  # type: ignore[no-untyped-def]
        walked.append(self.pid)
        return full(self)

    monkeypatch.setattr(psutil.Process, "memory_full_info", counting)
    child = subprocess.Popen(
        [sys.executable, "-c", "import time; b = bytearray(64 << 20); print('made', flush=True); time.sleep(30)"],
        stdout=subprocess.PIPE,
    )
    try:
        # every page written before the first sample: a busy host can stop the child half way through them
        assert child.stdout is not None and child.stdout.readline() == b"made\n"
        sampler = memsample.Sampler(
            memsample.self_pid(), lambda cmd, p: "child" if "bytearray" in cmd else None, interval=0.05, pss=pss
        )
        for _ in range(100):
            sampler.sample()
            role = sampler.by_role().get("child")
            if role and role["peak_hwm_mib"] >= 64:
                break
            time.sleep(0.05)
    finally:
        child.kill()
        child.wait()
    role = sampler.by_role()["child"]
    assert role["peak_hwm_mib"] >= 64 and role["peak_rss_mib"] >= 64
    if pss:
        assert walked and role["peak_pss_mib"] >= 64 and role["peak_uss_mib"] >= 64
    else:
        assert not walked and role["peak_pss_mib"] is None and sampler.summary()["tree_peak_pss_mib"] is None


def test_test_costs_charges_each_call_to_its_test_and_side(tmp_path, monkeypatch) -> None:
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("AUTOGRADER_SECRET", "restored-after-the-test")  # measure() sets its own
    m = test_costs.measure("01_tensors", "bench-test-costs", rounds=1)
    assert m["passed"] == m["tests"] > 0 and m["rows"]
    assert all(r["outcome"] == "passed" and r["calls"] > 0 for r in m["rows"])
    assert m["student_cpu_s"] > 0 and m["reference_cpu_s"] > 0
    assert m["student_cpu_s"] + m["reference_cpu_s"] <= m["run_cpu_s"] * 1.05  # the calls are part of the run


def test_floor_starts_tensorflow_as_a_worker_does() -> None:
    """A TensorFlow floor runs without Grappler and at the worker's thread share, as the kit's workers do (a fit
    with Grappler cost up to twice a worker's: the floor was above what the kit graded in)."""
    import subprocess

    code = (
        "import sys; sys.path[:0] = [sys.argv[1], sys.argv[2]]\n"
        "import floor, tensorflow as tf\n"
        "from autograder.config.assignment import load_assignment\n"
        "a = load_assignment('tf01_bricks', floor.KIT)\n"
        "floor.start_framework(a); floor.start_framework(a)  # twice: TensorFlow's pools are set once\n"
        "print(tf.config.optimizer.get_experimental_options().get('disable_meta_optimizer'),"
        " tf.config.threading.get_intra_op_parallelism_threads() == max(1, a.limits.threads))\n"
    )
    out = subprocess.run(
        [sys.executable, "-c", code, str(ROOT / "bench"), str(ROOT)],
        capture_output=True,
        text=True,
        timeout=300,
        env={**os.environ, "TF_CPP_MIN_LOG_LEVEL": "3"},
    )
    assert out.returncode == 0, out.stderr[-2000:]
    assert out.stdout.split() == ["True", "True"]


def test_the_f_once_rule_pools_its_tries_and_decides_on_none_alone() -> None:
    """02's "f evaluated once" verdicts as bench/once_ratio.py replays them: never on one try, a slow moment diluted
    by the next try (f once keeps its point, f twice gets no free one), a pooled ratio in between measured again up
    to the last try, then split."""
    import once_ratio

    rule = once_ratio._module(once_ratio.TEST).once_or_more
    assert once_ratio._decisions([(1.0, 1.0)], rule) == []  # one try decides nothing
    assert once_ratio._decisions([(1.0, 1.0), (1.02, 1.0)], rule) == [(True, 2)]
    assert once_ratio._decisions([(2.0, 1.0), (1.9, 1.0)], rule) == [(False, 2)]
    assert once_ratio._decisions([(1.5, 1.0), (1.0, 1.0)], rule) == [(True, 2)]  # f once, one slow moment
    assert once_ratio._decisions([(1.25, 1.0), (1.95, 1.0), (2.0, 1.0)], rule) == [(False, 3)]  # twice, a lucky one
    assert once_ratio._decisions([(1.5, 1.0)] * 4, rule) == [(False, 4)]  # in between to the end: split
    assert once_ratio._decisions([(1.45, 1.0)] * 4, rule) == [(True, 4)]
