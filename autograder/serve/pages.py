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

from autograder.config.assignment import list_assignments, load_assignment
from autograder.config.limits import (
    SHOWN_PAGE_TEXT,
    SHOWN_TEXT,
    SHOWN_VERSIONS,
    SIMILAR_PAIRS,
    SIMILAR_RANGES,
    SIMILAR_SPANS,
)
from autograder.grades import overrides as ov
from autograder.grades import rubric
from autograder.grades.rows import AssignmentGrades
from autograder.judge.results import RUBRIC_LINE
from autograder.notebook.cells import in_exercise_order
from autograder.report.exports import EXPORT_FILES, write_export
from autograder.report.instructor_report import report_context
from autograder.serve import notebook_view as notebook
from autograder.serve import team
from autograder.similarity.pairs import RESULT_FILE, read_result
from autograder.store import history
from autograder.store import team as team_store
from autograder.store.database import Gradebook, gradebook_path
from autograder.store.folder import assignment_grades, identities_path
from autograder.store.marks import Marks as MarkStore

SORTS = ("who", "score", "status", "late")
HISTOGRAM_BINS = 10
ANSWERS_SHOWN = 8  # students per group whose answer cells a grade-by-exercise page shows (the rest: links)
EXPORTS = ("csv", "json", "canvas", "moodle")  # the formats of `autograder export`, as the page's buttons


@dataclass
class _Kept:
    files: tuple  # the files the grades come from (`Workspace._files`)
    stored: dict[str, float]  # `Gradebook.stamps`: when each result was stored
    trail: int  # the latest change of the marks read (`store.marks.Marks.changed_since`)
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
    course: Any = None  # autograder.config.course.Course | None
    _cache: dict[str, _Kept] = field(default_factory=dict)

    @property
    def db(self) -> Path:
        return gradebook_path(self.out)

    def _files(self, assignment: str) -> tuple:
        """Stamps of the files the grades come from: the gradebook (and its write-ahead log), identities,
        roster, course file, manifest and master (the exercises' order)."""
        return tuple(
            _stamp(f)
            for f in (
                self.db,
                self.db.with_name(self.db.name + "-wal"),
                self.roster,
                identities_path(self.out, assignment),
                getattr(self.course, "path", None),
                self.kit / "assignments" / assignment / "manifest.toml",
                self.kit / "solutions" / f"{assignment}.ipynb",
            )
        )

    def _gradebook(self, assignment: str, kept: _Kept | None) -> tuple[dict[str, float], int, set[str], list]:
        """(`Gradebook.stamps`, the latest override's id, the submissions overridden since `kept`, the results
        stored again since `kept` when it holds the same submissions)."""

        if not self.db.is_file():
            return {}, 0, set(), []
        gb = Gradebook(self.db)
        try:
            stored = gb.stamps(assignment)
            same = kept is not None and stored.keys() == kept.stored.keys()
            again = [
                gb.get(assignment, sid)
                for sid, at in stored.items()
                if same and kept is not None and kept.stored[sid] != at
            ]
        finally:
            gb.close()
        return (
            stored,
            *MarkStore(self.out).changed_since(assignment, kept.trail if kept else 0),
            [r for r in again if r],
        )

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
        stored, trail, changed, again = self._gradebook(assignment, kept)  # before reading: anything
        # stored while the grades are read is seen on the next page
        if kept and kept.files[2:] == files[2:] and kept.stored.keys() == stored.keys():
            g = kept.grades.with_results(again) if again else kept.grades
            g = g.with_overrides_of(changed)  # the marks read again (an item added changes no row, yet shows)
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
        rows.append(
            {
                "id": a,
                "title": g.assignment.title,
                "n": ctx["n"],
                "stats": ctx["stats"],
                "statuses": ctx["statuses"],
                "late": len(ctx["late"]),
                "missing": len(ctx["missing"]),
                "look": len(ctx["look"]),
                "pairs": len(sim.get("pairs", [])) if sim else None,
                "warnings": [hide(w, aliases(ws, a)) for w in g.warnings],
            }
        )
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
    rows = [
        v
        for v in ctx["rows"]
        if (
            not status
            or v["status"] == status
            or (status == "provisional" and v["provisional"])
            or (status == "look" and v in ctx["look"])
        )
        and (not exercise or exercise in exercises.get(v["id"], ()))
        and (not test or test in failing.get(v["id"], ()))
        and (not late or (late == "yes") == bool(v["late"]))
    ]
    alias = aliases(ws, assignment)
    rows = anonymised(rows, alias)
    key = {
        "who": lambda v: (v["who"].casefold(), v["id"]),
        "score": lambda v: (v["score"] is None, v["score"] or 0.0),
        "status": lambda v: (v["status"], v["who"].casefold()),
        "late": lambda v: (-(v["late"]["penalty"] if v["late"] else -1), v["who"].casefold()),
    }[sort]
    names = in_exercise_order((e["exercise"] for e in ctx["exercises"]), g.order)
    return {
        "a": g.assignment,
        "ctx": ctx,
        "rows": sorted(rows, key=key),
        "warnings": [hide(w, alias) for w in g.warnings],
        "columns": names,
        "marks": _marks(g),
        "histogram": histogram([v["score"] for v in ctx["rows"] if v["score"] is not None], ctx["stats"]["max_score"]),
        "exports": EXPORTS,
        "notice": "",
        "filters": {"status": status, "exercise": exercise, "test": test, "late": late, "sort": sort},
        "statuses": [s for s, n in ctx["statuses"] if n] + ["look"],
        "exercise_names": names,
        "test_ids": [t["id"] for t in ctx["tests"]],
        "sorts": SORTS,
        "anonymous": bool(alias),
        "revealed": team_store.revealed(ws.db, assignment)
        if ws.course and ws.course.table("serve").get("anonymous") is True
        else None,
    }


def _neighbours(ctx: dict[str, Any], sid: str, alias: dict[str, str]) -> dict[str, str]:
    """Previous and next submission in the class list's order (by student; by pseudonym under anonymous
    grading), and the next one after `sid` that needs a look (wrapping round): the links and keys of the
    grade-by-submission page."""
    order = [v["id"] for v in ctx["rows"] if v["id"]]
    if alias:
        order.sort(key=lambda x: int(alias.get(x, "Student 0").split()[-1]))
    look = {v["id"] for v in ctx["look"]}
    i = order.index(sid) if sid in order else -1
    after = order[i + 1 :] + order[: max(i, 0)]
    return {
        "prev": order[i - 1] if i > 0 else "",
        "next": order[i + 1] if 0 <= i < len(order) - 1 else "",
        "look": next((x for x in after if x in look and x != sid), ""),
        "at": f"{i + 1} of {len(order)}",
    }


def basis(ws: Workspace, assignment: str, sids: list[str], at: float) -> str:
    """The basis of a form on `sids` drawn at `at` (`team.basis_of`: `at` and the versions that count)."""
    g, _ = ws.grades(assignment)
    want = set(sids)
    return team.basis_of(at, {c.submission_id: c.sha256 for c in g.counted if c.submission_id in want})


def check_basis(ws: Workspace, assignment: str, sids: list[str], form: dict[str, str]) -> None:
    """Refuse (`team.StaleForm`, with what changed) a form whose `basis` is not the state of `sids` now: the
    marks as the store holds them at this moment (not as a page kept them) and the versions that count."""
    g, _ = ws.grades(assignment)
    want = set(sids)
    store = MarkStore(ws.out)
    marks = store.marks(assignment, sids[0]) if len(want) == 1 else store.marks(assignment)
    marks = rubric.Marks(
        [o for o in marks.overrides if o.submission_id in want],
        marks.items,
        [a for a in marks.applied if a.submission_id in want],
    )
    counted = {c.submission_id: c.sha256 for c in g.counted if c.submission_id in want}
    names = {t.id: t.name for r in g.results if r.submission_id in want for t in r.tests}
    changed = team.changes_since(form.get("basis", ""), marks, store.trail(assignment), counted, names)
    if changed:
        alias = aliases(ws, assignment)
        raise team.StaleForm([hide(c, alias) for c in changed])


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
    for i, sec in enumerate(sections, start=1):
        sec["anchor"] = f"ex-{i}"
        ts = sec["tests"]
        sec["score"], sec["max"] = sum(t.score for t in ts), sum(t.max_score for t in ts)
        sec["failed"] = [t for t in ts if t.outcome not in ("passed", "skipped")]
        sec["passed"] = [t for t in ts if t.outcome in ("passed", "skipped")]
        sec["bad_cells"] = sum(c["fail"] for c in sec["cells"])
    return sections


def _marks(g: AssignmentGrades) -> dict[str, dict[str, Any]]:
    """Per submission: its points per exercise ({exercise: (score, max)}, its rubric items included), whether an
    override is in force (`grades.overrides.in_force` of its trail: a comment, a rubric item, is no override),
    how many rubric items it has, and the reason a result is provisional."""
    marks = {}
    overrides: dict[str, list] = {}
    items: dict[str, int] = {}
    for o in g.marks.overrides:
        overrides.setdefault(o.submission_id, []).append(o)
    for a in g.marks.applied:
        items[a.submission_id] = items.get(a.submission_id, 0) + 1
    for r, c in zip(g.results, g.counted):
        ex: dict[str, list[float]] = {}
        for t in r.tests:
            if not t.is_override or t.id.startswith(RUBRIC_LINE):
                acc = ex.setdefault(t.exercise, [0.0, 0.0])
                acc[0] += t.score
                acc[1] += t.max_score
        in_force = ov.in_force(overrides.get(c.submission_id, []), c)[0] if c.submission_id in overrides else []
        marks[r.submission_id] = {
            "ex": {e: [round(a, 4), b] for e, (a, b) in ex.items()},
            "overridden": bool(in_force),
            "items": items.get(r.submission_id, 0),
            "provisional": r.provisional or "",
        }
    return marks


def histogram(scores: list[float], top: float, bins: int = HISTOGRAM_BINS) -> dict[str, Any]:
    """The class's scores in `bins` equal bins from 0 to `top`, as bars for an inline SVG the page draws
    (no script, no image): {"bars": [{"x", "h", "n", "label"}], "width", "height"}."""
    counts = [0] * bins
    for x in scores:
        counts[min(bins - 1, max(0, int(bins * x / top))) if top > 0 else 0] += 1
    most = max(counts, default=0) or 1
    width, height, bar = 30 * bins, 80, 30
    return {
        "width": width,
        "height": height + 16,
        "bars": [
            {
                "x": i * bar,
                "w": bar - 3,
                "h": round(height * n / most, 1),
                "y": round(height - height * n / most, 1),
                "n": n,
                "label": f"{top * i / bins:g}–{top * (i + 1) / bins:g}: {n}",
            }
            for i, n in enumerate(counts)
        ],
        "top": top,
        "n": len(scores),
    }


def export(ws: Workspace, assignment: str, fmt: str) -> tuple[str, bytes]:
    """What `autograder export ASSIGNMENT --format FMT` writes (blank for missing students; Canvas's assignment
    id from course.toml's `[assignments.ID] canvas_assignment`), as (file name, bytes) for the browser to
    download: a TA on a remote server has no use for a file written there.  Written by the same
    `write_export` to a private temporary folder, read back and removed; the results folder is not touched."""
    import tempfile

    if fmt not in EXPORTS:
        raise ov.OverrideError("unknown export format")
    g, _ = ws.grades(assignment)
    canvas_id = str(ws.course.assignment(assignment).get("canvas_assignment", "")) if ws.course else ""
    if fmt == "canvas" and not canvas_id:
        raise ov.OverrideError(
            f"a Canvas export needs the Canvas assignment's id: set [assignments.{assignment}] "
            "canvas_assignment in course.toml, or run `autograder export --format canvas "
            "--new-assignment` in a terminal"
        )
    name = f"{assignment}_{EXPORT_FILES[fmt]}"
    with tempfile.TemporaryDirectory(prefix="autograder-export-") as tmp:
        dest = Path(tmp) / name
        write_export(fmt, dest, g, canvas_id=canvas_id or None)
        return name, dest.read_bytes()


def submission_page(
    ws: Workspace, assignment: str, sid: str, query: dict[str, str] | None = None
) -> dict[str, Any] | None:
    """Grade by submission: the notebook as the student saw it (`serve.notebook_view`), cut into exercises
    with each one's tests and points beside its cells, the override forms, the versions, and the neighbours."""

    import time

    query = query or {}
    drawn = time.time()  # the basis of the page's forms: any change after this refuses them
    g, ctx = ws.grades(assignment)
    alias = aliases(ws, assignment)
    row = next((r for r in g.rows if r.submission_id == sid), None)
    if row is None or row.result is None:
        return None
    r = row.result
    counted = next((c for c in g.counted if c.submission_id == sid), None)
    mine = g.marks.of(sid)
    trail = mine.overrides
    applied, stale = ov.in_force(trail, counted) if counted else ([], [])
    has = {a.item_id: a for a in mine.applied}
    names = {t.id: t.name for t in r.tests}
    tests = [t for t in r.tests if not t.is_override]  # a whole-score override is in the summary and the trail
    by_exercise: dict[str, list] = {}
    for t in tests:
        by_exercise.setdefault(t.exercise, []).append(t)
    failing_cells = {c.cell for c in r.cells if c.status in ("error", "timeout", "crashed")}
    cells: list[dict[str, Any]] = []
    left = SHOWN_PAGE_TEXT
    for c in r.cells:
        if left <= 0:
            break  # the result's own cap bounds them too (`config.limits.MAX_RESULT_BYTES`); a page shows less
        cells.append(
            {
                "cell": c.cell,
                "status": c.status,
                "type": c.type,
                "fail": c.cell in failing_cells,
                "message": c.message[:SHOWN_TEXT],
                "code": c.code[:SHOWN_TEXT],
                "notes": c.notes,
            }
        )
        left -= len(cells[-1]["message"]) + len(cells[-1]["code"])
    kept = history.versions(ws.out, assignment, sid, latest=SHOWN_VERSIONS)
    by_sha = {v.sha256: v for v in kept}
    shown = by_sha.get(query.get("v", "")) or by_sha.get(r.sha256)
    rendered, unreadable = notebook.render(shown.notebook, failing_cells) if shown and shown.notebook else ([], "")
    old, new = by_sha.get(query.get("from", "")), by_sha.get(query.get("to", ""))
    if not (old and new) and len(kept) >= 2:
        old, new = kept[-2], kept[-1]
    diff = history.code_diff(old.notebook, new.notebook, (old.sha256[:12], new.sha256[:12])) if old and new else []
    sections = _sections(rendered, tests, g.order)
    for sec in sections:  # the exercise's rubric items beside its tests: applied here or not, by key
        sec["items"] = [
            {"item": i, "on": i.id in has, "stale": i.id in has and has[i.id].sha256 != r.sha256}
            for i in g.marks.items
            if i.exercise == sec["exercise"] and not i.deleted
        ]
        sec["adjust"] = sum(t.score for t in r.tests if t.id == RUBRIC_LINE + sec["exercise"])
    return {
        "a": g.assignment,
        "row": row,
        "r": r,
        "cells": cells,
        "sections": sections,
        "versions": kept,
        "counts": r.sha256,
        "shown": shown,
        "unreadable": unreadable,
        "diff": diff,
        "diff_pair": (old, new),
        "nav": _neighbours(ctx, sid, alias),
        "alias": alias.get(sid, ""),
        "trail": trail,
        "names": names,
        "applied": applied,
        "stale": stale,
        "menu": [(ex, by_exercise[ex]) for ex in in_exercise_order(by_exercise, g.order)],
        "basis": team.basis_of(drawn, {sid: counted.sha256} if counted else {}),
        "rubric_log": [e for e in MarkStore(ws.out).trail(assignment) if any(t[0] == sid for t in e["touched"])],
        "failing_exercises": [
            e for e, ts in by_exercise.items() if any(t.outcome not in ("passed", "skipped") for t in ts)
        ],
        "stdout": r.stdout[:SHOWN_TEXT],
        "stderr": r.stderr[:SHOWN_TEXT],
    }


def override(ws: Workspace, assignment: str, sid: str, form: dict[str, str], by: str):
    """The CLI's `autograder override`: `pipeline.set_override`, or with `action` clear / reapply / ack
    `pipeline.change_override` (`--clear`, `--reapply`, `--ack`); the author the session's name."""
    from autograder.pipeline import change_override, set_override

    check_basis(ws, assignment, [sid], form)
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
    return set_override(
        ws.grades(assignment)[0], sid, test=form.get("test") or None, score=score, comment=comment, by=by
    )


def exercise_page(ws: Workspace, assignment: str, exercise: str) -> dict[str, Any] | None:
    """Grade by exercise: every submission's result on `exercise`, grouped by identical failures (the same
    tests not passed with the same messages), the largest group first, so that one comment or adjustment
    (`group_override`) is given to a whole group; the first ANSWERS_SHOWN of each group with their answer
    cells (`notebook.answer_cells` of the version that counts), the rest as links; the exercise's comment
    bank.  None when no test belongs to `exercise`."""
    g, ctx = ws.grades(assignment)
    who = {v["id"]: v["who"] for v in ctx["rows"] if v["id"]}
    alias = aliases(ws, assignment)
    who.update(alias)
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
        grp = groups.setdefault(
            key,
            {
                "failures": bad,
                "members": [],
                "score": sum(t.score for t in mine),
                "max": sum(t.max_score for t in mine),
            },
        )
        grp["members"].append(
            {
                "id": r.submission_id,
                "who": who.get(r.submission_id, r.submission_id),
                "score": sum(t.score for t in mine),
                "cells": None,
                "failing": {c.cell for c in r.cells if c.status in ("error", "timeout", "crashed")},
                "sha256": r.sha256,
            }
        )
    if not tests:
        return None
    import time

    drawn = time.time()
    ordered = sorted(groups.values(), key=lambda grp: (not grp["failures"], -len(grp["members"])))
    counted = {c.submission_id: c.sha256 for c in g.counted}
    finished = team_store.done(ws.db, assignment)
    items = [i for i in g.marks.items if i.exercise == exercise and not i.deleted]
    holders: dict[int, set[str]] = {}
    for a in g.marks.applied:
        holders.setdefault(a.item_id, set()).add(a.submission_id)
    released = _released(ws, assignment)
    for n, grp in enumerate(ordered, start=1):
        grp["n"] = n
        ids = {m["id"] for m in grp["members"]}
        grp["done"] = sum((m["id"], exercise) in finished for m in grp["members"])
        grp["basis"] = team.basis_of(drawn, {k: v for k, v in counted.items() if k in ids})
        grp["items"] = {i.id: len(ids & holders.get(i.id, set())) for i in items}
        grp["members"].sort(key=lambda m: m["who"].casefold())
        for m in grp["members"][:ANSWERS_SHOWN]:
            kept = {v.sha256: v for v in history.versions(ws.out, assignment, m["id"])}.get(m["sha256"])
            m["cells"] = (
                notebook.answer_cells(kept.notebook, exercise, m["failing"], released) if kept and kept.notebook else []
            )
    return {
        "a": g.assignment,
        "exercise": exercise,
        "groups": ordered,
        "tests": list(tests.values()),
        "items": items,
        "uses": {i.id: len(holders.get(i.id, ())) for i in items},
        "shown": ANSWERS_SHOWN,
        "others": [e for e in g.order if e != exercise],
        "anonymous": bool(alias),
        "keys": rubric.KEYS,
    }


def _released(ws: Workspace, assignment: str) -> frozenset[str]:
    """The code cells of the released student notebook (`student/ASSIGNMENT.ipynb`), each as
    `notebook_view.same_code` reads it: what every student was handed (setup, imports, `Checker(...)`, stubs), which
    the grade-by-exercise page leaves out of their answers.  Empty when the kit holds no released notebook."""
    path = ws.kit / "student" / f"{assignment}.ipynb"
    key = (path, _stamp(path))
    if key not in _RELEASED:
        _RELEASED[key] = notebook.code_cells(path) if path.is_file() else frozenset()
    return _RELEASED[key]


_RELEASED: dict[tuple, frozenset[str]] = {}


def group_override(
    ws: Workspace, assignment: str, exercise: str, form: dict[str, str], sids: list[str], by: str
) -> int:
    """The grade-by-exercise form (`pipeline.set_group`): with a score, one override of the chosen test per
    submission of the group, each in the trail with `by`; without one the comment is a comment, not an
    override: a zero-point rubric item of the exercise applied to each.  Returns how many."""
    from autograder.pipeline import set_group

    test = form.get("test", "")
    if not test:
        raise ov.OverrideError("choose the test the comment or the score is for")
    raw = form.get("score", "").strip()
    try:
        score = float(raw) if raw else None
    except ValueError:
        raise ov.OverrideError("the score must be a number, or empty to keep each student's") from None
    comment = form.get("comment", "").strip()
    if not comment:
        raise ov.OverrideError("write a comment: the students read it")
    check_basis(ws, assignment, sids, form)
    g, _ = ws.grades(assignment)
    if any(t.exercise != exercise for r in g.results for t in r.tests if t.id == test):
        raise ov.OverrideError(f"that test is not one of {exercise}'s")
    n = len(set_group(g, sids, test=test, score=score, comment=comment, by=by))
    team_store.mark_done(ws.db, assignment, sids, exercise, by)
    return n


def apply_item(
    ws: Workspace, assignment: str, form: dict[str, str], sids: list[str], by: str, exercise: str = ""
) -> int:
    """Apply (or, with `action=unapply`, take off) the rubric item `item` to `sids` (one submission, or a group
    of the exercise page): `pipeline.rubric_apply` / `rubric_unapply`, as `autograder rubric --apply` does, after
    the form's basis is checked.  Returns how many submissions."""
    from autograder.pipeline import rubric_apply, rubric_unapply

    if not sids:
        raise ov.OverrideError("no submission chosen")
    check_basis(ws, assignment, sids, form)
    g, _ = ws.grades(assignment)
    item = next((i for i in g.marks.items if str(i.id) == form.get("item", "") and not i.deleted), None)
    if item is None or (exercise and item.exercise != exercise):
        raise ov.OverrideError("no such rubric item" + (f" of {exercise}" if exercise else ""))
    (rubric_unapply if form.get("action") == "unapply" else rubric_apply)(g, item.id, sids, by=by)
    if exercise:
        team_store.mark_done(ws.db, assignment, sids, exercise, by)
    return len(set(sids))


def edit_rubric(ws: Workspace, assignment: str, exercise: str, form: dict[str, str], by: str) -> str:
    """The exercise page's rubric: add an item (`action=add`), change one (`edit`: points re-score everyone who
    has it) or delete one (`delete`), by `pipeline.rubric_add` / `rubric_edit` / `rubric_delete`, as `autograder
    rubric` does.  Returns what to tell the TA."""
    from autograder.pipeline import rubric_add, rubric_delete, rubric_edit

    g, _ = ws.grades(assignment)
    action = form.get("action", "")
    try:
        points = float(form.get("points", "0") or 0)
    except ValueError:
        raise rubric.RubricError("an item's points are a number") from None
    key = form.get("key") if form.get("key") is not None else None
    if action == "add":
        added = rubric_add(
            g,
            exercise=exercise,
            title=form.get("title", ""),
            points=points,
            comment=form.get("comment", ""),
            note=form.get("note", ""),
            key=key or None,
            by=by,
        )
        return f"item #{added.id} added"
    item = next((i for i in g.marks.items if str(i.id) == form.get("item", "") and not i.deleted), None)
    if item is None or item.exercise != exercise:
        raise rubric.RubricError(f"no such rubric item of {exercise}")
    if action == "delete":
        touched = rubric_delete(g, item.id, by=by)
        return f"item #{item.id} deleted; {len(touched)} students re-scored"
    if action != "edit":
        raise rubric.RubricError("unknown action")
    _, touched = rubric_edit(
        g,
        item.id,
        by=by,
        title=form.get("title"),
        points=points,
        comment=form.get("comment"),
        note=form.get("note"),
        key=key,
    )
    changed = [t for t in touched if t[1] != t[2]]
    return f"item #{item.id} saved; {len(changed)} of {len(touched)} students who have it re-scored"


def similarity_page(ws: Workspace, assignment: str) -> dict[str, Any]:
    load_assignment(assignment, ws.kit)  # a name from the URL is one of the kit's assignments, never a path (`..`)
    data = read_result(ws.out / assignment / RESULT_FILE)
    alias = aliases(ws, assignment) if data else {}
    code = data.get("code", {}) if data else {}
    pairs = []
    for p in (data.get("pairs", []) if data else [])[:SIMILAR_PAIRS]:
        sides = []
        for s in p.get("spans", [])[:SIMILAR_SPANS]:
            sides.append(
                {
                    "a": _marked(code.get(p["a"], {}).get(str(s["a_cell"]), ""), s["a_lines"]),
                    "b": _marked(code.get(p["b"], {}).get(str(s["b_cell"]), ""), s["b_lines"]),
                    "a_cell": s["a_cell"],
                    "b_cell": s["b_cell"],
                }
            )
        pairs.append({**p, "sides": sides, "a_shown": alias.get(p["a"], p["a"]), "b_shown": alias.get(p["b"], p["b"])})
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


# -- a team of TAs: anonymous grading, the split, "next for me", progress, statistics -------------------------


def aliases(ws: Workspace, assignment: str) -> dict[str, str]:
    """Under anonymous grading (course.toml `[serve] anonymous = true`) until names are revealed (`store.team.
    reveal`): each submission's pseudonym ("Student 7", numbered in an order drawn from the ids' hashes, not the
    class list's), which every page shows instead of a name, an e-mail or the submission id.  {} otherwise."""
    import hashlib

    if not (ws.course and ws.course.table("serve").get("anonymous") is True):
        return {}
    if team_store.revealed(ws.db, assignment):
        return {}
    g, _ = ws.grades(assignment)
    ids = sorted(
        {r.submission_id for r in g.results}, key=lambda s: hashlib.sha256(f"{assignment}/{s}".encode()).hexdigest()
    )
    return {sid: f"Student {n}" for n, sid in enumerate(ids, start=1)}


def anonymised(rows: list[dict[str, Any]], alias: dict[str, str]) -> list[dict[str, Any]]:
    """The class view's rows with each name, e-mail and id shown as its pseudonym (a student without a
    submission: "a student without a submission"), when `alias` holds any."""
    if not alias:
        return rows
    return [
        {**v, "who": alias.get(v["id"], "a student without a submission"), "email": "", "label": alias.get(v["id"], "")}
        for v in rows
    ]


def hide(text: str, alias: dict[str, str]) -> str:
    """`text` (a warning, a refusal) with every submission id it names shown as its pseudonym, when `alias`
    holds any (longest ids first, so that no id is taken for a part of a longer one)."""
    if not alias or not text:
        return text
    for sid in sorted(alias, key=len, reverse=True):
        if sid in text:
            text = text.replace(sid, alias[sid])
    return text


def reveal(ws: Workspace, assignment: str, by: str) -> None:
    """Show names from now on (`store.team.reveal`: who and when, recorded)."""
    load_assignment(assignment, ws.kit)
    team_store.reveal(ws.db, assignment, by)


def _class_order(ws: Workspace, assignment: str) -> list[str]:
    """The graded submissions in the class list's order (by student; by pseudonym under anonymous grading)."""
    g, ctx = ws.grades(assignment)
    alias = aliases(ws, assignment)
    gradable = {r.submission_id for r in g.rows if r.result is not None and r.gradable}
    rows = [v for v in ctx["rows"] if v["id"] in gradable]
    if alias:
        rows.sort(key=lambda v: int(alias.get(v["id"], "Student 0").split()[-1]))
    return [v["id"] for v in rows]


def split(ws: Workspace, assignment: str, form: dict[str, str], tas: list[str], by: str) -> team_store.Split:
    """The team page's form: the graded submissions (in class order) or the exercises shared among the TAs
    ticked (`store.team.split`, recorded with its author and random seed)."""
    unit, how = form.get("unit", ""), form.get("how", "")
    chosen = [t for t in tas if form.get("ta:" + t)]
    g, _ = ws.grades(assignment)
    items = _class_order(ws, assignment) if unit == "submission" else _exercises(g)
    return team_store.split(ws.db, assignment, items, chosen, unit=unit, how=how, by=by)


def _exercises(g: AssignmentGrades) -> list[str]:
    return in_exercise_order((t.exercise for r in g.results for t in r.tests if not t.is_override), g.order)


def mark_done(ws: Workspace, assignment: str, sids: list[str], exercise: str, by: str) -> None:
    """`by` has finished `exercise` ('' the whole submission) of `sids` (graded submissions of `assignment`)."""
    g, _ = ws.grades(assignment)
    graded = {r.submission_id for r in g.results}
    if not sids or any(s not in graded for s in sids):
        raise ov.OverrideError("no graded submission by that id")
    if exercise and exercise not in _exercises(g):
        raise ov.OverrideError(f"no exercise {exercise}")
    team_store.mark_done(ws.db, assignment, sids, exercise, by)


def progress(ws: Workspace, assignment: str) -> dict[str, Any]:
    """The split in force and each TA's share of it: {split, tas: [{who, items, done, total}]}, where `total`
    counts what the TA must finish (their submissions, or their exercises times the graded submissions) and
    `done` how much of it is marked done."""
    s = team_store.current(ws.db, assignment)
    if s is None:
        return {"split": None, "tas": []}
    finished = team_store.done(ws.db, assignment)
    subs = _class_order(ws, assignment)
    tas: dict[str, dict[str, Any]] = {}
    for item, ta in s.shares.items():
        tas.setdefault(ta, {"who": ta, "items": [], "done": 0, "total": 0})["items"].append(item)
    for t in tas.values():
        if s.unit == "submission":
            t["total"] = len(t["items"])
            t["done"] = sum((sid, "") in finished for sid in t["items"])
        else:
            t["total"] = len(t["items"]) * len(subs)
            t["done"] = sum((sid, e) in finished for e in t["items"] for sid in subs)
    return {"split": s, "tas": sorted(tas.values(), key=lambda t: t["who"].casefold())}


def next_for(ws: Workspace, assignment: str, who: str, after: str = "") -> tuple[str, ...] | None:
    """Where `who` goes next under the split in force: ("s", submission) the next of theirs not done (after
    `after`, wrapping round), or ("e", exercise) the first of their exercises not done for every submission;
    None when they have nothing left (or no share)."""
    s = team_store.current(ws.db, assignment)
    if s is None:
        return None
    finished = team_store.done(ws.db, assignment)
    subs = _class_order(ws, assignment)
    if s.unit == "submission":
        mine = [sid for sid in subs if s.shares.get(sid) == who]
        i = mine.index(after) + 1 if after in mine else 0
        return next((("s", sid) for sid in mine[i:] + mine[:i] if (sid, "") not in finished and sid != after), None)
    g, _ = ws.grades(assignment)
    mine = [e for e in _exercises(g) if s.shares.get(e) == who]
    return next((("e", e) for e in mine if any((sid, e) not in finished for sid in subs)), None)


def stats_page(ws: Workspace, assignment: str) -> dict[str, Any]:
    """Per exercise: the pass rate of every hidden test over the graded submissions (their results as graded,
    before any override), how often each rubric item is applied, and each TA's adjustments (an override's new -
    old, an item's points, each applied by them: how many, their mean), so a course lead sees a strict or a
    lenient grader."""
    g, _ = ws.grades(assignment)
    order = _exercises(g)
    tests: dict[str, dict[str, Any]] = {}
    gradable = {row.submission_id for row in g.rows if row.result is not None and row.gradable}
    for r in g.counted:
        if r.submission_id not in gradable:
            continue
        for t in r.tests:
            if t.kind != "hidden" or t.is_override:
                continue
            x = tests.setdefault(t.id, {"id": t.id, "name": t.name, "exercise": t.exercise, "n": 0, "passed": 0})
            x["n"] += 1
            x["passed"] += t.outcome == "passed"
    exercise_of = {t.id: t.exercise for r in g.results for t in r.tests}
    adjust: dict[tuple[str, str], list[float]] = {}
    for o in g.marks.overrides:
        if o.sets and o.test_id in exercise_of:
            adjust.setdefault((exercise_of[o.test_id], o.by), []).append(o.new_score - o.old_score)
    live = {i.id: i for i in g.marks.items if not i.deleted}
    for a in g.marks.applied:  # an item applied counts its points (a zero-point comment: 0)
        if a.item_id in live:
            adjust.setdefault((live[a.item_id].exercise, a.by), []).append(live[a.item_id].points)
    out = []
    for e in order:
        ts = sorted((t for t in tests.values() if t["exercise"] == e), key=lambda t: t["passed"] / max(t["n"], 1))
        for row in ts:
            row["rate"] = row["passed"] / row["n"] if row["n"] else 0.0
        tas = [
            {"who": who, "n": len(d), "mean": round(sum(d) / len(d), 3)}
            for (ex, who), d in sorted(adjust.items(), key=lambda kv: kv[0][1].casefold())
            if ex == e
        ]
        uses: dict[int, int] = {}
        for a in g.marks.applied:
            uses[a.item_id] = uses.get(a.item_id, 0) + 1
        items = sorted(
            (i for i in g.marks.items if i.exercise == e and not i.deleted), key=lambda i: -uses.get(i.id, 0)
        )
        out.append(
            {"exercise": e, "tests": ts, "tas": tas, "items": [{"item": i, "n": uses.get(i.id, 0)} for i in items]}
        )
    return {"a": g.assignment, "exercises": out}


def lms_targets(ws: Workspace, assignment: str) -> list[tuple[str, str]]:
    """(what, URL) of each LMS target course.toml names for `assignment` (`lms.targets`: a Canvas assignment from
    `[canvas]` and `canvas_assignment`, an LTI line item from `lti_lineitem`): what `autograder passback` sends
    to, and remembers what it sent per."""
    from autograder.lms import targets

    if not ws.course:
        return []
    canvas, mine = ws.course.table("canvas"), ws.course.assignment(assignment)
    out = []
    if canvas.get("url") and canvas.get("course") and mine.get("canvas_assignment"):
        t = targets.choose(
            targets.PassbackSettings(
                to="canvas",
                canvas_url=str(canvas["url"]),
                course=str(canvas["course"]),
                canvas_assignment=str(mine["canvas_assignment"]),
            )
        )
        out.append(("Canvas assignment", t.url))
    if mine.get("lti_lineitem"):
        out.append(("LTI line item", str(mine["lti_lineitem"])))
    return out


def changes_page(ws: Workspace, assignment: str) -> dict[str, Any]:
    """The regrade preview, per LMS target of `assignment` (`lms_targets`): every student whose score (the one
    every export sends) differs from the score it last reached that target with (`pipeline.unsent_changes`, what
    `autograder passback` lists and refuses to send without `--confirm`), largest change first, with the
    student's name (their pseudonym under anonymous grading).  The page sends nothing: publishing is
    `autograder passback ASSIGNMENT --confirm`."""
    from autograder.pipeline import unsent_changes

    g, ctx = ws.grades(assignment)
    alias = aliases(ws, assignment)
    who = {v["id"]: v["who"] for v in ctx["rows"] if v["id"]}
    store = MarkStore(ws.out)
    out = []
    for what, url in lms_targets(ws, assignment):
        rows: list[dict[str, Any]] = []
        for sid, was, now in unsent_changes(g, url):
            delta = None if was is None or now is None else round(now - was, 4)
            rows.append({"id": sid, "who": alias.get(sid) or who.get(sid, sid), "was": was, "now": now, "delta": delta})
        rows.sort(key=lambda x: (x["delta"] is None, -abs(x["delta"] or 0), x["who"].casefold()))
        out.append(
            {
                "what": what,
                "url": url,
                "rows": rows,
                "sent": len(store.sent(assignment, url)),
                "up": sum(1 for x in rows if (x["delta"] or 0) > 0),
                "down": sum(1 for x in rows if (x["delta"] or 0) < 0),
            }
        )
    return {"a": g.assignment, "targets": out, "anonymous": bool(alias)}
