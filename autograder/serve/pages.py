"""What each workspace page shows, computed by the functions the CLI's commands call: `exports.
assignment_grades` (results with overrides in force, identities, roster, late policy), the instructor
report's `report_context`, `score.overrides` (trail), `report.overrides.set_override` and the similarity
file.  Nothing is stored here; a cache keeps one assignment's grades until a file they come from changes, and
after overrides or a re-grade computes again only the rows they change (`Workspace.grades`)."""
from __future__ import annotations

import os
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from autograder.report.exports import AssignmentGrades, assignment_grades
from autograder.report.instructor_report import report_context

MAX_CELL_SHOWN = 20_000   # characters of one cell's code or message shown on a page
SORTS = ("who", "score", "status", "late")


@dataclass
class _Kept:
    files: tuple            # the files the grades come from (`Workspace._files`)
    stored: dict[str, float]   # `Gradebook.stamps`: when each result was stored
    trail: int              # the latest override applied (`score.overrides.changed_since`)
    grades: AssignmentGrades
    ctx: dict[str, Any]


def _stamp(f: Path | None) -> tuple | None:
    try:
        st = os.stat(f) if f else None
    except OSError:
        return None
    return st and (st.st_ino, st.st_mtime_ns, st.st_size)


@dataclass
class Workspace:
    kit: Path
    out: Path
    roster: Path | None = None
    course: Any = None          # autograder.course.Course | None
    _cache: dict[str, _Kept] = field(default_factory=dict)

    @property
    def db(self) -> Path:
        return self.out / "gradebook.sqlite"

    def _files(self, assignment: str) -> tuple:
        """Stamps of the files the grades come from: the gradebook (and its write-ahead log), identities,
        roster, course file and manifest."""
        return tuple(_stamp(f) for f in (self.db, self.db.with_name(self.db.name + "-wal"), self.roster,
                                         self.out / assignment / "identities.json", getattr(self.course, "path", None),
                                         self.kit / "assignments" / assignment / "manifest.toml"))

    def _gradebook(self, assignment: str, kept: _Kept | None) -> tuple[dict[str, float], int, set[str], list]:
        """(`Gradebook.stamps`, the latest override's id, the submissions overridden since `kept`, the results
        stored again since `kept` when it holds the same submissions)."""
        from autograder.report.gradebook import Gradebook
        from autograder.score.overrides import changed_since

        if not self.db.is_file():
            return {}, 0, set(), []
        gb = Gradebook(self.db)
        try:
            stored = gb.stamps(assignment)
            same = kept is not None and stored.keys() == kept.stored.keys()
            again = [gb.get(assignment, sid) for sid, at in stored.items() if same and kept.stored[sid] != at]
        finally:
            gb.close()
        return (stored, *changed_since(self.db, assignment, kept.trail if kept else 0), [r for r in again if r])

    def grades(self, assignment: str) -> tuple[AssignmentGrades, dict[str, Any]]:
        """The assignment's grades and report context, as `autograder export` / `report` compute them.

        Kept while the files they come from are unchanged.  When the gradebook changed by overrides (made on
        a page, or by `autograder override` in a terminal) or results stored again (a re-grade of students
        it holds), only those submissions' rows are computed again (`AssignmentGrades.with_results`,
        `with_overrides_of`), then the report's context; a submission added, identities, roster, course file
        or manifest changed: everything is read again."""
        files = self._files(assignment)
        kept = self._cache.get(assignment)
        if kept and kept.files == files:
            return kept.grades, kept.ctx
        stored, trail, changed, again = self._gradebook(assignment, kept)   # before reading: anything
        # stored while the grades are read is seen on the next page
        if kept and kept.files[2:] == files[2:] and kept.stored.keys() == stored.keys():
            g = kept.grades.with_results(again) if again else kept.grades
            g = g.with_overrides_of(changed) if changed else g
            ctx = report_context(g.rows, title=g.assignment.title, plots=False) if changed or again else kept.ctx
        else:
            g = assignment_grades(self.kit, assignment, self.out, roster_csv=self.roster, course=self.course)
            ctx = report_context(g.rows, title=g.assignment.title, plots=False)
        self._cache[assignment] = _Kept(files, stored, trail, g, ctx)
        return g, ctx

    def warm(self) -> None:
        """Read every graded assignment now (`autograder serve` does, before it prints its address): the first
        page of each then answers from what is kept."""
        for assignment in self.assignments():
            self.grades(assignment)

    def assignments(self) -> list[str]:
        from autograder.assignment import list_assignments
        from autograder.report.gradebook import Gradebook

        if not self.db.is_file():
            return []
        gb = Gradebook(self.db)
        try:
            graded = gb.assignments()
            return [a for a in list_assignments(self.kit) if a in graded]
        finally:
            gb.close()


def course_page(ws: Workspace) -> dict[str, Any]:
    from autograder.similarity.pairs import RESULT_FILE, read_result

    rows = []
    for a in ws.assignments():
        g, ctx = ws.grades(a)
        sim = read_result(ws.out / a / RESULT_FILE)
        rows.append({"id": a, "title": g.assignment.title, "n": ctx["n"], "stats": ctx["stats"],
                     "statuses": ctx["statuses"], "late": len(ctx["late"]), "missing": len(ctx["missing"]),
                     "look": len(ctx["look"]), "pairs": len(sim.get("pairs", [])) if sim else None,
                     "warnings": g.warnings})
    return {"assignments": rows}


def assignment_page(ws: Workspace, assignment: str, query: dict[str, str]) -> dict[str, Any]:
    g, ctx = ws.grades(assignment)
    failing: dict[str, set[str]] = {}
    exercises: dict[str, set[str]] = {}
    for row in g.rows:
        if row.result:
            for t in row.result.tests:
                if t.outcome not in ("passed", "skipped") and not t.is_override:
                    failing.setdefault(row.submission_id, set()).add(t.id)
                    exercises.setdefault(row.submission_id, set()).add(t.exercise)
    status, exercise, test, late = (query.get(k, "") for k in ("status", "exercise", "test", "late"))
    sort = query.get("sort", "who") if query.get("sort") in SORTS else "who"
    rows = [v for v in ctx["rows"]
            if (not status or v["status"] == status or (status == "provisional" and v["provisional"])
                or (status == "look" and v in ctx["look"]))
            and (not exercise or exercise in exercises.get(v["id"], ()))
            and (not test or test in failing.get(v["id"], ()))
            and (not late or (late == "yes") == bool(v["late"]))]
    key = {"who": lambda v: (v["who"].casefold(), v["id"]),
           "score": lambda v: (v["score"] is None, v["score"] or 0.0),
           "status": lambda v: (v["status"], v["who"].casefold()),
           "late": lambda v: (-(v["late"]["penalty"] if v["late"] else -1), v["who"].casefold())}[sort]
    return {"a": g.assignment, "ctx": ctx, "rows": sorted(rows, key=key), "warnings": g.warnings,
            "filters": {"status": status, "exercise": exercise, "test": test, "late": late, "sort": sort},
            "statuses": [s for s, n in ctx["statuses"] if n] + ["look"], "exercise_names": [e["exercise"] for e in ctx["exercises"]],
            "test_ids": [t["id"] for t in ctx["tests"]], "sorts": SORTS}


def submission_page(ws: Workspace, assignment: str, sid: str, query: dict[str, str] | None = None) -> dict[str, Any] | None:
    from autograder.report import history
    from autograder.score import overrides as ov
    from autograder.serve import notebook

    query = query or {}

    g, _ctx = ws.grades(assignment)
    row = next((r for r in g.rows if r.submission_id == sid), None)
    if row is None or row.result is None:
        return None
    r = row.result
    by_exercise: dict[str, list] = {}
    for t in r.tests:
        if not t.is_override:   # a whole-score override is in the summary and the trail, not a test
            by_exercise.setdefault(t.exercise, []).append(t)
    failing_cells = {c.cell for c in r.cells if c.status in ("error", "timeout", "crashed")}
    cells = [{"cell": c.cell, "status": c.status, "type": c.type, "fail": c.cell in failing_cells,
              "message": c.message[:MAX_CELL_SHOWN], "code": c.code[:MAX_CELL_SHOWN],
              "notes": c.notes} for c in r.cells]
    kept = history.versions(ws.out, assignment, sid)
    by_sha = {v.sha256: v for v in kept}
    shown = by_sha.get(query.get("v", "")) or by_sha.get(r.sha256)
    rendered, unreadable = notebook.render(shown.notebook, failing_cells) if shown and shown.notebook else ([], "")
    old, new = by_sha.get(query.get("from", "")), by_sha.get(query.get("to", ""))
    if not (old and new) and len(kept) >= 2:
        old, new = kept[-2], kept[-1]
    diff = history.code_diff(old.notebook, new.notebook, (old.sha256[:12], new.sha256[:12])) if old and new else []
    return {"a": g.assignment, "row": row, "r": r, "exercises": sorted(by_exercise.items()), "cells": cells,
            "versions": kept, "counts": r.sha256, "shown": shown, "notebook": rendered, "unreadable": unreadable,
            "diff": diff, "diff_pair": (old, new),
            "trail": [o for o in ov.history(ws.db, assignment, sid)],
            "tests": [t for t in r.tests if not t.is_override],
            "stdout": r.stdout[:MAX_CELL_SHOWN], "stderr": r.stderr[:MAX_CELL_SHOWN]}


def override(ws: Workspace, assignment: str, sid: str, form: dict[str, str], by: str):
    """The CLI's `autograder override`: `report.overrides.set_override`, the author the session's name."""
    from autograder.report.overrides import set_override
    from autograder.score import overrides as ov

    try:
        score = float(form.get("score", ""))
    except ValueError:
        raise ov.OverrideError("the score must be a number") from None
    comment = form.get("comment", "").strip()
    if not comment:
        raise ov.OverrideError("say why in the comment: the student reads it next to the score")
    return set_override(ws.grades(assignment)[0], sid, test=form.get("test") or None, score=score, comment=comment, by=by)


def similarity_page(ws: Workspace, assignment: str) -> dict[str, Any]:
    from autograder.similarity.pairs import RESULT_FILE, read_result

    data = read_result(ws.out / assignment / RESULT_FILE)
    code = data.get("code", {}) if data else {}
    pairs = []
    for p in (data.get("pairs", []) if data else [])[:200]:
        sides = []
        for s in p.get("spans", [])[:5]:
            sides.append({"a": _marked(code.get(p["a"], {}).get(str(s["a_cell"]), ""), s["a_lines"]),
                          "b": _marked(code.get(p["b"], {}).get(str(s["b_cell"]), ""), s["b_lines"]),
                          "a_cell": s["a_cell"], "b_cell": s["b_cell"]})
        pairs.append({**p, "sides": sides})
    return {"assignment": assignment, "data": data, "pairs": pairs}


def _marked(source: str, ranges: list[list[int]]) -> list[tuple[bool, str]]:
    """Each line of a cell, and whether it lies in a matching span (the page highlights those)."""
    return [(any(a <= n <= b for a, b in ranges), line)
            for n, line in enumerate(source.splitlines(), start=1)]
