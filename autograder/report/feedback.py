"""Per-student feedback: a self-contained HTML page and a Markdown file.

What a student sees follows the result's `hidden_policy` through `TestResult.student_output`
(hidden tests: name and outcome only under "summary"), never the instructor record's full
messages, worker output or problems.  The HTML has no external assets (inline CSS, a CSP
that forbids scripts and remote loads) and is autoescaped (`escape.html_environment`), so a
student's code in a cell error cannot inject markup.  In the Markdown every field goes through
`escape.md_block` / `md_inline` / `md_cell`: student text is only ever inside code fences or spans.
"""
from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

from jinja2 import Environment

from autograder.intake.roster import Identity
from autograder.report.escape import html_environment, md_block, md_cell, md_inline
from autograder.report.files import write_atomic
from autograder.score.late import LateResult
from autograder.score.results import SubmissionResult


def fmt(x: Any) -> str:
    return "" if x is None else f"{x:g}" if isinstance(x, (int, float)) else str(x)


def environment() -> Environment:
    """The templates' environment (autoescape always on: see `escape.html_environment`)."""
    return html_environment(fmt=fmt)


@dataclass
class TestView:
    name: str
    exercise: str
    kind: str
    score: float
    max_score: float
    outcome: str
    output: str
    hint: str


def student_view(result: SubmissionResult, identity: Identity | None = None, late: LateResult | None = None,
                 title: str | None = None) -> dict[str, Any]:
    """Everything the templates use; nothing in it is instructor-only."""
    tests = []
    for t in result.tests:
        out = t.student_output(result.hidden_policy)
        hint = ""
        if t.hint and out.endswith(f"Hint: {t.hint}"):
            out, hint = out[: -len(f"Hint: {t.hint}")].rstrip("\n"), t.hint
        elif t.kind == "public" and t.hint and t.outcome not in ("passed", "skipped"):
            hint = t.hint
        tests.append(TestView(t.name, t.exercise, t.kind, t.score, t.max_score, t.outcome, out, hint))
    who = identity.name or identity.student_id if identity else result.submission_id
    score = late.score if late else result.score
    return {
        "title": title or result.assignment, "who": who, "score": score, "max_score": result.max_score,
        "raw_score": result.score, "status": result.status, "message": result.message,
        "late": late.explanation if late and late.late else "",
        "submitted_at": identity.submitted_at.strftime("%Y-%m-%d %H:%M %Z") if identity and identity.submitted_at else "",
        "tests": tests, "cells": result.cells, "hidden_policy": result.hidden_policy,
        "grader_version": result.environment.get("grader_version", ""),
    }


def render_html(result: SubmissionResult, identity: Identity | None = None, late: LateResult | None = None,
                title: str | None = None) -> str:
    return environment().get_template("feedback.html.j2").render(student_view(result, identity, late, title))


def render_markdown(result: SubmissionResult, identity: Identity | None = None, late: LateResult | None = None,
                    title: str | None = None) -> str:
    v = student_view(result, identity, late, title)
    il = md_inline
    out = [f"# {il(v['title'])}: feedback for {il(v['who'])}", "",
           f"**Score: {fmt(v['score'])} / {fmt(v['max_score'])}** ({v['status']})"  # numbers and statuses are the grader's own
           + (f" · submitted {il(v['submitted_at'])}" if v["submitted_at"] else ""), ""]
    if v["late"]:
        out += ["Late submission:", "", md_block(v["late"]), ""]
    if v["message"]:
        out += [md_block(v["message"]), ""]
    out += ["## Tests", "", "| # | Test | Points | Result |", "|---|---|---|---|"]
    for i, t in enumerate(v["tests"], start=1):
        pts = "–" if t.outcome == "skipped" else f"{fmt(t.score)} / {fmt(t.max_score)}"
        out.append(f"| {i} | {md_cell(t.name)}{' (hidden)' if t.kind == 'hidden' else ''} | {pts} | {t.outcome} |")
    out.append("")
    for i, t in enumerate(v["tests"], start=1):
        if t.output or t.hint:
            out += [f"### {i}. {il(t.name)} ({t.outcome})", ""]
            if t.output:
                out += [md_block(t.output), ""]
            if t.hint:
                out += [f"Hint: {il(t.hint)}", ""]
    if v["cells"]:
        out += ["## Notebook cells that need attention", ""]
        for c in v["cells"]:
            out += [f"### Cell {c.cell:d}: {c.status}" + (f" ({il(c.type)})" if c.type else ""), ""]
            if c.message:
                out += [md_block(c.message), ""]
            if c.code:
                out += [md_block(c.code, "python"), ""]
            out += [f"- {il(n)}" for n in c.notes] + ([""] if c.notes else [])
    return "\n".join(out).rstrip() + "\n"


def write_feedback(folder: Path, result: SubmissionResult, identity: Identity | None = None,
                   late: LateResult | None = None, title: str | None = None) -> tuple[Path, Path]:
    """folder/<submission_id>.html and .md, atomically."""
    html, md = folder / f"{result.submission_id}.html", folder / f"{result.submission_id}.md"
    write_atomic(html, render_html(result, identity, late, title))
    write_atomic(md, render_markdown(result, identity, late, title))
    return html, md
