"""What staff add to the grader's results, kept in the gradebook (OUT/gradebook.sqlite) beside them: overrides,
rubric items and where each is applied, comments on a line of code, the audit trail of rubric changes, and the
scores last sent to the LMS.  The SQL lives here alone; what the rows mean is decided in `grades.overrides` and
`grades.rubric`, on the `grades.rubric.Marks` this hands in.

Public surface (the workspace and the commands use these, through `pipeline` for every write that changes a
score):
- `Marks(out)`: `marks(assignment, submission_id=None)` (a `grades.rubric.Marks`), `overrides(...)`,
  `add_override(o)`, `items(assignment)`, `add_item(...)`, `edit_item(...)`, `apply(...)`, `unapply(...)`,
  `add_note(...)`, `remove_note(...)`, `log(...)` and `trail(assignment)` (the rubric's audit trail), `sent(assignment, target)` and
  `record_sent(...)` (what reached each LMS target), `changed_since(assignment, after)`.

Rows of `overrides` are never updated or deleted; an item is edited in place (its old values are in the trail,
`rubric_log`) and deleted by a flag, so the trail can always name it.  Every write also appends to `changes`
the submissions whose shown score it may change, so that a reader holding grades read earlier (the workspace)
reads again only those (`changed_since`).  A gradebook's comment bank is moved into zero-point items once.

Where the functions `grades.overrides` held before the store owned their SQL went: `history(db, a, sid)` is
`Marks(out).overrides(a, sid)`; `record(db, ...)` / `change(db, ...)` return the row and
`Marks(out).add_override` appends it (`pipeline.set_override` / `change_override` do both); `changed_since(db,
a, after)` is `Marks(out).changed_since(a, after)` (every mark, rubric ones included); `bank(db, a, ex)` is the
exercise's zero-point items (`[i for i in marks.items if i.exercise == ex and not i.points and not i.deleted]`);
`save_comment` is `pipeline.rubric_add(..., points=0)`, and `pipeline.set_group` without a score makes and
applies that item itself; `trail_lines(db, a, results, sid)` is `trail_lines(Marks(out).overrides(a, sid),
results)`.
"""

from __future__ import annotations

import json
import sqlite3
import time
from dataclasses import replace
from pathlib import Path
from typing import Any, Iterable

from autograder.grades.overrides import Override
from autograder.grades.rubric import Applied, Item, LineNote, RubricError
from autograder.grades.rubric import Marks as Marked
from autograder.store.database import gradebook_path

SCHEMA = """
CREATE TABLE IF NOT EXISTS overrides (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    assignment TEXT NOT NULL,
    submission_id TEXT NOT NULL,
    test_id TEXT NOT NULL,          -- '' for the whole submission
    sha256 TEXT NOT NULL,           -- the submission it was made against
    old_score REAL NOT NULL,
    new_score REAL NOT NULL,
    comment TEXT NOT NULL,
    by TEXT NOT NULL,
    at REAL NOT NULL,
    action TEXT NOT NULL DEFAULT 'set'   -- set | reapply | clear | ack
);
CREATE TABLE IF NOT EXISTS comment_bank (   -- an earlier version's comments: moved into rubric_items at connect
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    assignment TEXT NOT NULL,
    exercise TEXT NOT NULL,
    text TEXT NOT NULL,
    by TEXT NOT NULL,
    at REAL NOT NULL,
    UNIQUE (assignment, exercise, text)
);
CREATE TABLE IF NOT EXISTS rubric_items (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    assignment TEXT NOT NULL,
    exercise TEXT NOT NULL,
    title TEXT NOT NULL,
    points REAL NOT NULL,
    comment TEXT NOT NULL,
    note TEXT NOT NULL,
    key TEXT NOT NULL,
    deleted INTEGER NOT NULL DEFAULT 0
);
CREATE TABLE IF NOT EXISTS rubric_applied (
    assignment TEXT NOT NULL,
    item_id INTEGER NOT NULL,
    submission_id TEXT NOT NULL,
    sha256 TEXT NOT NULL,
    by TEXT NOT NULL,
    at REAL NOT NULL,
    PRIMARY KEY (assignment, item_id, submission_id)
);
CREATE TABLE IF NOT EXISTS rubric_log (      -- the rubric's audit trail
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    assignment TEXT NOT NULL,
    item_id INTEGER NOT NULL,
    action TEXT NOT NULL,            -- add | edit | delete | apply | unapply | import
    detail TEXT NOT NULL,
    touched TEXT NOT NULL,           -- JSON: [[submission id, score before, score after], ...]
    by TEXT NOT NULL,
    at REAL NOT NULL
);
CREATE TABLE IF NOT EXISTS line_notes (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    assignment TEXT NOT NULL,
    submission_id TEXT NOT NULL,
    sha256 TEXT NOT NULL,
    cell INTEGER NOT NULL,
    line INTEGER NOT NULL,
    code TEXT NOT NULL,
    text TEXT NOT NULL,
    by TEXT NOT NULL,
    at REAL NOT NULL
);
CREATE TABLE IF NOT EXISTS sent_scores (     -- the score each submission last reached each LMS target with
    assignment TEXT NOT NULL,
    target TEXT NOT NULL,            -- the Canvas assignment's or the LTI line item's URL
    submission_id TEXT NOT NULL,
    score REAL,
    at REAL NOT NULL,
    PRIMARY KEY (assignment, target, submission_id)
);
CREATE TABLE IF NOT EXISTS changes (         -- which submissions each write may re-score (ids only grow)
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    assignment TEXT NOT NULL,
    submission_id TEXT NOT NULL
);
"""


class Marks:
    """The marks of the results folder `out` (each call one short connection: the workspace and the commands
    write to one gradebook at once, as the grader does)."""

    def __init__(self, out: Path) -> None:
        self.db = gradebook_path(out)

    def _connect(self) -> sqlite3.Connection:
        self.db.parent.mkdir(parents=True, exist_ok=True)
        conn = sqlite3.connect(self.db, timeout=60, isolation_level=None)
        conn.execute("PRAGMA busy_timeout=60000")
        conn.executescript(SCHEMA)
        if "action" not in {r[1] for r in conn.execute("PRAGMA table_info(overrides)")}:  # a trail from before actions
            conn.execute("ALTER TABLE overrides ADD COLUMN action TEXT NOT NULL DEFAULT 'set'")
        self._bank_to_items(conn)
        return conn

    @staticmethod
    def _bank_to_items(conn: sqlite3.Connection) -> None:
        """The comment bank of an earlier version, once: each comment a zero-point item of its exercise."""
        bank = conn.execute("SELECT id, assignment, exercise, text, by, at FROM comment_bank ORDER BY id").fetchall()
        if not bank:
            return
        with conn:
            for _id, assignment, exercise, text, by, at in bank:
                title = " ".join(text.split())[:60]
                cur = conn.execute(
                    "INSERT INTO rubric_items (assignment, exercise, title, points, comment, note, key) "
                    "VALUES (?,?,?,?,?,?,?)",
                    (assignment, exercise, title, 0.0, text, "", ""),
                )
                conn.execute(
                    "INSERT INTO rubric_log (assignment, item_id, action, detail, touched, by, at) "
                    "VALUES (?,?,?,?,?,?,?)",
                    (assignment, cur.lastrowid, "add", "from the comment bank: 0 points", "[]", by, at),
                )
            conn.execute("DELETE FROM comment_bank")

    def _read(self, query: str, args: tuple) -> list[tuple]:
        if not self.db.is_file():
            return []
        conn = self._connect()
        try:
            return conn.execute(query, args).fetchall()
        finally:
            conn.close()

    # -- reading

    def marks(self, assignment: str, submission_id: str | None = None) -> Marked:
        """Everything staff added to `assignment` (or to one submission of it; every item all the same)."""
        return Marked(
            self.overrides(assignment, submission_id),
            self.items(assignment),
            self.applied(assignment, submission_id),
            self.notes(assignment, submission_id),
        )

    def overrides(self, assignment: str, submission_id: str | None = None) -> list[Override]:
        """Every override ever recorded, oldest first (the audit trail)."""
        q = "SELECT * FROM overrides WHERE assignment=?" + (" AND submission_id=?" if submission_id else "")
        return [
            Override(*r)
            for r in self._read(q + " ORDER BY id", (assignment, submission_id)[: 2 if submission_id else 1])
        ]

    def items(self, assignment: str) -> list[Item]:
        rows = self._read(
            "SELECT id, assignment, exercise, title, points, comment, note, key, deleted FROM rubric_items "
            "WHERE assignment=? ORDER BY exercise, id",
            (assignment,),
        )
        return [Item(*r[:8], bool(r[8])) for r in rows]  # type: ignore[call-arg]  # the item's eight columns, then deleted

    def applied(self, assignment: str, submission_id: str | None = None) -> list[Applied]:
        q = "SELECT item_id, submission_id, sha256, by, at FROM rubric_applied WHERE assignment=?"
        q += " AND submission_id=?" if submission_id else ""
        return [
            Applied(*r)
            for r in self._read(q + " ORDER BY at", (assignment, submission_id)[: 2 if submission_id else 1])
        ]

    def notes(self, assignment: str, submission_id: str | None = None) -> list[LineNote]:
        q = "SELECT id, submission_id, sha256, cell, line, code, text, by, at FROM line_notes WHERE assignment=?"
        q += " AND submission_id=?" if submission_id else ""
        return [
            LineNote(*r)
            for r in self._read(
                q + " ORDER BY cell, line, id", (assignment, submission_id)[: 2 if submission_id else 1]
            )
        ]

    def trail(self, assignment: str) -> list[dict[str, Any]]:
        """The rubric's audit trail, oldest first: each change with the students it touched, score before and after."""
        rows = self._read(
            "SELECT id, item_id, action, detail, touched, by, at FROM rubric_log WHERE assignment=? ORDER BY id",
            (assignment,),
        )
        return [
            {
                "id": r[0],
                "item": r[1],
                "action": r[2],
                "detail": r[3],
                "touched": json.loads(r[4]),
                "by": r[5],
                "at": r[6],
            }
            for r in rows
        ]

    def sent(self, assignment: str, target: str) -> dict[str, float | None]:
        """{submission id: the score it last reached the LMS target `target` with}."""
        return dict(
            self._read(
                "SELECT submission_id, score FROM sent_scores WHERE assignment=? AND target=?", (assignment, target)
            )
        )

    def changed_since(self, assignment: str, after: int) -> tuple[int, set[str]]:
        """(the latest change's id, the submissions any write newer than `after` may have re-scored)."""
        rows = self._read(
            "SELECT id, submission_id FROM changes WHERE assignment=? AND id>? ORDER BY id", (assignment, after)
        )
        return (rows[-1][0] if rows else after), {sid for _, sid in rows}

    # -- writing (each one transaction)

    def _write(self, assignment: str, touched: Iterable[str], do) -> Any:
        conn = self._connect()
        try:
            with conn:
                conn.execute("BEGIN IMMEDIATE")
                out = do(conn)
                conn.executemany(
                    "INSERT INTO changes (assignment, submission_id) VALUES (?,?)",
                    [(assignment, sid) for sid in dict.fromkeys(touched)],
                )
            return out
        finally:
            conn.close()

    def add_override(self, o: Override) -> Override:
        def do(conn: sqlite3.Connection) -> Override:
            cur = conn.execute(
                "INSERT INTO overrides (assignment, submission_id, test_id, sha256, old_score, "
                "new_score, comment, by, at, action) VALUES (?,?,?,?,?,?,?,?,?,?)",
                (
                    o.assignment,
                    o.submission_id,
                    o.test_id,
                    o.sha256,
                    o.old_score,
                    o.new_score,
                    o.comment,
                    o.by,
                    o.at,
                    o.action,
                ),
            )
            return replace(o, id=int(cur.lastrowid or 0))

        return self._write(o.assignment, [o.submission_id], do)

    def add_item(self, item: Item) -> Item:
        def do(conn: sqlite3.Connection) -> Item:
            cur = conn.execute(
                "INSERT INTO rubric_items (assignment, exercise, title, points, comment, note, key) "
                "VALUES (?,?,?,?,?,?,?)",
                (item.assignment, item.exercise, item.title, item.points, item.comment, item.note, item.key),
            )
            return replace(item, id=int(cur.lastrowid or 0))

        return self._write(item.assignment, [], do)

    def edit_item(self, item: Item, holders: Iterable[str]) -> None:
        """Write `item` over the row of its id (a delete is `deleted=True`); `holders`: who has it applied."""

        def do(conn: sqlite3.Connection) -> None:
            n = conn.execute(
                "UPDATE rubric_items SET exercise=?, title=?, points=?, comment=?, note=?, key=?, deleted=? "
                "WHERE id=? AND assignment=?",
                (
                    item.exercise,
                    item.title,
                    item.points,
                    item.comment,
                    item.note,
                    item.key,
                    int(item.deleted),
                    item.id,
                    item.assignment,
                ),
            ).rowcount
            if n != 1:
                raise RubricError(f"no rubric item #{item.id} in {item.assignment}")

        self._write(item.assignment, holders, do)

    def apply(self, assignment: str, item_id: int, on: list[tuple[str, str]], by: str, at: float | None = None) -> None:
        """Apply item `item_id` to each (submission id, sha256) of `on` (again: on that version, by `by`)."""
        at = time.time() if at is None else at
        self._write(
            assignment,
            [sid for sid, _ in on],
            lambda conn: conn.executemany(
                "INSERT OR REPLACE INTO rubric_applied (assignment, item_id, submission_id, sha256, by, at) "
                "VALUES (?,?,?,?,?,?)",
                [(assignment, item_id, sid, sha, by, at) for sid, sha in on],
            ),
        )

    def unapply(self, assignment: str, item_id: int, submission_ids: list[str]) -> None:
        self._write(
            assignment,
            submission_ids,
            lambda conn: conn.executemany(
                "DELETE FROM rubric_applied WHERE assignment=? AND item_id=? AND submission_id=?",
                [(assignment, item_id, sid) for sid in submission_ids],
            ),
        )

    def add_note(self, assignment: str, note: LineNote) -> LineNote:
        def do(conn: sqlite3.Connection) -> LineNote:
            cur = conn.execute(
                "INSERT INTO line_notes (assignment, submission_id, sha256, cell, line, code, text, by, "
                "at) VALUES (?,?,?,?,?,?,?,?,?)",
                (
                    assignment,
                    note.submission_id,
                    note.sha256,
                    note.cell,
                    note.line,
                    note.code,
                    note.text,
                    note.by,
                    note.at,
                ),
            )
            return replace(note, id=int(cur.lastrowid or 0))

        return self._write(assignment, [note.submission_id], do)

    def remove_note(self, assignment: str, note_id: int) -> str:
        """Delete a line comment; returns its submission id ("" when there was none by that id)."""
        rows = self._read("SELECT submission_id FROM line_notes WHERE assignment=? AND id=?", (assignment, note_id))
        if not rows:
            return ""
        self._write(
            assignment,
            [rows[0][0]],
            lambda conn: conn.execute("DELETE FROM line_notes WHERE assignment=? AND id=?", (assignment, note_id)),
        )
        return rows[0][0]

    def log(
        self,
        assignment: str,
        item_id: int,
        action: str,
        detail: str,
        touched: list[tuple[str, float | None, float | None]],
        by: str,
        at: float | None = None,
    ) -> None:
        """One entry of the rubric's audit trail."""
        self._write(
            assignment,
            [],
            lambda conn: conn.execute(
                "INSERT INTO rubric_log (assignment, item_id, action, detail, touched, by, at) VALUES (?,?,?,?,?,?,?)",
                (
                    assignment,
                    item_id,
                    action,
                    detail,
                    json.dumps([list(t) for t in touched]),
                    by,
                    time.time() if at is None else at,
                ),
            ),
        )

    def record_sent(self, assignment: str, target: str, scores: dict[str, float | None]) -> None:
        at = time.time()
        self._write(
            assignment,
            [],
            lambda conn: conn.executemany(
                "INSERT OR REPLACE INTO sent_scores (assignment, target, submission_id, score, at) VALUES (?,?,?,?,?)",
                [(assignment, target, sid, s, at) for sid, s in scores.items()],
            ),
        )
