"""nbgrader interop.

(a) `source_notebook` turns an assignment's master into an nbgrader *source* notebook
    (`source/<assignment>/<assignment>.ipynb`): solution blocks keep nbgrader's own
    `### BEGIN SOLUTION` markers (so `nbgrader generate_assignment` strips them exactly as
    `autograder release` does), every other cell is locked, and one read-only *grade* cell
    (`grade_id = "autograder_total"`, points = the assignment's total) receives the score the
    kit computes.  No tests run in the student's kernel: the kit's public and hidden tests
    stay in the trusted judge.
(b) `grade_course` grades `submitted/<student>/<assignment>/` with the kit (sandboxed
    workers, the pipeline) and writes each score, after the `[deadline]` policy, into the
    course's `gradebook.db` with nbgrader's own API (`nbgrader.api.Gradebook`) as the
    auto score of that grade cell.  The assignment must be in the gradebook already
    (`nbgrader generate_assignment` puts it there).  A grader failure writes nothing.
"""
from __future__ import annotations

from pathlib import Path

import nbformat

from autograder.notebook.release import BEGIN

GRADE_ID = "autograder_total"
CONFIG = """c = get_config()  # noqa: F821
c.CourseDirectory.root = {root!r}
"""


def source_notebook(kit: Path, assignment: str) -> nbformat.NotebookNode:
    from autograder.assignment import load_assignment

    a = load_assignment(assignment, kit)
    nb = nbformat.read(a.solution, as_version=4)
    for i, cell in enumerate(nb.cells):
        is_solution = cell.cell_type == "code" and BEGIN in cell.source
        if cell.cell_type == "code":
            cell.outputs, cell.execution_count = [], None
        cell.metadata = {"nbgrader": {"grade": False, "solution": is_solution, "locked": not is_solution,
                                      "task": False, "grade_id": f"cell-{cell.get('id') or i}", "schema_version": 3}}
    grade = nbformat.v4.new_code_cell(
        "# Graded by the course autograder (public and hidden tests run outside this notebook).\n"
        "# Run all cells above without errors before you submit.")
    grade.metadata = {"nbgrader": {"grade": True, "solution": False, "locked": True, "task": False,
                                   "grade_id": GRADE_ID, "points": a.total_points, "schema_version": 3}}
    nb.cells.append(grade)
    nb.metadata = {"kernelspec": {"display_name": "Python 3", "language": "python", "name": "python3"},
                   "language_info": {"name": "python"}, "autograder": {"assignment": a.id}}
    return nb


def write_source_notebook(kit: Path, assignment: str, course: Path, nb_assignment: str | None = None) -> Path:
    """course/source/<nb_assignment>/<assignment>.ipynb (+ a minimal nbgrader_config.py if the course has none)."""
    name = nb_assignment or assignment
    dest = course / "source" / name / f"{assignment}.ipynb"
    dest.parent.mkdir(parents=True, exist_ok=True)
    nb = source_notebook(kit, assignment)
    nbformat.write(nb, dest)
    cfg = course / "nbgrader_config.py"
    if not cfg.exists():
        cfg.write_text(CONFIG.format(root=str(course.resolve())), encoding="utf-8")
    return dest


def grade_course(kit: Path, assignment: str, course: Path, *, out: Path, options=None,
                 nb_assignment: str | None = None) -> dict[str, float]:
    """Grade every submission of the course; write the scores into its gradebook.db; return {student: score}."""
    from nbgrader.api import Gradebook, MissingEntry

    from autograder.assignment import load_assignment
    from autograder.intake.lms import unpack
    from autograder.intake.roster import write_identities
    from autograder.pipeline import grade_class
    from autograder.report.exports import grade_rows
    from autograder.score.late import load_policy

    a = load_assignment(assignment, kit)
    name = nb_assignment or assignment
    batch = unpack(course, out / ".intake", fmt="nbgrader", assignment=name)
    run = grade_class(a, batch.submissions, out=out, options=options)
    write_identities(out / a.id / "identities.json", batch.identities)
    rows = grade_rows(run.results, batch.identities, policy=load_policy(a.root / "manifest.toml"))
    written: dict[str, float] = {}
    with Gradebook(f"sqlite:///{(course / 'gradebook.db').resolve()}") as gb:
        gb.find_assignment(name)  # MissingEntry: run `nbgrader generate_assignment` first
        for row in rows:
            if row.score is None:
                continue
            student = row.identity.student_id
            gb.update_or_create_student(student)
            try:
                gb.find_submission(name, student)
            except MissingEntry:
                gb.add_submission(name, student, timestamp=row.identity.submitted_at)
            grade = gb.find_grade(GRADE_ID, assignment, name, student)
            grade.auto_score = row.score
            grade.needs_manual_grade = False
            written[student] = row.score
        gb.db.commit()
    return written
