"""Per-assignment instructor report: one self-contained HTML file (plots embedded as base64 PNG).

Built from the export rows (`rows.grade_rows`) so it shows what the gradebook will: roster names,
students without a submission, scores after the manifest's late policy.  Sections: statuses counted,
score distribution, pass rate per exercise (in the notebook's order), the tests failed most often with an example
message, tests that errored (likely assignment bugs), lateness, time per submission, submissions that
need a look, every student.  Opens from disk in any browser: no server, no scripts, no external assets.
"""

from __future__ import annotations

import base64
import io
import statistics
import time
from collections import Counter
from pathlib import Path
from typing import TYPE_CHECKING, Any, Iterable, Sequence

from autograder.config.deadline import LatePolicy
from autograder.config.files import write_atomic
from autograder.config.limits import clip
from autograder.grades.rows import GradeRow, grade_rows
from autograder.intake.roster import Identity
from autograder.judge.results import SUBMISSION_STATUSES, TEST_OUTCOMES, SubmissionResult
from autograder.notebook.cells import exercise_key
from autograder.notebook.stub import ERROR as STUB_ERROR
from autograder.report.escape import plot_label
from autograder.report.feedback import environment

if TYPE_CHECKING:
    from matplotlib.figure import Figure

EXAMPLE_MESSAGE_CHARS = 400  # one failing test's example message in "most common failures"
TOP_FAILURES = 10  # rows in "most common failures"
SLOWEST = 10  # rows in "slowest submissions"
NOT_PASSED = ("partial", "failed", "error", "timeout", "crashed")


def _png(fig: "Figure") -> str:
    buf = io.BytesIO()
    fig.savefig(buf, format="png", dpi=100, bbox_inches="tight")
    return base64.b64encode(buf.getvalue()).decode("ascii")


def _pyplot() -> Any:
    import matplotlib

    matplotlib.use("Agg", force=True)
    import matplotlib.pyplot as plt

    return plt


def histogram_figure(scores: list[float], top: float) -> "Figure":
    """Final scores; counts are whole submissions, so the y axis has integer ticks only."""
    from matplotlib.ticker import MaxNLocator

    fig, ax = _pyplot().subplots(figsize=(5.5, 3.2))
    ax.hist(
        scores, bins=min(20, max(5, len(set(scores)))), range=(0, max(top, 1.0)), color="#0969da", edgecolor="white"
    )
    ax.yaxis.set_major_locator(MaxNLocator(integer=True))
    ax.set_xlabel("score (after late penalties)")
    ax.set_ylabel("submissions")
    ax.set_title("Score distribution")
    return fig


def exercise_figure(exercises: list[dict[str, Any]]) -> "Figure":
    """One bar per exercise, in the given order; a 0 % bar is drawn as an outlined stub and every bar
    has its value printed, so "nobody passed" cannot be mistaken for a missing bar."""
    fig, ax = _pyplot().subplots(figsize=(5.5, 0.4 * len(exercises) + 1.2))
    ys = range(len(exercises))
    rates = [100 * e["pass_rate"] for e in exercises]
    ax.barh(ys, rates, color="#1a7f37", edgecolor="#116329", height=0.7)
    for y, rate in zip(ys, rates):
        if rate < 1:
            ax.barh(y, 1.5, left=0, height=0.7, facecolor="none", edgecolor="#cf222e", linewidth=1.5)
        ax.text(
            min(rate, 86) + 2, y, f"{rate:.0f}%", va="center", fontsize=10, color="#cf222e" if rate < 1 else "#1f2328"
        )
    ax.set_yticks(list(ys), [plot_label(e["exercise"]) for e in exercises], fontsize=10)
    ax.invert_yaxis()
    ax.set_xlim(0, 100)
    ax.set_xlabel("% of submissions passing every test of the exercise")
    ax.set_title("Pass rate per exercise")
    return fig


def _plots(scores: list[float], top: float, exercises: list[dict[str, Any]]) -> list[dict[str, str]]:
    plt = _pyplot()
    plots = []
    for alt, fig in (
        ("Score distribution", histogram_figure(scores, top) if scores else None),
        ("Pass rate per exercise", exercise_figure(exercises) if exercises else None),
    ):
        if fig is not None:
            plots.append({"alt": alt, "b64": _png(fig)})
            plt.close(fig)
    return plots


def _who(row: GradeRow) -> str:
    return row.identity.name or row.identity.student_id


def _tests(results: list[SubmissionResult], order: Sequence[str]) -> list[dict[str, Any]]:
    by_test: dict[str, dict[str, Any]] = {}
    for r in results:
        for t in r.tests:
            if t.is_override:
                continue  # a whole-score override is no test (the student list shows the score it set)
            d = by_test.get(t.id)
            if d is None:  # not setdefault: a class's thousands of tests would each build a Counter
                d = by_test[t.id] = {
                    "id": t.id,
                    "name": t.name,
                    "exercise": t.exercise,
                    "kind": t.kind,
                    "max_score": t.max_score,
                    "n": 0,
                    "passed": 0,
                    "sum": 0.0,
                    "time": 0.0,
                    "outcomes": Counter(),
                    "example": "",
                }
            d["n"] += 1
            d["passed"] += t.outcome == "passed"
            d["sum"] += t.score
            d["time"] += t.duration
            d["outcomes"][t.outcome] += 1
            if t.outcome in NOT_PASSED and t.message and not d["example"]:
                d["example"] = clip(t.message, EXAMPLE_MESSAGE_CHARS)
    tests = []
    for d in by_test.values():
        n = d["n"] or 1
        tests.append(
            {
                **d,
                "pass_rate": d["passed"] / n,
                "mean": d["sum"] / n,
                "duration": d["time"] / n,
                "not_passed": sum(d["outcomes"][o] for o in NOT_PASSED),
                "outcomes": [(o, d["outcomes"][o]) for o in TEST_OUTCOMES if d["outcomes"][o]],
            }
        )
    key = exercise_key(order)
    tests.sort(key=lambda t: (key(t["exercise"]), t["id"]))
    return tests


def _exercises(results: list[SubmissionResult], order: Sequence[str]) -> list[dict[str, Any]]:
    """Per exercise: the share of submissions that passed all its tests run here, and the mean share of
    their points.  A test this grader skipped (a device variant with no device here) is not counted: it
    neither passed nor failed; an exercise none of whose tests ran is not listed."""
    acc: dict[str, dict[str, Any]] = {}
    for r in results:
        per: dict[str, list] = {}
        for t in r.tests:
            if not t.is_override and t.outcome not in ("skipped", "pending"):  # not run here; not graded yet
                per.setdefault(t.exercise, []).append(t)
        for ex, ts in per.items():
            d = acc.get(ex)
            if d is None:
                d = acc[ex] = {"exercise": ex, "n": 0, "passed": 0, "points": 0.0, "tests": len(ts)}
            d["n"] += 1
            d["passed"] += all(t.outcome == "passed" for t in ts)
            mx = sum(t.max_score for t in ts)
            d["points"] += sum(t.score for t in ts) / mx if mx else 1.0
            d["tests"] = max(d["tests"], len(ts))
    out = [{**d, "pass_rate": d["passed"] / d["n"], "mean": d["points"] / d["n"]} for d in acc.values()]
    key = exercise_key(order)
    out.sort(key=lambda e: key(e["exercise"]))  # as the notebook has them, as on every face
    return out


def report_context(rows: list[GradeRow], *, title: str, plots: bool = True) -> dict[str, Any]:
    submitted = [row for row in rows if row.result is not None]
    results = [row.result for row in submitted if row.result is not None]
    # a grader failure or provisional result has no trustworthy score: keep it out of the statistics
    scored = [row for row in submitted if row.gradable and row.result and row.result.tests]
    scores = [row.score for row in scored if row.score is not None]
    max_score = max((row.result.max_score for row in scored if row.result), default=0.0)
    order = rows[0].order if rows else ()  # the notebook's order of exercises (`grades.rows.grade_rows`)
    tests = _tests([row.result for row in scored if row.result], order)
    exercises = _exercises([row.result for row in scored if row.result], order)
    errors = [
        (_who(row), row.submission_id, t)
        for row in submitted
        if row.result
        for t in row.result.tests
        if t.outcome == "error"
    ]

    def view(row: GradeRow) -> dict[str, Any]:
        r = row.result
        late = row.late if row.late and row.late.late else None
        return {
            "id": row.submission_id,
            "who": _who(row),
            "student_id": row.identity.student_id,
            "email": row.identity.email,
            "status": row.status,
            "provisional": bool(r and r.provisional),
            "raw": row.raw_score,
            "score": row.score,
            "max_score": row.max_score,
            "message": row.blank_reason if not row.gradable and r else (r.message if r else ""),
            "time": r.execution_time if r else None,
            "cells": len([c for c in r.cells if c.status != "note" and c.type != STUB_ERROR]) if r else 0,
            "late": late and {"penalty": late.penalty, "explanation": late.explanation},
        }

    views = [view(row) for row in rows]
    views.sort(key=lambda v: (v["who"].casefold(), v["id"]))
    present = [v for v in views if v["status"] != "missing"]
    look = [
        v
        for v in present
        if v["status"] != "graded"
        or v["provisional"]
        or (v["score"] is not None and v["max_score"] and v["score"] < v["max_score"] and v["cells"])
    ]
    look.sort(key=lambda v: (v["status"] == "graded", v["score"] or 0.0))
    times = [r.execution_time for r in results if r.tests]  # a grader failure ran nothing
    counts = Counter(r.status for r in results)
    return {
        "title": title,
        "n": len(results),
        "generated": time.strftime("%Y-%m-%d %H:%M"),
        "stats": {
            "mean": round(statistics.fmean(scores), 2) if scores else None,
            "median": statistics.median(scores) if scores else None,
            "min": min(scores, default=None),
            "max": max(scores, default=None),
            "full": sum(1 for s, row in zip(scores, scored) if row.result and s == row.result.max_score),
            "max_score": max_score,
        },
        "statuses": [(s, counts[s]) for s in SUBMISSION_STATUSES]
        + [("provisional", sum(1 for r in results if r.provisional)), ("missing", len(rows) - len(submitted))],
        "exercises": exercises,
        "tests": tests,
        "errors": errors,
        "failures": sorted((t for t in tests if t["not_passed"]), key=lambda t: (-t["not_passed"], t["id"]))[
            :TOP_FAILURES
        ],
        "late": [v for v in views if v["late"]],
        "time": {"median": statistics.median(times) if times else None, "max": max(times, default=None)},
        "slowest": sorted(present, key=lambda v: -(v["time"] or 0.0))[:SLOWEST],
        "look": look,
        "rows": views,
        "missing": [v for v in views if v["status"] == "missing"],
        "plots": _plots(scores, max_score, exercises) if plots else [],  # the workspace has none: seconds a class
    }


def render_rows(rows: list[GradeRow], *, title: str) -> str:
    return environment().get_template("instructor_report.html.j2").render(report_context(rows, title=title))


def render_report(
    results: Iterable[SubmissionResult],
    *,
    title: str,
    identities: dict[str, Identity] | None = None,
    missing: list[Identity] | None = None,
    policy: LatePolicy | None = None,
    order: Sequence[str] = (),
) -> str:
    """The report straight from results (`missing`: roster students without a submission; `order`: the exercises
    in the notebook's order)."""
    return render_rows(grade_rows(results, identities, policy=policy, roster=missing, order=order), title=title)


def write_report(path: Path, rows: list[GradeRow], *, title: str) -> Path:
    write_atomic(path, render_rows(rows, title=title))
    return path
