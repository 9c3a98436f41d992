"""Which graded version counts (`[course] counts`) is the same in every export: grades.csv (written by the
pipeline and by an override), the Canvas export, the course gradebook and the workspace's rows."""

from __future__ import annotations

import csv
import json
import shutil

from autograder.config.assignment import load_assignment
from autograder.config.course import load_course
from autograder.grades import overrides as ov
from autograder.intake.roster import Identity, write_identities
from autograder.intake.submissions import Submission
from autograder.judge.session import GradeOptions
from autograder.pipeline import grade_class, set_override
from autograder.report import semester as cg
from autograder.report.exports import write_export
from autograder.store.folder import assignment_grades


def _course(tmp_path, counts):
    path = tmp_path / "course.toml"
    path.write_text(f'[course]\ncounts = "{counts}"\n')
    return load_course(path)


def _grades_csv(out) -> dict[str, str]:
    with open(out / "toy" / "grades.csv", newline="") as f:
        return {row["submission_id"]: row["score"] for row in csv.DictReader(f)}


def _everywhere(tmp_path, kit, out, course) -> set[str]:
    """The student's score as grades.csv, the Canvas export, the course gradebook and the rows show it."""
    g = assignment_grades(kit, "toy", out, course=course)
    write_export("canvas", tmp_path / "canvas.csv", g, canvas_id="7")
    with open(tmp_path / "canvas.csv", newline="", encoding="utf-8-sig") as f:
        [canvas] = [row for row in csv.reader(f) if row and row[0].strip() not in ("Student", "Points Possible")]
    columns, _ = cg.course_columns(kit, out, ["toy"], course=course)
    header, body = cg.table(cg.build(columns))
    [book] = [row for row in body if "s" in row]
    return {
        f"{float(_grades_csv(out)['s']):g}",
        f"{float(canvas[-1]):g}",
        f"{float(book[header.index('total')]):g}",
        f"{g.rows[0].score:g}",
    }


def test_counts_is_the_same_in_grades_csv_canvas_and_gradebook(toy_kit, tmp_path):
    kit = tmp_path / "kit"
    shutil.copytree(toy_kit, kit)
    a = load_assignment("toy", kit)
    out = tmp_path / "results"
    nb = tmp_path / "s.ipynb"
    shutil.copy(kit / "solutions" / "toy.ipynb", nb)
    best = _course(tmp_path, "best")
    write_identities(out / "toy" / "identities.json", {"s": Identity("s", "Student S", lms_user_id="101")})
    grade_class(a, [Submission("s", nb, "s.ipynb")], out=out, options=GradeOptions(), course=best)
    full = float(_grades_csv(out)["s"])
    data = json.loads(nb.read_text())
    for c in data["cells"]:
        if "ANSWER = 42" in "".join(c["source"]):
            c["source"] = "ANSWER = 0\n"
    nb.write_text(json.dumps(data))
    grade_class(a, [Submission("s", nb, "s.ipynb")], out=out, options=GradeOptions(), course=best)
    worse = assignment_grades(kit, "toy", out, course=_course(tmp_path, "latest")).rows[0].score
    assert worse < full

    # best: the first version everywhere, grades.csv as the pipeline wrote it included
    assert float(_grades_csv(out)["s"]) == full
    assert _everywhere(tmp_path, kit, out, best) == {f"{full:g}"}

    # an override follows the counted version: made (workspace or CLI) on the best one, shown everywhere
    g = assignment_grades(kit, "toy", out, course=best)
    o = set_override(g, "s", test=None, score=full - 1, comment="copied answer", by="TA")
    assert o.sha256 == g.counted[0].sha256 and float(_grades_csv(out)["s"]) == full - 1
    assert _everywhere(tmp_path, kit, out, best) == {f"{full - 1:g}"}

    # latest: the override was made on another version, so it is stale (listed, never applied to this one)
    latest = _course(tmp_path, "latest")
    grade_class(a, [Submission("s", nb, "s.ipynb")], out=out, options=GradeOptions(), course=latest)  # reused
    assert _everywhere(tmp_path, kit, out, latest) == {f"{worse:g}"}
    g = assignment_grades(kit, "toy", out, course=latest)
    assert any(f"override #{o.id}" in w and "stale" in w for w in g.warnings)
    from autograder.store.marks import Marks

    [line] = ov.trail_lines(Marks(out).overrides("toy", "s"), g.results)
    assert "stale" in line
