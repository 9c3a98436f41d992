"""Results the kit stored itself (gradebook, kept versions) are read back without bounding them again;
a record from anywhere else (a worker, a Dask task) is bounded as it is read."""

from __future__ import annotations

import pytest

from autograder.config.limits import MAX_OUTPUT
from autograder.judge import results as res
from autograder.judge.results import CellIssue, SubmissionResult
from autograder.store import history
from autograder.store.database import Gradebook
from tests.grades.factory import result


def _hostile() -> dict:
    r = result("s1", (1, 0.5, 0, 1, 1), cells=[CellIssue(3, "error", "E", "m" * 10_000, "x = 1")]).to_record()
    r["stdout"] = "\ud800" + "y" * (MAX_OUTPUT * 3)
    r["tests"][0]["message"] = "z" * 100_000
    return r


def test_a_workers_record_is_bounded_and_the_stored_one_reads_back_the_same(tmp_path):
    bounded = SubmissionResult.from_record(_hostile())
    assert len(bounded.stdout) <= MAX_OUTPUT and "\ud800" not in bounded.stdout
    assert len(bounded.tests[0].message) < 5000 and len(bounded.cells[0].message) < 3000
    assert SubmissionResult.from_stored(bounded.to_record()) == bounded
    old = {k: v for k, v in bounded.to_record().items() if k not in ("cell_time", "slowest_cell_cpu")}
    assert SubmissionResult.from_stored(old).cell_time == 0.0  # a record from an older kit
    with pytest.raises(TypeError):
        SubmissionResult.from_stored({**bounded.to_record(), "evil": 1})
    with pytest.raises(TypeError):
        SubmissionResult.from_stored({k: v for k, v in bounded.to_record().items() if k != "status"})


def test_gradebook_and_history_reads_do_not_bound_again(tmp_path, monkeypatch):
    out = tmp_path / "results"
    gb = Gradebook(out / "gradebook.sqlite")
    stored = [SubmissionResult.from_record(_hostile()), result("s2")]
    for r in stored:
        gb.put(r)
        history.keep(out, r, None)
    calls = []
    checked = res.SubmissionResult.__post_init__
    monkeypatch.setattr(res.SubmissionResult, "__post_init__", lambda self: (calls.append(1), checked(self)))
    try:
        assert sorted(gb.all("toy"), key=lambda r: r.submission_id) == stored and gb.get("toy", "s2") == stored[1]
    finally:
        gb.close()
    assert [v.score for v in history.versions(out, "toy", "s1")] == [stored[0].score]
    assert calls == []
    record = _hostile()
    calls.clear()
    SubmissionResult.from_record(record)  # a worker's record still is
    assert calls == [1]
