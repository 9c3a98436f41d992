"""The late policy is a pure function of (score, max, submission time, policy, student)."""

from datetime import datetime, timedelta, timezone

import pytest

from autograder.config.deadline import LatePolicy, LatePolicyError, load_policy, parse_time
from autograder.grades.late import apply_late_policy

DUE = "2026-10-01T23:59:00+00:00"
POLICY = LatePolicy.from_table(
    {
        "due": DUE,
        "grace_minutes": 15,
        "penalty_percent": 10,
        "max_penalty_percent": 30,
        "extensions": {"alice": "2026-10-04T23:59:00+00:00", "bob": 2},
    }
)


def at(s: str) -> datetime:
    return parse_time(s)


def test_on_time_and_grace():
    r = apply_late_policy(8, 10, at("2026-10-01T23:00:00+00:00"), POLICY)
    assert (r.score, r.penalty, r.late, r.explanation) == (8, 0, False, "")
    r = apply_late_policy(8, 10, at("2026-10-02T00:10:00+00:00"), POLICY)  # 11 min late, within grace
    assert r.score == 8 and not r.late and "grace" in r.explanation


def test_per_day_or_part_of_one_and_cap():
    r = apply_late_policy(8, 10, at("2026-10-02T00:20:00+00:00"), POLICY)  # 21 minutes: 1 day
    assert r.late and r.penalty == 1 and r.score == 7 and "1 day's penalty" in r.explanation
    r = apply_late_policy(8, 10, at("2026-10-03T01:00:00+00:00"), POLICY)  # 25 h: 2 days
    assert r.score == 6
    r = apply_late_policy(8, 10, at("2026-10-09T00:00:00+00:00"), POLICY)  # 8 days: capped at 30 %
    assert r.score == 5 and "capped" in r.explanation


def test_never_negative_and_percent_of_score():
    r = apply_late_policy(0.5, 10, at("2026-10-05T00:00:00+00:00"), POLICY)
    assert r.score == 0 and r.penalty == 0.5
    p = LatePolicy.from_table({"due": DUE, "penalty_percent": 50, "of": "score"})
    assert apply_late_policy(8, 10, at("2026-10-02T12:00:00+00:00"), p).score == 4


def test_extensions_by_date_and_by_days():
    late_time = at("2026-10-03T12:00:00+00:00")
    assert apply_late_policy(8, 10, late_time, POLICY, student_id="alice").score == 8
    assert apply_late_policy(8, 10, late_time, POLICY, student_id="bob").score == 8  # due + 2 days
    assert apply_late_policy(8, 10, late_time, POLICY, student_id="carol").score == 6
    r = apply_late_policy(8, 10, at("2026-10-05T01:00:00+00:00"), POLICY, student_id="alice")
    assert r.score == 7 and "extension" in r.explanation


def test_time_zones_and_naive_times():
    # 2026-10-02 01:30 in UTC+2 is 23:30 UTC on the 1st: on time
    assert not apply_late_policy(8, 10, at("2026-10-02T01:30:00+02:00"), POLICY).late
    assert apply_late_policy(8, 10, at("2026-10-02 12:00:00.123456 UTC"), POLICY).late  # nbgrader timestamp
    assert at("2026-10-02T12:00:00Z") == datetime(2026, 10, 2, 12, tzinfo=timezone.utc)


def test_lms_late_flag_without_time_and_no_policy():
    r = apply_late_policy(8, 10, None, POLICY, late_flag=True)
    assert r.score == 7 and "marked this submission late" in r.explanation
    assert apply_late_policy(8, 10, None, POLICY).score == 8
    assert apply_late_policy(8, 10, at("2030-01-01T00:00:00+00:00"), None).score == 8


def test_cutoff_and_hourly():
    p = LatePolicy.from_table({"due": DUE, "penalty_percent": 5, "period": "hour", "cutoff_days": 1})
    assert apply_late_policy(10, 10, at("2026-10-02T02:30:00+00:00"), p).score == 8.5  # 3 hours
    r = apply_late_policy(10, 10, at("2026-10-03T00:00:00+00:00"), p)
    assert r.score == 0 and "cutoff" in r.explanation


def test_manifest_table(tmp_path):
    m = tmp_path / "manifest.toml"
    m.write_text(
        'title = "x"\n[deadline]\ndue = "2026-10-01T23:59:00+00:00"\npenalty_percent = 10\n'
        '[deadline.extensions]\nalice = 3\n'
    )
    p = load_policy(m)
    assert p.due_for("alice") - p.due == timedelta(days=3)
    m.write_text('title = "x"\n')
    assert load_policy(m) is None
    for bad in (
        {"penalty_percent": 1},
        {"due": "tomorrow"},
        {"due": DUE, "period": "week"},
        {"due": DUE, "penalty_percent": -1},
    ):
        with pytest.raises(LatePolicyError):
            LatePolicy.from_table(bad)
