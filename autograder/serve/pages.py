"""What each workspace page shows, computed by the functions the CLI's commands call: `store.folder.
assignment_grades` (results with overrides in force, identities, roster, late policy), the instructor
report's `report_context`, `grades.overrides` (trail), `pipeline.set_override` and the similarity
file.  Nothing is stored here; a cache keeps one assignment's grades until a file they come from changes, and
after overrides or a re-grade computes again only the rows they change (`Workspace.grades`)."""
from __future__ import annotations

import os
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Sequence

from autograder.config.limits import (SHOWN_PAGE_TEXT, SHOWN_TEXT, SHOWN_VERSIONS, SIMILAR_PAIRS, SIMILAR_RANGES,
                                      SIMILAR_SPANS)
from autograder.grades.rows import AssignmentGrades
from autograder.store.folder import assignment_grades
from autograder.report.exports import EXPORT_FILES, write_export
from autograder.report.instructor_report import report_context
from autograder.config.assignment import list_assignments, load_assignment
from autograder.grades import overrides as ov
from autograder.grades.overrides import changed_since
from autograder.notebook.cells import in_exercise_order
from autograder.serve import notebook_view as notebook
from autograder.similarity.pairs import RESULT_FILE, read_result
from autograder.store import history
from autograder.store.gradebook import Gradebook

SORTS = ("who", "score", "status", "late")
HISTOGRAM_BINS = 10
ANSWERS_SHOWN = 8          # students per group whose answer cells a grade-by-exercise page shows (the rest: links)
EXPORTS = ("csv", "json", "canvas", "moodle")   # the formats of `autograder export`, as the page's buttons


@dataclass
class _Kept:
    files: tuple            # the files the grades come from (`Workspace._files`)
    stored: dict[str, float]   # `Gradebook.stamps`: when each result was stored
    trail: int              # the latest override applied (`grades.overrides.changed_since`)
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
    course: Any = None          # autograder.config.course.Course | None
    _cache: dict[str, _Kept] = field(default_factory=dict)

    @property
    def db(self) -> Path:
        return self.out / "gradebook.sqlite"

    def _files(self, assignment: str) -> tuple:
        """Stamps of the files the grades come from: the gradebook (and its write-ahead log), identities,
        roster, course file, manifest and master (the exercises' order)."""
        return tuple(_stamp(f) for f in (self.db, self.db.with_name(self.db.name + "-wal"), self.roster,
                                         self.out / assignment / "identities.json", getattr(self.course, "path", None),
                                         self.kit / "assignments" / assignment / "manifest.toml",
                                         self.kit / "solutions" / f"{assignment}.ipynb"))

    def _gradebook(self, assignment: str, kept: _Kept | None) -> tuple[dict[str, float], int, set[str], list]:
        """(`Gradebook.stamps`, the latest override's id, the submissions overridden since `kept`, the results
        stored again since `kept` when it holds the same submissions)."""

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
        if not self.db.is_file():
            return []
        gb = Gradebook(self.db)
        try:
            graded = gb.assignments()
            return [a for a in list_assignments(self.kit) if a in graded]
        finally:
            gb.close()


def course_title(ws: Workspace) -> str:
    """The course's title from course.toml's `[course] title` ("" without one): the pages' heading."""
    return str(ws.course.table("course").get("title", "")) if ws.course else ""


def course_page(ws: Workspace) -> dict[str, Any]:
    rows = []
    for a in ws.assignments():
        g, ctx = ws.grades(a)
        sim = read_result(ws.out / a / RESULT_FILE)
        rows.append({"id": a, "title": g.assignment.title, "n": ctx["n"], "stats": ctx["stats"],
                     "statuses": ctx["statuses"], "late": len(ctx["late"]), "missing": len(ctx["missing"]),
                     "look": len(ctx["look"]), "pairs": len(sim.get("pairs", [])) if sim else None,
                     "warnings": g.warnings})
    return {"assignments": rows, "title": course_title(ws)}


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
    names = in_exercise_order((e["exercise"] for e in ctx["exercises"]), g.order)
    return {"a": g.assignment, "ctx": ctx, "rows": sorted(rows, key=key), "warnings": g.warnings,
            "columns": names, "marks": _marks(g), "histogram": histogram([v["score"] for v in ctx["rows"]
                                                                          if v["score"] is not None], ctx["stats"]["max_score"]),
            "exports": EXPORTS, "notice": "",
            "filters": {"status": status, "exercise": exercise, "test": test, "late": late, "sort": sort},
            "statuses": [s for s, n in ctx["statuses"] if n] + ["look"], "exercise_names": names,
            "test_ids": [t["id"] for t in ctx["tests"]], "sorts": SORTS}


def _neighbours(ctx: dict[str, Any], sid: str) -> dict[str, str]:
    """Previous and next submission in the class list's order (by student), and the next one after `sid`
    that needs a look (wrapping round): the links and keys of the grade-by-submission page."""
    order = [v["id"] for v in ctx["rows"] if v["id"]]
    look = {v["id"] for v in ctx["look"]}
    i = order.index(sid) if sid in order else -1
    after = order[i + 1:] + order[:max(i, 0)]
    return {"prev": order[i - 1] if i > 0 else "", "next": order[i + 1] if 0 <= i < len(order) - 1 else "",
            "look": next((x for x in after if x in look and x != sid), ""), "at": f"{i + 1} of {len(order)}"}


def _sections(rendered: list[dict[str, Any]], tests: list, order: Sequence[str]) -> list[dict[str, Any]]:
    """The notebook cut into its exercises (`notebook.cells.exercise_of_cells`), each with its tests and
    points beside its cells: consecutive cells of one exercise make a section; an exercise with tests and no
    cell found (a notebook without `check` calls) gets a section of its tests alone, in `order`."""
    by_ex: dict[str, list] = {}
    for t in tests:
        by_ex.setdefault(t.exercise, []).append(t)
    sections: list[dict[str, Any]] = []
    for c in rendered:
        if not sections or sections[-1]["exercise"] != c["exercise"]:
            sections.append({"exercise": c["exercise"], "cells": [], "tests": []})
        sections[-1]["cells"].append(c)
    seen: set[str] = set()
    for sec in sections:
        if sec["exercise"] in by_ex and sec["exercise"] not in seen:
            sec["tests"] = by_ex[sec["exercise"]]
            seen.add(sec["exercise"])
    for ex in in_exercise_order(set(by_ex) - seen, order):
        sections.append({"exercise": ex, "cells": [], "tests": by_ex[ex]})
    for sec in sections:
        ts = sec["tests"]
        sec["score"], sec["max"] = sum(t.score for t in ts), sum(t.max_score for t in ts)
        sec["failed"] = [t for t in ts if t.outcome not in ("passed", "skipped")]
        sec["passed"] = [t for t in ts if t.outcome in ("passed", "skipped")]
        sec["bad_cells"] = sum(c["fail"] for c in sec["cells"])
    return sections


def _marks(g: AssignmentGrades) -> dict[str, dict[str, Any]]:
    """Per submission: its points per exercise ({exercise: (score, max)}), whether an override is in force
    (its result is not the counted one as stored: `grades.overrides.apply` copies only when one applies) and
    the reason a result is provisional."""
    marks = {}
    for r, c in zip(g.results, g.counted):
        ex: dict[str, list[float]] = {}
        for t in r.tests:
            if not t.is_override:
                acc = ex.setdefault(t.exercise, [0.0, 0.0])
                acc[0] += t.score
                acc[1] += t.max_score
        marks[r.submission_id] = {"ex": ex, "overridden": r is not c, "provisional": r.provisional or ""}
    return marks


def histogram(scores: list[float], top: float, bins: int = HISTOGRAM_BINS) -> dict[str, Any]:
    """The class's scores in `bins` equal bins from 0 to `top`, as bars for an inline SVG the page draws
    (no script, no image): {"bars": [{"x", "h", "n", "label"}], "width", "height"}."""
    counts = [0] * bins
    for x in scores:
        counts[min(bins - 1, max(0, int(bins * x / top))) if top > 0 else 0] += 1
    most = max(counts, default=0) or 1
    width, height, bar = 30 * bins, 80, 30
    return {"width": width, "height": height + 16, "bars": [
        {"x": i * bar, "w": bar - 3, "h": round(height * n / most, 1), "y": round(height - height * n / most, 1), "n": n,
         "label": f"{top * i / bins:g}–{top * (i + 1) / bins:g}: {n}"} for i, n in enumerate(counts)],
        "top": top, "n": len(scores)}


def export(ws: Workspace, assignment: str, fmt: str) -> str:
    """`autograder export ASSIGNMENT --format FMT` to its default file (blank for missing students; Canvas's
    assignment id from course.toml's `[assignments.ID] canvas_assignment`): what the page's buttons run.
    Returns what to tell the TA."""
    if fmt not in EXPORTS:
        raise ov.OverrideError("unknown export format")
    g, _ = ws.grades(assignment)
    canvas_id = str(ws.course.assignment(assignment).get("canvas_assignment", "")) if ws.course else ""
    if fmt == "canvas" and not canvas_id:
        raise ov.OverrideError(f"a Canvas export needs the Canvas assignment's id: set [assignments.{assignment}] "
                               "canvas_assignment in course.toml, or run `autograder export --format canvas "
                               "--new-assignment` in a terminal")
    dest = g.out / assignment / EXPORT_FILES[fmt]
    skipped, blanks = write_export(fmt, dest, g, canvas_id=canvas_id or None)
    return f"wrote {dest} ({len(g.rows) - len(skipped)} students" + (f"; {len(skipped)} not exported" if skipped else "") \
        + (f"; {len(blanks)} blank" if blanks else "") + ")"


def submission_page(ws: Workspace, assignment: str, sid: str, query: dict[str, str] | None = None) -> dict[str, Any] | None:
    """Grade by submission: the notebook as the student saw it (`serve.notebook_view`), cut into exercises
    with each one's tests and points beside its cells, the override forms, the versions, and the neighbours."""

    query = query or {}

    g, ctx = ws.grades(assignment)
    row = next((r for r in g.rows if r.submission_id == sid), None)
    if row is None or row.result is None:
        return None
    r = row.result
    counted = next((c for c in g.counted if c.submission_id == sid), None)
    trail = ov.history(ws.db, assignment, sid)
    applied, stale = ov.in_force(trail, counted) if counted else ([], [])
    names = {t.id: t.name for t in r.tests}
    tests = [t for t in r.tests if not t.is_override]   # a whole-score override is in the summary and the trail
    by_exercise: dict[str, list] = {}
    for t in tests:
        by_exercise.setdefault(t.exercise, []).append(t)
    failing_cells = {c.cell for c in r.cells if c.status in ("error", "timeout", "crashed")}
    cells, left = [], SHOWN_PAGE_TEXT
    for c in r.cells:
        if left <= 0:
            break   # the result's own cap bounds them too (`config.limits.MAX_RESULT_BYTES`); a page shows less
        cells.append({"cell": c.cell, "status": c.status, "type": c.type, "fail": c.cell in failing_cells,
                      "message": c.message[:SHOWN_TEXT], "code": c.code[:SHOWN_TEXT], "notes": c.notes})
        left -= len(cells[-1]["message"]) + len(cells[-1]["code"])
    kept = history.versions(ws.out, assignment, sid, latest=SHOWN_VERSIONS)
    by_sha = {v.sha256: v for v in kept}
    shown = by_sha.get(query.get("v", "")) or by_sha.get(r.sha256)
    rendered, unreadable = notebook.render(shown.notebook, failing_cells) if shown and shown.notebook else ([], "")
    old, new = by_sha.get(query.get("from", "")), by_sha.get(query.get("to", ""))
    if not (old and new) and len(kept) >= 2:
        old, new = kept[-2], kept[-1]
    diff = history.code_diff(old.notebook, new.notebook, (old.sha256[:12], new.sha256[:12])) if old and new else []
    return {"a": g.assignment, "row": row, "r": r, "cells": cells,
            "sections": _sections(rendered, tests, g.order),
            "versions": kept, "counts": r.sha256, "shown": shown, "unreadable": unreadable,
            "diff": diff, "diff_pair": (old, new), "nav": _neighbours(ctx, sid),
            "trail": trail, "names": names, "applied": applied, "stale": stale,
            "menu": [(ex, by_exercise[ex]) for ex in in_exercise_order(by_exercise, g.order)],
            "stdout": r.stdout[:SHOWN_TEXT], "stderr": r.stderr[:SHOWN_TEXT]}


def override(ws: Workspace, assignment: str, sid: str, form: dict[str, str], by: str):
    """The CLI's `autograder override`: `pipeline.set_override`, or with `action` clear / reapply / ack
    `pipeline.change_override` (`--clear`, `--reapply`, `--ack`); the author the session's name."""
    from autograder.pipeline import change_override, set_override

    action = form.get("action", "set")
    if action != "set":
        if action not in ("clear", "reapply", "ack"):
            raise ov.OverrideError("unknown action")
        return change_override(ws.grades(assignment)[0], sid, test=form.get("test") or None, action=action, by=by)
    try:
        score = float(form.get("score", ""))
    except ValueError:
        raise ov.OverrideError("the score must be a number") from None
    comment = form.get("comment", "").strip()
    if not comment:
        raise ov.OverrideError("say why in the comment: the student reads it next to the score")
    return set_override(ws.grades(assignment)[0], sid, test=form.get("test") or None, score=score, comment=comment, by=by)


def exercise_page(ws: Workspace, assignment: str, exercise: str) -> dict[str, Any] | None:
    """Grade by exercise: every submission's result on `exercise`, grouped by identical failures (the same
    tests not passed with the same messages), the largest group first, so that one comment or adjustment
    (`group_override`) is given to a whole group; the first ANSWERS_SHOWN of each group with their answer
    cells (`notebook.answer_cells` of the version that counts), the rest as links; the exercise's comment
    bank.  None when no test belongs to `exercise`."""
    g, ctx = ws.grades(assignment)
    who = {v["id"]: v["who"] for v in ctx["rows"] if v["id"]}
    groups: dict[tuple, dict[str, Any]] = {}
    tests: dict[str, Any] = {}
    for row in g.rows:
        r = row.result
        if r is None or not row.gradable:
            continue
        mine = [t for t in r.tests if t.exercise == exercise and not t.is_override]
        if not mine:
            continue
        for t in mine:
            tests.setdefault(t.id, t)
        bad = [t for t in mine if t.outcome not in ("passed", "skipped")]
        key = tuple((t.id, t.outcome, t.message) for t in bad)
        grp = groups.setdefault(key, {"failures": bad, "members": [], "score": sum(t.score for t in mine),
                                      "max": sum(t.max_score for t in mine)})
        grp["members"].append({"id": r.submission_id, "who": who.get(r.submission_id, r.submission_id),
                               "score": sum(t.score for t in mine), "cells": None,
                               "failing": {c.cell for c in r.cells if c.status in ("error", "timeout", "crashed")},
                               "sha256": r.sha256})
    if not tests:
        return None
    ordered = sorted(groups.values(), key=lambda grp: (not grp["failures"], -len(grp["members"])))
    for n, grp in enumerate(ordered, start=1):
        grp["n"] = n
        grp["members"].sort(key=lambda m: m["who"].casefold())
        for m in grp["members"][:ANSWERS_SHOWN]:
            kept = {v.sha256: v for v in history.versions(ws.out, assignment, m["id"])}.get(m["sha256"])
            m["cells"] = notebook.answer_cells(kept.notebook, exercise, m["failing"]) if kept and kept.notebook else []
    return {"a": g.assignment, "exercise": exercise, "groups": ordered, "tests": list(tests.values()),
            "bank": ov.bank(ws.db, assignment, exercise), "shown": ANSWERS_SHOWN,
            "others": [e for e in g.order if e != exercise]}


def group_override(ws: Workspace, assignment: str, exercise: str, form: dict[str, str], sids: list[str],
                   by: str) -> int:
    """The grade-by-exercise form: one override of the chosen test per submission of the group (`report.
    overrides.set_group`, each in the trail with `by`), with a new score or none (a comment alone); the
    comment typed is saved to the exercise's bank, or one from the bank is used.  Returns how many."""
    from autograder.pipeline import set_group

    test = form.get("test", "")
    if not test:
        raise ov.OverrideError("choose the test the comment or the score is for")
    raw = form.get("score", "").strip()
    try:
        score = float(raw) if raw else None
    except ValueError:
        raise ov.OverrideError("the score must be a number, or empty to keep each student's") from None
    typed, banked = form.get("comment", "").strip(), form.get("bank", "").strip()
    comment = typed or banked
    if not comment:
        raise ov.OverrideError("write a comment or choose one from the bank: the students read it")
    g, _ = ws.grades(assignment)
    if any(t.exercise != exercise for r in g.results for t in r.tests if t.id == test):
        raise ov.OverrideError(f"that test is not one of {exercise}'s")
    if typed:
        ov.save_comment(ws.db, assignment, exercise, typed, by)
    return len(set_group(g, sids, test=test, score=score, comment=comment, by=by))


def similarity_page(ws: Workspace, assignment: str) -> dict[str, Any]:
    load_assignment(assignment, ws.kit)  # a name from the URL is one of the kit's assignments, never a path (`..`)
    data = read_result(ws.out / assignment / RESULT_FILE)
    code = data.get("code", {}) if data else {}
    pairs = []
    for p in (data.get("pairs", []) if data else [])[:SIMILAR_PAIRS]:
        sides = []
        for s in p.get("spans", [])[:SIMILAR_SPANS]:
            sides.append({"a": _marked(code.get(p["a"], {}).get(str(s["a_cell"]), ""), s["a_lines"]),
                          "b": _marked(code.get(p["b"], {}).get(str(s["b_cell"]), ""), s["b_lines"]),
                          "a_cell": s["a_cell"], "b_cell": s["b_cell"]})
        pairs.append({**p, "sides": sides})
    return {"assignment": assignment, "data": data, "pairs": pairs}


def _marked(source: str, ranges: list[list[int]]) -> list[tuple[bool, str]]:
    """Each line of a cell, and whether it lies in a matching span (the page highlights those): the cell cut
    to SHOWN_TEXT characters, at most SIMILAR_RANGES ranges."""
    lines = source[:SHOWN_TEXT].splitlines()
    marked = [False] * len(lines)
    for a, b in ranges[:SIMILAR_RANGES]:
        for n in range(max(a, 1), min(b, len(lines)) + 1):
            marked[n - 1] = True
    return list(zip(marked, lines))
