"""Grading on a real dask.distributed cluster (LocalCluster on loopback) gives the local results."""

import pytest

from autograder.config.assignment import load_assignment
from autograder.intake.submissions import Submission
from autograder.judge.session import GradeOptions
from autograder.pipeline import grade_class
from autograder.student.release import release

distributed = pytest.importorskip("dask.distributed")


def test_dask_local_cluster_matches_expected_scores(toy_kit, tmp_path):
    a = load_assignment("toy", toy_kit)
    blank = release(toy_kit, "toy", tmp_path / "student")[0]
    subs = [Submission(f"s{i}", a.solution if i % 2 else blank, f"s{i}.ipynb") for i in range(6)]
    with distributed.LocalCluster(
        n_workers=2, threads_per_worker=1, processes=True, host="127.0.0.1", dashboard_address=None
    ) as cluster:
        run = grade_class(
            a, subs, out=tmp_path / "results", options=GradeOptions(), scheduler=cluster.scheduler_address
        )
    assert [r.score for r in run.results] == [0, 10, 0, 10, 0, 10]
    assert all(r.status == "graded" for r in run.results)
    assert (tmp_path / "results" / "toy" / "s1" / "results.json").is_file()
