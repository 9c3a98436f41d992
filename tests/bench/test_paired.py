"""bench/paired.py: two checkouts grading one class at once, one core each."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "bench"))

import paired  # noqa: E402


def _results(folder: Path, scores: dict[str, float], times: dict[str, float]) -> Path:
    for sid, score in scores.items():
        path = folder / "01_tensors" / sid / "instructor.json"
        path.parent.mkdir(parents=True)
        record = {"submission_id": sid, "status": "graded", "score": score, "execution_time": times[sid]}
        path.write_text(json.dumps(record))
    return folder


def test_a_round_reads_each_kits_scores_and_perfect_times(tmp_path: Path) -> None:
    this = paired.read_results(
        _results(
            tmp_path / "a",
            {"perfect_000": 100, "perfect_001": 100, "blank_000": 0},
            {"perfect_000": 1.0, "perfect_001": 3.0, "blank_000": 0.1},
        ),
        "01_tensors",
    )
    assert this == {"perfect_000": (100, 1.0), "perfect_001": (100, 3.0), "blank_000": (0, 0.1)}
    assert paired.side(12.345, this) == {"wall_s": 12.35, "perfect_median_s": 2.0, "graded": 3}


def test_the_ratio_counts_only_rounds_where_both_kits_scored_alike() -> None:
    def row(this: float, base: float, same: bool) -> dict:
        return {"this": {"wall_s": this}, "base": {"wall_s": base}, "same_scores": same}

    assert paired.summary([row(9.0, 10.0, True), row(11.0, 10.0, True), row(1.0, 10.0, False)]) == {
        "rounds": 3,
        "same_scores_in_every_round": False,
        "this_over_base_median": 1.0,
    }
    assert paired.summary([row(1.0, 10.0, False)])["this_over_base_median"] is None


@pytest.mark.serial  # two grade commands at once, one core each
@pytest.mark.skipif(len(os.sched_getaffinity(0)) < 2, reason="needs two cores")
def test_this_checkout_against_itself_scores_alike_on_both_cores() -> None:
    out = subprocess.run(
        [
            sys.executable,
            str(ROOT / "bench" / "paired.py"),
            "01_tensors",
            "--base",
            str(ROOT),
            "--rounds",
            "1",
            "--copies",
            "1",
            "--samples",
            "perfect,blank",
            "--json",
        ],
        capture_output=True,
        text=True,
        timeout=600,
        cwd=ROOT,
    )
    assert out.returncode == 0, out.stderr[-2000:]
    report = json.loads(out.stdout)
    (only,) = report["rounds"]
    assert {only["this"]["core"], only["base"]["core"]} == {0, 1}
    assert only["same_scores"] and only["this"]["graded"] == only["base"]["graded"] == 2
    assert only["this"]["perfect_median_s"] > 0 and report["summary"]["this_over_base_median"] > 0
