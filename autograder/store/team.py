"""A team of TAs on one assignment, kept in the gradebook beside the audit trail: how the class is split among
them (`split`, each split recorded whole: who made it, how, its random seed), which parts each has finished
(`done`), and when names were revealed under anonymous grading (`reveal`).  Rows are only added: a new split
replaces the previous one for the pages (the latest is in force) but both stay recorded."""

from __future__ import annotations

import random
import secrets
import sqlite3
import time
from dataclasses import dataclass
from pathlib import Path

SCHEMA = """
CREATE TABLE IF NOT EXISTS team_splits (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    assignment TEXT NOT NULL,
    unit TEXT NOT NULL,          -- submission | exercise
    how TEXT NOT NULL,           -- even | random
    seed TEXT NOT NULL,          -- the random order's seed ('' for even)
    by TEXT NOT NULL,
    at REAL NOT NULL
);
CREATE TABLE IF NOT EXISTS team_shares (
    split INTEGER NOT NULL REFERENCES team_splits(id),
    item TEXT NOT NULL,          -- a submission id or an exercise
    ta TEXT NOT NULL,
    PRIMARY KEY (split, item)
);
CREATE TABLE IF NOT EXISTS team_done (
    assignment TEXT NOT NULL,
    submission_id TEXT NOT NULL,
    exercise TEXT NOT NULL,      -- '' for the whole submission
    by TEXT NOT NULL,
    at REAL NOT NULL,
    PRIMARY KEY (assignment, submission_id, exercise)
);
CREATE TABLE IF NOT EXISTS team_reveals (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    assignment TEXT NOT NULL,
    by TEXT NOT NULL,
    at REAL NOT NULL
);
"""
UNITS = ("submission", "exercise")
HOWS = ("even", "random")


class TeamError(ValueError):
    """A split that cannot be made (no TA, nothing to share, an unknown unit or way)."""


@dataclass(frozen=True)
class Split:
    id: int
    assignment: str
    unit: str
    how: str
    seed: str
    by: str
    at: float
    shares: dict[str, str]  # item -> TA


def _connect(db: Path) -> sqlite3.Connection:
    conn = sqlite3.connect(db, timeout=60, isolation_level=None)
    conn.execute("PRAGMA busy_timeout=60000")
    conn.executescript(SCHEMA)
    return conn


def share(items: list[str], tas: list[str], how: str, seed: str = "") -> dict[str, str]:
    """`items` among `tas`, as even as can be (sizes differ by one at most): `even` gives each TA a run of the
    items in their order (each grades a stretch of the class list), `random` deals them out in an order drawn
    from `seed` (the same seed, the same split)."""
    if how not in HOWS:
        raise TeamError(f"split evenly or at random, not {how!r}")
    tas = list(dict.fromkeys(t for t in tas if t.strip()))
    if not tas or not items:
        raise TeamError("a split needs at least one TA and something to share")
    order = list(items)
    if how == "random":
        random.Random(seed).shuffle(order)
        return {item: tas[i % len(tas)] for i, item in enumerate(order)}
    size, extra = divmod(len(order), len(tas))
    out, i = {}, 0
    for n, ta in enumerate(tas):
        for item in order[i : i + size + (n < extra)]:
            out[item] = ta
        i += size + (n < extra)
    return out


def split(db: Path, assignment: str, items: list[str], tas: list[str], *, unit: str, how: str, by: str) -> Split:
    """Record a new split of `items` (submission ids or exercises, `unit`) among `tas` (`share`); the
    latest split is the one in force."""
    if unit not in UNITS:
        raise TeamError(f"split by submission or by exercise, not {unit!r}")
    seed = secrets.token_hex(8) if how == "random" else ""
    shares = share(items, tas, how, seed)
    conn = _connect(db)
    try:
        with conn:
            at = time.time()
            cur = conn.execute(
                "INSERT INTO team_splits (assignment, unit, how, seed, by, at) VALUES (?,?,?,?,?,?)",
                (assignment, unit, how, seed, by.strip(), at),
            )
            sid = int(cur.lastrowid or 0)
            conn.executemany("INSERT INTO team_shares VALUES (?,?,?)", [(sid, k, v) for k, v in shares.items()])
        return Split(sid, assignment, unit, how, seed, by.strip(), at, shares)
    finally:
        conn.close()


def current(db: Path, assignment: str) -> Split | None:
    """The split in force (the latest), or None."""
    if not db.is_file():
        return None
    conn = _connect(db)
    try:
        row = conn.execute(
            "SELECT * FROM team_splits WHERE assignment=? ORDER BY id DESC LIMIT 1", (assignment,)
        ).fetchone()
        if row is None:
            return None
        shares = dict(conn.execute("SELECT item, ta FROM team_shares WHERE split=?", (row[0],)).fetchall())
        return Split(*row, shares=shares)  # type: ignore[misc]  # `row`: the split's seven columns
    finally:
        conn.close()


def mark_done(db: Path, assignment: str, submission_ids: list[str], exercise: str, by: str) -> None:
    """Record that `by` finished `exercise` ('' the whole submission) of each of `submission_ids`."""
    conn = _connect(db)
    try:
        with conn:
            conn.executemany(
                "INSERT OR REPLACE INTO team_done VALUES (?,?,?,?,?)",
                [(assignment, s, exercise, by.strip(), time.time()) for s in submission_ids],
            )
    finally:
        conn.close()


def done(db: Path, assignment: str) -> dict[tuple[str, str], str]:
    """{(submission, exercise): who finished it}."""
    if not db.is_file():
        return {}
    conn = _connect(db)
    try:
        return {
            (s, e): by
            for s, e, by in conn.execute(
                "SELECT submission_id, exercise, by FROM team_done WHERE assignment=?", (assignment,)
            ).fetchall()
        }
    finally:
        conn.close()


def reveal(db: Path, assignment: str, by: str) -> None:
    """Record that names are shown from now on under anonymous grading (who decided, when)."""
    conn = _connect(db)
    try:
        with conn:
            conn.execute(
                "INSERT INTO team_reveals (assignment, by, at) VALUES (?,?,?)", (assignment, by.strip(), time.time())
            )
    finally:
        conn.close()


def revealed(db: Path, assignment: str) -> tuple[str, float] | None:
    """(who, when) names were first revealed for `assignment`, or None while they are hidden."""
    if not db.is_file():
        return None
    conn = _connect(db)
    try:
        row = conn.execute(
            "SELECT by, at FROM team_reveals WHERE assignment=? ORDER BY id LIMIT 1", (assignment,)
        ).fetchone()
        return (row[0], row[1]) if row else None
    finally:
        conn.close()
