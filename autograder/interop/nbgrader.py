"""nbgrader interop: the kit's scores in an nbgrader course, surviving nbgrader's own commands.

(a) `source_notebook` turns an assignment's master into an nbgrader *source* notebook
    (`source/<assignment>/<assignment>.ipynb`): solution blocks keep nbgrader's own
    `### BEGIN SOLUTION` markers (so `nbgrader generate_assignment` strips them exactly as
    `autograder release` does), every other cell is locked, and one locked *task* cell per
    exercise (`grade_id = "autograder-<exercise>"`, points = the exercise's points in the kit)
    receives the kit's score for that exercise.  No tests run in the student's kernel: the
    kit's public and hidden tests stay in the trusted judge.
(b) `grade_course` grades `submitted/<student>/<assignment>/` with the kit (sandboxed workers,
    the pipeline) and writes, with nbgrader's own API: each exercise's raw score as the
    *manual score* of its task cell, the kit's feedback as that cell's comment, and the late
    penalty as nbgrader's `late_submission_penalty` (the manifest's `[deadline]` with course.toml's
    over it, extensions keyed by any id the roster holds, as in every export); and, for
    `nbgrader generate_feedback` and formgrader, each graded notebook under
    `autograded/<student>/<assignment>/` with its outputs cleared.

`nbgrader autograde` is not needed and must not be run: it executes every submission on the
instructor's machine, without a sandbox, as the instructor.  What it would write for feedback and
formgrader (the submission in `autograded/`, the gradebook's submission) the kit writes without
running anything.  A notebook's saved outputs are the student's (HTML and scripts included) and
formgrader shows them in the instructor's browser, so the copy has none.

Why task cells and manual scores: `nbgrader autograde` re-scores every *grade* cell from its
outputs -- a locked code cell with no error is worth full marks, so a blank notebook graded there
would reach 100/100 -- but never touches a task cell's score, and a manual score wins over any auto
score: a course where someone runs it anyway keeps the kit's scores (run `autograder nbgrader grade`
again afterwards: autograde resets `late_submission_penalty` to nbgrader's own plugin's value).
A grader failure writes nothing.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any, Callable

import nbformat

from autograder.config.assignment import Assignment, load_assignment
from autograder.config.settings import GradeSettings
from autograder.notebook.cells import exercise_order, in_exercise_order
from autograder.notebook.parse import InvalidNotebook, read_notebook
from autograder.store.folder import assignment_grades
from autograder.student import public_checks
from autograder.student.release import BEGIN, self_checking

TASK_PREFIX = "autograder-"
CONFIG = """c = get_config()  # noqa: F821
c.CourseDirectory.root = {root!r}
"""


def exercise_points(assignment: Assignment, settings: GradeSettings) -> dict[str, float]:
    """{exercise: points} as the kit grades them: the master graded through the reference itself."""
    import tempfile

    from autograder.judge.session import grade_notebook
    from autograder.pipeline import grade_options

    with tempfile.TemporaryDirectory(prefix="ag-nbgrader-") as cache:
        opts = grade_options(settings)
        opts.cache_dir = Path(cache)
        ref = grade_notebook(
            assignment, assignment.solution, submission_id="__reference__", options=opts, as_reference=True
        )
    points: dict[str, float] = {}
    for t in ref.tests:
        points[t.exercise] = points.get(t.exercise, 0.0) + t.max_score
    for m in assignment.manual:  # graded by hand (the manifest's [manual.EXERCISE]), with the kit's rubric
        points[m.exercise] = points.get(m.exercise, 0.0) + m.points
    return {
        e: round(points[e], 4) for e in in_exercise_order(points, exercise_order(assignment.solution)) if points[e] > 0
    }


def source_notebook(
    kit: Path, assignment: str, points: dict[str, float], link: str | None = None
) -> nbformat.NotebookNode:
    a = load_assignment(assignment, kit)
    nb = nbformat.read(a.solution, as_version=4)
    for i, cell in enumerate(nb.cells):
        is_solution = cell.cell_type == "code" and BEGIN in cell.source
        if cell.cell_type == "code":
            cell.outputs, cell.execution_count = [], None
        cell.metadata = {
            "nbgrader": {
                "grade": False,
                "solution": is_solution,
                "locked": not is_solution,
                "task": False,
                "grade_id": f"cell-{cell.get('id') or i}",
                "schema_version": 3,
            }
        }
    intro = nbformat.v4.new_markdown_cell(
        "## Scores\nEach exercise below is graded by the course autograder: its public and hidden tests run "
        "outside this notebook.  Run all cells above without errors before you submit."
    )
    intro.metadata = {
        "nbgrader": {
            "grade": False,
            "solution": False,
            "locked": True,
            "task": False,
            "grade_id": "autograder-scores",
            "schema_version": 3,
        }
    }
    nb.cells.append(intro)
    for exercise, pts in points.items():
        task = nbformat.v4.new_markdown_cell(f"**{exercise}** ({pts:g} points): graded by the course autograder.")
        task.metadata = {
            "nbgrader": {
                "grade": False,
                "solution": False,
                "locked": True,
                "task": True,
                "grade_id": TASK_PREFIX + exercise,
                "points": pts,
                "schema_version": 3,
            }
        }
        nb.cells.append(task)
    # what students run checks itself as a kit release does: the public checks' version, the import guard

    version = public_checks.version(a.root)
    self_checking(nb, a.id, version, link)  # link: course.toml's [course] package
    nb.metadata = {
        "kernelspec": {"display_name": "Python 3", "language": "python", "name": "python3"},
        "language_info": {"name": "python"},
        "autograder": {"assignment": a.id, "version": version},
    }
    return nb


def write_source_notebook(
    kit: Path,
    assignment: str,
    course: Path,
    nb_assignment: str | None = None,
    settings: GradeSettings | None = None,
    link: str | None = None,
) -> Path:
    """course/source/<nb_assignment>/<assignment>.ipynb (+ a minimal nbgrader_config.py if the course has none)."""

    name = nb_assignment or assignment
    dest = course / "source" / name / f"{assignment}.ipynb"
    dest.parent.mkdir(parents=True, exist_ok=True)
    nb = source_notebook(
        kit, assignment, exercise_points(load_assignment(assignment, kit), settings or GradeSettings()), link
    )
    nbformat.write(nb, dest)
    cfg = course / "nbgrader_config.py"
    if not cfg.exists():
        cfg.write_text(CONFIG.format(root=str(course.resolve())), encoding="utf-8")
    return dest


class StaleSourceNotebook(RuntimeError):
    """The course's task cells do not match the assignment's exercises: regenerate the source notebook."""


def grade_course(
    kit: Path,
    assignment: str,
    course: Path,
    settings: GradeSettings,
    *,
    nb_assignment: str | None = None,
    roster_csv: Path | None = None,
    warn: Callable[[str], Any] = lambda _w: None,
) -> dict[str, float]:
    """Grade every submission of the course (`pipeline.grade`, as the grade command does, into
    `settings.out`); write the scores into its gradebook.db; return {student: score after the late penalty},
    as nbgrader computes it.  Who is who, the late policy with its extensions (the manifest's, then the course
    file's), instructor overrides and the warnings for what names nobody come from
    `store.folder.assignment_grades`, as in every other export.  `warn` receives what the instructor should read."""
    from autograder import pipeline

    a = load_assignment(assignment, kit)
    name = nb_assignment or assignment
    out = settings.out
    for line in settings.notes():
        warn(line)
    with pipeline.intake([course], fmt="nbgrader", assignment=name) as intake:
        for line in intake.notes:
            warn(line)
        notebooks = {s.id: s.path for s in intake.submissions if not s.problem}
        identities = intake.identities
        pipeline.grade(a, intake, settings, note=warn)
        grades = assignment_grades(kit, a.id, out, roster_csv=roster_csv, course=settings.course)
        for w in grades.warnings:
            warn(f"warning: {w}")
        ours = {s.id for s in intake.submissions}  # the results folder may hold other intakes' students too
        written = _write_gradebook(
            course, assignment, name, [row for row in grades.rows if row.submission_id in ours], identities, notebooks
        )
    return written


def _write_gradebook(
    course: Path, assignment: str, name: str, rows: list, identities: dict, notebooks: dict[str, Path]
) -> dict[str, float]:
    """Each row's scores into nbgrader's gradebook.db (task cells' manual scores, comments, the late penalty),
    and its notebook under autograded/; {student: score after the late penalty}."""
    from nbgrader.api import Gradebook, MissingEntry

    written: dict[str, float] = {}
    with Gradebook(f"sqlite:///{(course / 'gradebook.db').resolve()}") as gb:
        notebook = gb.find_notebook(assignment, name)  # MissingEntry: run `nbgrader generate_assignment` first
        tasks = {c.name.removeprefix(TASK_PREFIX): c for c in notebook.task_cells if c.name.startswith(TASK_PREFIX)}
        for row in rows:
            if row.score is None or row.result is None:
                continue
            by_exercise: dict[str, float] = {}
            for t in row.result.tests:
                by_exercise[t.exercise] = by_exercise.get(t.exercise, 0.0) + t.score
            unknown = {e for e, _ in by_exercise.items() if e not in tasks} - {
                t.exercise for t in row.result.tests if t.max_score == 0
            }
            if unknown:
                raise StaleSourceNotebook(
                    f"exercises {sorted(unknown)} have no task cell in nbgrader's {name}: "
                    "run `autograder nbgrader source` and `nbgrader generate_assignment` again"
                )
            folder = identities.get(row.submission_id) or row.identity
            student = folder.student_id  # nbgrader's own id (its folder), not the roster's
            gb.update_or_create_student(student)
            try:
                gb.find_submission(name, student)
            except MissingEntry:
                gb.add_submission(name, student, timestamp=folder.submitted_at)
            # an instructor's override of the total is a 0-point line outside every exercise: nbgrader's
            # own way to adjust a total is extra credit, carried on the first task cell with the reason
            adjust = round(sum(t.score for t in row.result.tests if t.exercise not in tasks), 4)
            notes = [t.message for t in row.result.tests if t.exercise not in tasks and t.message]
            for i, exercise in enumerate(tasks):
                grade = gb.find_grade(TASK_PREFIX + exercise, assignment, name, student)
                grade.manual_score = round(by_exercise.get(exercise, 0.0), 4)
                grade.extra_credit = (adjust or None) if i == 0 else None
                # an exercise graded by hand and not graded yet is what formgrader lists as needing a grade
                grade.needs_manual_grade = exercise in row.pending
                comment = gb.find_comment(TASK_PREFIX + exercise, assignment, name, student)
                failed = [
                    t.name
                    for t in row.result.tests
                    if t.exercise == exercise and t.outcome != "passed" and t.max_score > 0
                ]
                text = ("Not passed: " + "; ".join(failed[:10])) if failed else "All tests passed."
                comment.manual_comment = " ".join([text, *notes]) if i == 0 else text
            nb = gb.find_submission_notebook(assignment, name, student)
            nb.late_submission_penalty = row.late.penalty if row.late and row.late.penalty else None
            gb.db.commit()
            written[student] = round(nb.score - (nb.late_submission_penalty or 0.0), 4)
            graded = notebooks.get(row.result.submission_id)
            if graded is not None:
                _write_autograded(
                    graded, course / "autograded" / student / name / f"{assignment}.ipynb", folder.submitted_at
                )
    return written


def _write_autograded(submitted: Path, dest: Path, submitted_at) -> None:
    """What `nbgrader autograde` would leave for generate_feedback and formgrader, without running the
    notebook: the submission (read with the kit's limits) with its outputs cleared, and its time."""
    import json

    try:
        nb = nbformat.reads(json.dumps(read_notebook(submitted)), as_version=4)
    except (OSError, InvalidNotebook, ValueError):  # graded `invalid` with the reason: nothing to show as a notebook
        return
    for cell in nb.cells:
        cell.pop("attachments", None)
        if cell.cell_type == "code":
            cell.outputs, cell.execution_count = [], None
    dest.parent.mkdir(parents=True, exist_ok=True)
    nbformat.write(nb, dest)
    if submitted_at is not None:
        (dest.parent / "timestamp.txt").write_text(submitted_at.strftime("%Y-%m-%d %H:%M:%S.%f %Z"), encoding="utf-8")
