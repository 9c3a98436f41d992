"""Per-student feedback: a self-contained HTML page and a Markdown file.

What a student sees follows the result's `hidden_policy` through `TestResult.student_output`
(hidden tests: name and outcome only under "summary"), never the instructor record's full
messages, worker output or problems.  The HTML has no external assets (inline CSS, a CSP
that forbids scripts and remote loads) and is autoescaped (`escape.html_environment`), so a
student's code in a cell error cannot inject markup.  In the Markdown every field goes through
`escape.md_block` / `md_inline` / `md_cell` / `md_text`: student text is inside code fences or spans, or
plain prose with each character that could start markup escaped (titles, names).  The page opens with one
line per exercise in notebook order, its points those the student has (autograded, with the rubric items
applied: `grades.rubric`); a device variant this grader cannot run is counted there as "not run here" and not
listed among the tests; a cell that still raises the stub's NotImplementedError is "not answered yet", not
an error.  The applied rubric items' texts are shown under "Comments from the course staff", each under its
exercise, and a comment on a line of code under "Comments on your code", quoting that line.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

from jinja2 import Environment

from autograder.config.files import write_atomic
from autograder.grades.late import LateResult
from autograder.intake.roster import Identity
from autograder.judge.results import SubmissionResult
from autograder.notebook.cells import cell_name, in_exercise_order
from autograder.notebook.stub import ERROR as STUB_ERROR
from autograder.notebook.stub import NOT_ANSWERED
from autograder.report.escape import html_environment, md_block, md_cell, md_inline, md_text


def fmt(x: Any) -> str:
    return "" if x is None else f"{x:g}" if isinstance(x, (int, float)) else str(x)


def environment() -> Environment:
    """The templates' environment (autoescape always on: see `escape.html_environment`)."""
    return html_environment(fmt=fmt)


NOT_RUN_HERE = "not run here"  # a device variant this grader has no device for: neither passed nor failed
NOT_GRADED_YET = "not graded yet"  # an exercise graded by hand that nobody has graded yet


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

    @property
    def label(self) -> str:
        """The result as a student reads it: a skipped test was not run on this grader."""
        return {"skipped": NOT_RUN_HERE, "pending": NOT_GRADED_YET}.get(self.outcome, self.outcome)


@dataclass
class ExerciseView:
    exercise: str
    score: float
    max_score: float
    passed: int  # tests passed
    run: int  # tests run here (not skipped)
    not_run: int
    unanswered: bool = False  # nothing passed, and a test met the untouched stub
    pending: bool = False  # graded by hand, not graded yet

    @property
    def state(self) -> str:
        if self.pending:
            return NOT_GRADED_YET
        if not self.run:
            return NOT_RUN_HERE
        if self.unanswered:
            return NOT_ANSWERED
        return "all passed" if self.passed == self.run else f"{self.passed} of {self.run} passed"


@dataclass
class CellView:
    name: str  # notebook.cells.cell_name: its position among all cells and its first line
    status: str
    type: str
    message: str
    code: str
    notes: list[str]


def student_view(
    result: SubmissionResult,
    identity: Identity | None = None,
    late: LateResult | None = None,
    title: str | None = None,
    order: list[str] | None = None,
    notes: list[Any] | None = None,
) -> dict[str, Any]:
    """Everything the templates use; nothing in it is instructor-only.  The line a whole-score override
    adds is no test: its note is in the message; an exercise's rubric line adds its points to the exercise and
    its items' texts to `comments`.  `notes`: the comments on lines of this version's code (`grades.rubric.
    LineNote`; a note's staff-only fields are not shown)."""
    tests, skipped = [], []
    comments: dict[str, list[str]] = {}
    adjust: dict[str, float] = {}
    for t in result.tests:
        if t.is_override:
            if t.exercise and t.message:  # a rubric line (a whole-score override has no exercise)
                comments.setdefault(t.exercise, []).extend(t.message.splitlines())
                adjust[t.exercise] = adjust.get(t.exercise, 0.0) + t.score
            continue
        if t.is_manual and t.outcome != "pending" and t.message:
            comments.setdefault(t.exercise, []).extend(t.message.splitlines())
        if t.outcome == "skipped":  # a device variant not run here: counted per exercise, not listed
            skipped.append(t.exercise)
            continue
        out = t.student_output(result.hidden_policy)
        hint = ""
        if t.hint and out.endswith(f"Hint: {t.hint}"):
            out, hint = out[: -len(f"Hint: {t.hint}")].rstrip("\n"), t.hint
        elif t.kind == "public" and t.hint and t.outcome not in ("passed", "skipped"):
            hint = t.hint
        tests.append(TestView(t.name, t.exercise, t.kind, t.score, t.max_score, t.outcome, out, hint))
    seen = in_exercise_order([t.exercise for t in tests] + skipped, order or ())
    tests.sort(key=lambda t: seen.index(t.exercise))  # stable: file order within an exercise
    exercises = []
    for ex in seen:
        run = [t for t in tests if t.exercise == ex]
        passed = sum(t.outcome == "passed" for t in run)
        stub = any(t.exercise == ex and t.message.startswith(NOT_ANSWERED) for t in result.tests)
        exercises.append(
            ExerciseView(
                ex,
                round(sum(t.score for t in run) + adjust.get(ex, 0.0), 4),
                round(sum(t.max_score for t in run), 4),
                passed,
                len(run),
                skipped.count(ex),
                unanswered=stub and not passed,
                pending=any(t.exercise == ex and t.outcome == "pending" for t in run),
            )
        )
    shown = [n for n in notes or [] if n.sha256 == result.sha256]
    cells = [CellView(cell_name(c.cell, c.code), c.status, c.type, c.message, c.code, c.notes) for c in result.cells]
    who = identity.name or identity.student_id if identity else result.submission_id
    score = late.score if late else result.score
    return {
        "title": title or result.assignment,
        "who": who,
        "score": score,
        "max_score": result.max_score,
        "raw_score": result.score,
        "status": result.status,
        "message": result.message,
        "late": late.explanation if late and late.late else "",
        "submitted_at": identity.submitted_at.strftime("%Y-%m-%d %H:%M %Z")
        if identity and identity.submitted_at
        else "",
        "tests": tests,
        "exercises": exercises,
        "hidden_policy": result.hidden_policy,
        "comments": [(ex, comments[ex]) for ex in seen if comments.get(ex)],
        "line_notes": [
            {"where": f"Cell {n.cell}" + (f", line {n.line}" if n.line else ""), "code": n.code, "text": n.text}
            for n in shown
        ],
        "cells": [c for c in cells if c.type != STUB_ERROR],
        "unanswered": [c for c in cells if c.type == STUB_ERROR],  # untouched stubs: not wrong, not done
        "grader_version": result.environment.get("grader_version", ""),
    }


def render_html(
    result: SubmissionResult,
    identity: Identity | None = None,
    late: LateResult | None = None,
    title: str | None = None,
    order: list[str] | None = None,
    notes: list[Any] | None = None,
) -> str:
    return (
        environment().get_template("feedback.html.j2").render(student_view(result, identity, late, title, order, notes))
    )


def render_markdown(
    result: SubmissionResult,
    identity: Identity | None = None,
    late: LateResult | None = None,
    title: str | None = None,
    order: list[str] | None = None,
    notes: list[Any] | None = None,
) -> str:
    v = student_view(result, identity, late, title, order, notes)
    il = md_inline
    out = [
        f"# {md_text(v['title'])}: feedback for {md_text(v['who'])}",
        "",
        f"**Score: {fmt(v['score'])} / {fmt(v['max_score'])}** ({v['status']})"  # numbers and statuses are the grader's own
        + (f" · submitted {il(v['submitted_at'])}" if v["submitted_at"] else ""),
        "",
    ]
    if v["late"]:
        out += ["Late submission:", "", md_block(v["late"]), ""]
    if v["message"]:
        out += [md_block(v["message"]), ""]
    out += ["## Exercises", "", "| Exercise | Points | Tests |", "|---|---|---|"]
    for e in v["exercises"]:
        pts = "–" if not e.run or e.pending else f"{fmt(e.score)} / {fmt(e.max_score)}"
        out.append(
            f"| {md_cell(e.exercise)} | {pts} | {e.state}"
            + (f", {e.not_run} {NOT_RUN_HERE}" if e.not_run and e.run else "")
            + " |"
        )
    out += ["", "## Tests", "", "| # | Test | Exercise | Points | Result |", "|---|---|---|---|---|"]
    for i, t in enumerate(v["tests"], start=1):
        pts = "–" if t.outcome in ("skipped", "pending") else f"{fmt(t.score)} / {fmt(t.max_score)}"
        out.append(
            f"| {i} | {md_cell(t.name)}{' (hidden)' if t.kind == 'hidden' else ''} | {md_cell(t.exercise)} "
            f"| {pts} | {t.label} |"
        )
    out.append("")
    for i, t in enumerate(v["tests"], start=1):
        if t.output or t.hint:
            out += [f"### {i}. {md_text(t.name)} ({t.label})", ""]
            if t.output:
                out += [md_block(t.output), ""]
            if t.hint:
                out += [f"Hint: {md_text(t.hint)}", ""]
    if v["comments"]:
        out += ["## Comments from the course staff", ""]
        for ex, lines in v["comments"]:
            out += [f"### {md_text(ex)}", ""] + [f"- {md_text(line)}" for line in lines] + [""]
    if v["line_notes"]:
        out += ["## Comments on your code", ""]
        for n in v["line_notes"]:
            out += [f"**{n['where']}**", ""] + ([md_block(n["code"], "python"), ""] if n["code"].strip() else [])
            out += [md_block(n["text"]), ""]
    if v["unanswered"]:
        out += ["## Not answered yet", "", "These cells still raise NotImplementedError (the exercise's stub):", ""]
        out += [f"- {md_text(c.name)}" for c in v["unanswered"]] + [""]
    if v["cells"]:
        out += ["## Notebook cells that need attention", ""]
        for c in v["cells"]:
            out += [
                f"### {md_text(c.name[:1].upper() + c.name[1:])}: {c.status}" + (f" ({il(c.type)})" if c.type else ""),
                "",
            ]
            if c.message:
                out += [md_block(c.message), ""]
            if c.code:
                out += [md_block(c.code, "python"), ""]
            out += [f"- {il(n)}" for n in c.notes] + ([""] if c.notes else [])
    return "\n".join(out).rstrip() + "\n"


def write_feedback(
    folder: Path,
    result: SubmissionResult,
    identity: Identity | None = None,
    late: LateResult | None = None,
    title: str | None = None,
    order: list[str] | None = None,
    notes: list[Any] | None = None,
) -> tuple[Path, Path]:
    """folder/<submission_id>.html and .md, atomically; `order`: the exercises in notebook order."""
    html, md = folder / f"{result.submission_id}.html", folder / f"{result.submission_id}.md"
    write_atomic(html, render_html(result, identity, late, title, order, notes))
    write_atomic(md, render_markdown(result, identity, late, title, order, notes))
    return html, md


def write_class_feedback(grades: Any, folder: Path, only: set[str] | None = None) -> int:
    """Every graded student's pages of `grades` (`grades.rows.AssignmentGrades`), or those of the submissions in
    `only`, in `folder`, the exercises in the order the student meets them: what `autograder feedback` writes
    and what an override rewrites.  Returns how many students' pages were written."""
    a = grades.assignment
    order = list(grades.order)
    n = 0
    for row in grades.rows:
        if row.result is not None and (only is None or row.submission_id in only):
            marks = getattr(grades, "marks", None)
            notes = [n for n in marks.notes if n.submission_id == row.submission_id] if marks else []
            write_feedback(folder, row.result, row.identity, row.late, title=a.title, order=order, notes=notes)
            n += 1
    return n
