"""The SQLite gradebook: one row per (assignment, submission), written by the trusted side only.

Each upsert is one transaction, so a killed grader leaves either the old row or the new
one, never half of one; WAL mode and a busy timeout let two graders share a results dir.
"""

from __future__ import annotations

import json
import sqlite3
import time
from pathlib import Path

from autograder.judge.results import SubmissionResult

FILE = "gradebook.sqlite"  # in the results folder; named here alone (the store owns the folder)


def gradebook_path(out: Path) -> Path:
    """The gradebook of the results folder `out`: the graded results and staff's marks (`store.marks`)."""
    return out / FILE


SCHEMA = """
CREATE TABLE IF NOT EXISTS submissions (
    assignment TEXT NOT NULL,
    submission_id TEXT NOT NULL,
    source TEXT NOT NULL,
    sha256 TEXT NOT NULL,
    assignment_version TEXT NOT NULL,
    grader_version TEXT NOT NULL,
    status TEXT NOT NULL,
    score REAL NOT NULL,
    max_score REAL NOT NULL,
    execution_time REAL NOT NULL,
    graded_at REAL NOT NULL,
    record TEXT NOT NULL,
    PRIMARY KEY (assignment, submission_id)
);
"""


class Gradebook:
    def __init__(self, path: Path) -> None:
        path.parent.mkdir(parents=True, exist_ok=True)
        self.db = sqlite3.connect(path, timeout=60, isolation_level=None)
        self.db.execute("PRAGMA journal_mode=WAL")
        self.db.execute("PRAGMA busy_timeout=60000")
        self.db.executescript(SCHEMA)

    def put(self, r: SubmissionResult) -> None:
        env = r.environment
        with self.db:
            self.db.execute("BEGIN IMMEDIATE")
            self.db.execute(
                "INSERT OR REPLACE INTO submissions VALUES (?,?,?,?,?,?,?,?,?,?,?,?)",
                (
                    r.assignment,
                    r.submission_id,
                    r.source,
                    r.sha256,
                    env.get("assignment_version", ""),
                    env.get("grader_version", ""),
                    r.status,
                    r.score,
                    r.max_score,
                    r.execution_time,
                    time.time(),
                    json.dumps(r.to_record(), default=str),
                ),
            )

    def get(self, assignment: str, submission_id: str) -> SubmissionResult | None:
        row = self.db.execute(
            "SELECT record FROM submissions WHERE assignment=? AND submission_id=?", (assignment, submission_id)
        ).fetchone()
        return SubmissionResult.from_stored(json.loads(row[0])) if row else None

    def fingerprint(self, assignment: str, submission_id: str) -> tuple[str, str, str] | None:
        """(sha256, assignment_version, grader_version) of the stored grade, for incremental grading."""
        row = self.db.execute(
            "SELECT sha256, assignment_version, grader_version FROM submissions WHERE assignment=? AND submission_id=?",
            (assignment, submission_id),
        ).fetchone()
        return tuple(row) if row else None

    def assignments(self) -> set[str]:
        """The assignments with at least one result (without reading any)."""
        return {row[0] for row in self.db.execute("SELECT DISTINCT assignment FROM submissions")}

    def stamps(self, assignment: str) -> dict[str, float]:
        """When each result of `assignment` was stored (`put` stamps it), without reading any: a reader that
        kept the results compares them to know which it must read again."""
        return dict(
            self.db.execute(
                "SELECT submission_id, graded_at FROM submissions WHERE assignment=?", (assignment,)
            ).fetchall()
        )

    def all(self, assignment: str) -> list[SubmissionResult]:
        rows = self.db.execute(
            "SELECT record FROM submissions WHERE assignment=? ORDER BY submission_id", (assignment,)
        ).fetchall()
        return [SubmissionResult.from_stored(json.loads(r[0])) for r in rows]

    def close(self) -> None:
        self.db.close()
