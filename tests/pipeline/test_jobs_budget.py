"""--jobs is capped so that the jobs' memory caps fit in the memory budget."""

import subprocess
import sys

from hypothesis import given
from hypothesis import strategies as st

from autograder.pipeline import JUDGE_MB, MASTER_WORKER_MB, ZYGOTE_MB, jobs_within


@given(
    requested=st.integers(1, 256),
    worker_mb=st.integers(64, 65536),
    budget_mb=st.integers(0, 2**20),
    workers=st.integers(1, 2),
)
def test_jobs_fit_the_budget(requested, worker_mb, budget_mb, workers):
    jobs = jobs_within(requested, worker_mb, budget_mb, workers)
    assert 1 <= jobs <= requested
    per_job = worker_mb + (workers - 1) * min(worker_mb, MASTER_WORKER_MB) + JUDGE_MB
    if jobs > 1:  # never more than fits (one job always runs, even on a tiny budget)
        assert ZYGOTE_MB + jobs * per_job <= budget_mb
    if jobs < requested:  # and never fewer than fit
        assert ZYGOTE_MB + (jobs + 1) * per_job > budget_mb


def test_cli_lowers_jobs_and_says_so(toy_kit, tmp_path):
    # toy's memory_mb is its manifest's; 2 GiB cannot hold 8 such jobs
    cmd = [
        sys.executable,
        "-m",
        "autograder",
        "--kit",
        str(toy_kit),
        "grade",
        "toy",
        str(toy_kit / "solutions" / "toy.ipynb"),
        "--out",
        str(tmp_path / "r"),
        "--jobs",
        "8",
        "--memory-budget",
        "2",
    ]
    r = subprocess.run(cmd, capture_output=True, text=True)
    assert r.returncode == 0, r.stderr
    assert "--jobs 8 lowered to" in r.stderr and "10/10" in r.stdout
    assert "the master's worker" in r.stderr  # per-student variants: the judge keeps the master's worker
    bad = subprocess.run(cmd[:-4] + ["--jobs", "many"], capture_output=True, text=True)
    assert bad.returncode == 2 and "not a number or 'auto'" in bad.stderr


def test_two_jobs_fit_where_the_master_is_counted_at_its_use():
    # a 24 GiB box's default budget (80 % of ~22 GiB available): two jobs of a 4096 MiB assignment, each the
    # student's worker at its cap, the master's at what it uses, and a judge; the caps alone (2 x 4096 + 512)
    # fit only one in 17.5 GB
    assert jobs_within(2, 4096, 17500, workers=2) == 2
    assert jobs_within(2, 4096, 17500, workers=1) == 2
    # the student's worker is never counted below its cap: a hostile notebook may fill it
    assert jobs_within(8, 4096, ZYGOTE_MB + 2 * (4096 + JUDGE_MB) + 100, workers=1) == 2
