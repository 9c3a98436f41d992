"""Per-assignment instructor report: one self-contained HTML file (plots embedded as base64 PNG).

Score distribution, statuses, per-test pass rates and outcomes, tests that errored (likely
assignment bugs), submissions that need a look (not `graded`, or below full marks with
cell errors), the slowest submissions.  Opens from disk in any browser: no server, no
scripts, no external assets.
"""
from __future__ import annotations

import base64
import io
import statistics
import time
from collections import Counter
from pathlib import Path
from typing import Any

from autograder.intake.roster import Identity
from autograder.report.escape import controls
from autograder.report.feedback import environment
from autograder.report.files import write_atomic
from autograder.score.results import SUBMISSION_STATUSES, TEST_OUTCOMES, SubmissionResult


def _png(fig) -> str:
    buf = io.BytesIO()
    fig.savefig(buf, format="png", dpi=90, bbox_inches="tight")
    return base64.b64encode(buf.getvalue()).decode("ascii")


def _plots(results: list[SubmissionResult], tests: list[dict[str, Any]]) -> list[dict[str, str]]:
    import matplotlib

    matplotlib.use("Agg", force=True)
    import matplotlib.pyplot as plt

    plots = []
    scores = [r.score for r in results]  # graded ones only (see report_context)
    fig, ax = plt.subplots(figsize=(5.5, 3.2))
    top = max([r.max_score for r in results] + [1.0])
    ax.hist(scores, bins=min(20, max(5, len(set(scores)))), range=(0, top), color="#0969da", edgecolor="white")
    ax.set_xlabel("score")
    ax.set_ylabel("submissions")
    ax.set_title("Score distribution")
    plots.append({"alt": "Score distribution", "b64": _png(fig)})
    plt.close(fig)
    if tests:
        fig, ax = plt.subplots(figsize=(5.5, 0.35 * len(tests) + 1.2))
        labels = [controls(t["name"][:40]).replace("$", r"\$") for t in tests]  # no mathtext, no control glyphs
        ax.barh(range(len(tests)), [100 * t["pass_rate"] for t in tests], color="#1a7f37")
        ax.set_yticks(range(len(tests)), labels, fontsize=8)
        ax.invert_yaxis()
        ax.set_xlim(0, 100)
        ax.set_xlabel("% of submissions passing")
        ax.set_title("Pass rate per test")
        plots.append({"alt": "Pass rate per test", "b64": _png(fig)})
        plt.close(fig)
    return plots


def report_context(results: list[SubmissionResult], *, title: str, identities: dict[str, Identity] | None = None,
                   missing: list[Identity] | None = None, slowest: int = 10) -> dict[str, Any]:
    identities = identities or {}
    results = [r for r in results if not r.submission_id.startswith("__")]
    scored = [r for r in results if r.tests]   # a grader failure has no score: keep it out of the statistics
    scores = [r.score for r in scored]
    max_score = max((r.max_score for r in scored), default=0.0)
    by_test: dict[str, dict[str, Any]] = {}
    errors = []
    for r in results:
        for t in r.tests:
            d = by_test.setdefault(t.id, {"id": t.id, "name": t.name, "kind": t.kind, "max_score": t.max_score,
                                          "n": 0, "passed": 0, "sum": 0.0, "time": 0.0, "outcomes": Counter()})
            d["n"] += 1
            d["passed"] += t.outcome == "passed"
            d["sum"] += t.score
            d["time"] += t.duration
            d["outcomes"][t.outcome] += 1
            if t.outcome == "error":
                errors.append((r.submission_id, t))
    tests = []
    for d in by_test.values():
        n = d["n"] or 1
        tests.append({**d, "pass_rate": d["passed"] / n, "mean": d["sum"] / n, "duration": d["time"] / n,
                      "outcomes": [(o, d["outcomes"][o]) for o in TEST_OUTCOMES if d["outcomes"][o]]})

    def row(r: SubmissionResult) -> dict[str, Any]:
        who = identities.get(r.submission_id)
        return {"id": r.submission_id, "who": (who.name or who.student_id) if who else "", "score": r.score,
                "max_score": r.max_score, "status": r.status, "message": r.message, "time": r.execution_time,
                "cells": len([c for c in r.cells if c.status != "note"])}

    rows = [row(r) for r in results]
    failing = [x for x in rows if x["status"] != "graded" or (x["score"] < x["max_score"] and x["cells"])]
    failing.sort(key=lambda x: (x["status"] == "graded", x["score"]))
    status_counts = Counter(r.status for r in results)
    return {
        "title": title, "n": len(results), "generated": time.strftime("%Y-%m-%d %H:%M"),
        "stats": {"mean": round(statistics.fmean(scores), 2) if scores else None,
                  "median": statistics.median(scores) if scores else None,
                  "min": min(scores, default=None), "max": max(scores, default=None),
                  "full": sum(1 for r in results if r.tests and r.score == r.max_score), "max_score": max_score},
        "statuses": [(s, status_counts[s]) for s in SUBMISSION_STATUSES],
        "tests": tests, "errors": errors, "failing": failing,
        "slowest": sorted(rows, key=lambda x: -x["time"])[:slowest], "rows": rows, "missing": missing or [],
        "plots": _plots(scored, tests) if scored else [],
    }


def render_report(results: list[SubmissionResult], *, title: str, **kw: Any) -> str:
    return environment().get_template("instructor_report.html.j2").render(report_context(results, title=title, **kw))


def write_report(path: Path, results: list[SubmissionResult], *, title: str, **kw: Any) -> Path:
    write_atomic(path, render_report(results, title=title, **kw))
    return path
