"""The course gradebook: every roster student against every graded assignment, in one table.

Built from each assignment's export rows (`rows.GradeRow`: roster matched, late policy and
overrides applied), so a cell follows the one export policy: a score, or blank with the reason
(`missing`, `not graded`, `provisional`).  Printed as a table, written as a CSV, or as one Canvas
or Moodle import file carrying every assignment at once (one column per assignment), each column
built by the single-assignment writer so the two can never disagree.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from autograder.grades.rows import GradeRow
from autograder.intake.roster import Identity
from autograder.report.canvas_csv import IDENTITY_COLUMNS, canvas_table
from autograder.report.escape import terminal, write_csv
from autograder.report.moodle_csv import moodle_table
from autograder.store.folder import assignment_grades


@dataclass
class Column:
    """One assignment: its rows (one per student, missing ones included) and its LMS names."""

    id: str
    title: str
    rows: list[GradeRow]
    canvas_id: str = ""

    @property
    def max_score(self) -> float | None:
        return max((r.max_score for r in self.rows if r.max_score), default=None)


@dataclass
class CourseGradebook:
    columns: list[Column]
    students: list[Identity] = field(default_factory=list)
    cells: dict[tuple[str, str], GradeRow] = field(default_factory=dict)  # (student_id, assignment) -> row


def build(columns: list[Column], roster: list[Identity] | None = None) -> CourseGradebook:
    """Roster students first, in roster order, then anyone graded who is not on it."""
    book = CourseGradebook(columns)
    seen: dict[str, Identity] = {s.student_id: s for s in roster or []}
    for col in columns:
        for row in col.rows:
            sid = row.identity.student_id
            seen.setdefault(sid, row.identity)
            if row.result is not None or (sid, col.id) not in book.cells:  # a submission beats "missing"
                book.cells[(sid, col.id)] = row
    book.students = list(seen.values())
    return book


def cell(row: GradeRow | None, missing: str = "blank") -> tuple[str, str]:
    """(score text, status) for one student and assignment, by the export policy."""
    if row is None or row.result is None:
        return ("0" if missing == "zero" else ""), "missing"
    score = row.export_score(missing)
    if score is None:
        return "", "provisional" if row.result.provisional else "not graded"
    return f"{score:g}", row.status


def table(book: CourseGradebook, missing: str = "blank") -> tuple[list[str], list[list[str]]]:
    """The CSV form: identity, then a score and a status column per assignment, then the total."""
    header = ["student_id", "name", "email", "sis_id", "section"]
    for col in book.columns:
        header += [f"{col.id} ({col.max_score:g})" if col.max_score else col.id, f"{col.id} status"]
    header += ["total", "total possible"]
    body = []
    for s in book.students:
        line = [s.student_id, s.name, s.email, s.sis_id, s.section]
        total = 0.0
        for col in book.columns:
            score, status = cell(book.cells.get((s.student_id, col.id)), missing)
            total += float(score) if score else 0.0
            line += [score, status]
        possible = sum(c.max_score or 0.0 for c in book.columns)
        body.append(line + [f"{round(total, 4):g}", f"{possible:g}"])
    return header, body


def display(book: CourseGradebook, missing: str = "blank") -> tuple[list[str], list[list[str]]]:
    """The printed form: one cell per assignment, the score or why there is none."""
    header = ["student", *[c.id for c in book.columns]]
    body = []
    for s in book.students:
        cells = []
        for col in book.columns:
            score, status = cell(book.cells.get((s.student_id, col.id)), missing)
            cells.append(score if score and status != "missing" else status if not score else f"{score} ({status})")
        body.append([s.name or s.student_id, *cells])
    return header, body


def render(header: list[str], body: list[list[str]]) -> str:
    """Plain aligned text; every cell through `escape.terminal` (names and ids come from files)."""
    data = [[terminal(c) for c in row] for row in (header, *body)]
    widths = [max(len(r[i]) for r in data) for i in range(len(header))]
    return "\n".join("  ".join(c.ljust(w) for c, w in zip(r, widths)).rstrip() for r in data)


def canvas_course(book: CourseGradebook, missing: str = "blank") -> tuple[list[str], list[list[str]], list[str]]:
    """One Canvas import with a column per assignment (`<title> (<canvas id>)`), rows merged on Canvas's ids."""
    header = list(IDENTITY_COLUMNS)
    points = ["Points Possible", "", "", "", ""]
    by_key: dict[tuple[str, ...], list[str]] = {}
    notes: list[str] = []
    for i, col in enumerate(book.columns):
        rows = [book.cells[(s.student_id, col.id)] for s in book.students if (s.student_id, col.id) in book.cells]
        t = canvas_table(rows, assignment_name=col.title, assignment_id=col.canvas_id or None, missing=missing)
        header.append(t.header[-1])
        points.append(t.rows[0][-1])
        for r in t.rows[1:]:
            line = by_key.setdefault(tuple(r[1:4]), r[:5] + [""] * len(book.columns))
            line[5 + i] = r[-1]
        notes += [f"{col.id}: not exported: {s}" for s in t.skipped] + [f"{col.id}: blank: {b}" for b in t.blanks]
    return header, [points, *by_key.values()], notes


def moodle_course(
    book: CourseGradebook, identity: str = "email", missing: str = "blank"
) -> tuple[list[str], list[list[str]], list[str]]:
    """One Moodle import with a grade column per assignment (grade item = the title); a blank cell where the
    export policy gives no grade.  Students without the identity field are left out."""
    header: list[str] = []
    by_key: dict[str, list[str]] = {}
    notes: list[str] = []
    for i, col in enumerate(book.columns):
        rows = [book.cells[(s.student_id, col.id)] for s in book.students if (s.student_id, col.id) in book.cells]
        t = moodle_table(rows, item_name=col.title, identity=identity, missing=missing)
        header = header or t.header[:2]
        header.append(col.title)
        for r in t.rows:
            line = by_key.setdefault(r[0], r[:2] + [""] * len(book.columns))
            line[2 + i] = r[2]
        notes += [f"{col.id}: {s}" for s in t.skipped]
    return header, list(by_key.values()), notes


COURSE_FILES = {"csv": "course_gradebook.csv", "canvas": "course_canvas.csv", "moodle": "course_moodle.csv"}


def course_columns(kit, out, names: list[str], *, roster_csv=None, course=None) -> tuple[list[Column], list[str]]:
    """One column per assignment in `names` that has grades in `out`, as every export computes them
    (`store.folder.assignment_grades`), with its Canvas id from the course file; and the warnings to show."""

    columns, warnings = [], []
    for name in names:
        g = assignment_grades(kit, name, out, roster_csv=roster_csv, course=course)
        warnings += g.warnings
        canvas_id = str(course.assignment(name).get("canvas_assignment", "")) if course else ""
        columns.append(Column(g.assignment.id, g.assignment.title, g.rows, canvas_id))
    return columns, warnings


def write_course_file(
    book: "CourseGradebook", fmt: str, dest, *, missing: str = "blank", moodle_identity: str = "email"
) -> list[str]:
    """The course gradebook as one CSV (`fmt`: csv, canvas or moodle); returns the notes to show."""

    notes: list[str] = []
    if fmt == "canvas":
        header, body, notes = canvas_course(book, missing)
    elif fmt == "moodle":
        header, body, notes = moodle_course(book, moodle_identity, missing)
    else:
        header, body = table(book, missing)
    write_csv(dest, header, body)
    return notes
