"""Which notebooks of one assignment share code: a signal for a person to read, never a grade change.

Code cells only.  Whatever the released student notebook already holds (its imports, signatures, stubs,
helpers) is boilerplate: its k-grams are removed before comparing, so two blank notebooks share nothing.
Fingerprints found in most notebooks of a large class (`COMMON_SHARE`) are common code and removed too.
A pair is flagged when the fingerprints both share make up `THRESHOLD` of the smaller notebook's own
code and there are at least `MIN_SHARED` of them (about `MIN_SHARED` lines of shared code); two
notebooks of the same student (resubmissions) are never a pair, and past terms' notebooks (an archive)
are compared with this term's, not with each other.
"""
from __future__ import annotations

import json
from collections import defaultdict
from dataclasses import dataclass, field
from itertools import combinations
from pathlib import Path
from typing import Any

from autograder.notebook.parse import InvalidNotebook, code_cells, read_notebook
from autograder.similarity.syntax import notebook_tokens
from autograder.similarity.winnow import Print, kgrams, winnow
from autograder.config.assignment import load_assignment
from autograder.intake.roster import read_identities
from autograder.intake.submissions import collect
from autograder.store.history import versions

THRESHOLD = 0.5     # share of the smaller notebook's fingerprints found in the other one
MIN_SHARED = 8      # fingerprints in common, below which a pair is not flagged whatever its share
COMMON_SHARE = 0.5  # a fingerprint in more than this share of the notebooks (classes of 10 or more) is common
RESULT_FILE = "similarity.json"


@dataclass
class Notebook:
    """One notebook's fingerprints (boilerplate removed) and its cells' code, for showing spans."""

    key: str                     # submission id, or "archive:<path>"
    student: str                 # who: pairs of one student are resubmissions
    prints: dict[int, list[Print]] = field(default_factory=dict)   # hash -> where
    cells: dict[int, str] = field(default_factory=dict)            # cell number -> source
    problem: str = ""            # why it could not be read


@dataclass
class Pair:
    a: str
    b: str
    score: float
    shared: int
    spans: list[dict[str, Any]]

    def to_json(self) -> dict[str, Any]:
        return {"a": self.a, "b": self.b, "score": round(self.score, 3), "shared": self.shared, "spans": self.spans}


def notebook_grams(path: Path) -> tuple[list[list[Print]], dict[int, str]]:
    """Each code cell's k-grams, and the cells' sources; raises `InvalidNotebook` (a capped read)."""
    sources = {c.index: c.source for c in code_cells(read_notebook(path))}
    return [kgrams(toks) for toks in notebook_tokens(list(sources.items())).values()], sources


def boilerplate(released: Path | None) -> frozenset[int]:
    """Every k-gram hash of the released student notebook's code (all of them, not only the winnowed)."""
    if released is None or not released.is_file():
        return frozenset()
    grams, _ = notebook_grams(released)
    return frozenset(p.hash for cell in grams for p in cell)


def fingerprint(path: Path, key: str, student: str, skip: frozenset[int]) -> Notebook:
    nb = Notebook(key, student)
    try:
        grams, nb.cells = notebook_grams(path)
    except (InvalidNotebook, OSError) as e:
        nb.problem = str(e)
        return nb
    for cell in grams:
        for p in winnow([g for g in cell if g.hash not in skip]):
            nb.prints.setdefault(p.hash, []).append(p)
    return nb


def _merge(ranges: list[tuple[int, int]]) -> list[list[int]]:
    out: list[list[int]] = []
    for first, last in sorted(ranges):
        if out and first <= out[-1][1] + 1:
            out[-1][1] = max(out[-1][1], last)
        else:
            out.append([first, last])
    return out


def spans(a: Notebook, b: Notebook, shared: set[int]) -> list[dict[str, Any]]:
    """The matching code as line ranges per pair of cells: {"a_cell", "a_lines", "b_cell", "b_lines"}."""
    by_cells: dict[tuple[int, int], tuple[list, list]] = defaultdict(lambda: ([], []))
    for h in shared:
        for pa in a.prints[h]:
            for pb in b.prints[h]:
                ra, rb = by_cells[(pa.cell, pb.cell)]
                ra.append((pa.first, pa.last))
                rb.append((pb.first, pb.last))
    return [{"a_cell": ca, "a_lines": _merge(ra), "b_cell": cb, "b_lines": _merge(rb), "prints": len(ra)}
            for (ca, cb), (ra, rb) in sorted(by_cells.items(), key=lambda kv: -len(kv[1][0]))]


def compare(current: list[Notebook], archive: list[Notebook] = (), *, threshold: float = THRESHOLD,
            min_shared: int = MIN_SHARED) -> list[Pair]:
    """Pairs above `threshold`, best first: this term's notebooks with each other and with the archive."""
    everyone = [n for n in [*current, *archive] if not n.problem]
    common: set[int] = set()
    if len(everyone) >= 10:
        seen: dict[int, int] = defaultdict(int)
        for n in everyone:
            for h in n.prints:
                seen[h] += 1
        common = {h for h, c in seen.items() if c > COMMON_SHARE * len(everyone)}
    own = {n.key: set(n.prints) - common for n in everyone}
    index: dict[int, list[Notebook]] = defaultdict(list)
    for n in everyone:
        for h in own[n.key]:
            index[h].append(n)
    counts: dict[tuple[str, str], int] = defaultdict(int)
    archived = {n.key for n in archive}
    by_key = {n.key: n for n in everyone}
    for holders in index.values():
        for x, y in combinations(holders, 2):
            if x.student == y.student or (x.key in archived and y.key in archived):
                continue
            counts[(x.key, y.key) if x.key < y.key else (y.key, x.key)] += 1
    pairs = []
    for (ka, kb), n in counts.items():
        smaller = min(len(own[ka]), len(own[kb]))
        score = n / smaller if smaller else 0.0
        if n >= min_shared and score >= threshold:
            a, b = by_key[ka], by_key[kb]
            pairs.append(Pair(ka, kb, score, n, spans(a, b, own[ka] & own[kb])))
    pairs.sort(key=lambda p: (-p.score, -p.shared, p.a, p.b))
    return pairs


def write_result(path: Path, assignment: str, notebooks: list[Notebook], pairs: list[Pair],
                 threshold: float) -> None:
    """OUT/ASSIGNMENT/similarity.json: the pairs with their spans, and what could not be read."""
    path.parent.mkdir(parents=True, exist_ok=True)
    data = {"assignment": assignment, "threshold": threshold, "notebooks": len(notebooks),
            "unreadable": {n.key: n.problem for n in notebooks if n.problem},
            "students": {n.key: n.student for n in notebooks},
            "pairs": [p.to_json() for p in pairs], "code": _flagged_code(notebooks, pairs)}
    tmp = path.with_suffix(".tmp")
    tmp.write_text(json.dumps(data, indent=1), encoding="utf-8")
    tmp.replace(path)


MAX_SHOWN_CELL = 20_000   # characters of one cell kept in the JSON file for showing a pair side by side


def _flagged_code(notebooks: list[Notebook], pairs: list[Pair]) -> dict[str, dict[str, str]]:
    """The code of the cells that flagged pairs match, {key: {cell: source}}, for a person to read."""
    wanted: dict[str, set[int]] = defaultdict(set)
    for p in pairs:
        for s in p.spans:
            wanted[p.a].add(s["a_cell"])
            wanted[p.b].add(s["b_cell"])
    return {n.key: {str(c): n.cells.get(c, "")[:MAX_SHOWN_CELL] for c in sorted(wanted[n.key])}
            for n in notebooks if n.key in wanted}


def read_result(path: Path) -> dict[str, Any]:
    return json.loads(path.read_text(encoding="utf-8")) if path.is_file() else {}


def kept_versions(out: Path, assignment: str, known: dict, skip: frozenset[int]) -> list[Notebook]:
    """Every kept graded version of every submission (`store.history`), keyed SUBMISSION, or SUBMISSION@SHA
    for all but the version graded last; a student's versions are one student's (never a pair)."""

    found = []
    root = out / assignment
    for sub in sorted(d for d in root.iterdir() if (d / "versions").is_dir()) if root.is_dir() else []:
        kept = [v for v in versions(out, assignment, sub.name) if v.notebook]
        who = known.get(sub.name)
        for i, v in enumerate(kept):
            key = sub.name if i == len(kept) - 1 else f"{sub.name}@{v.sha256[:12]}"
            found.append(fingerprint(v.notebook, key, who.student_id if who else sub.name, skip))
    return found


def assignment_similarity(kit: Path, assignment: str, submissions: list[Path], out: Path, *,
                          archive: Path | None = None, threshold: float = THRESHOLD) -> tuple[list[Notebook], list[Pair], Path]:
    """Fingerprint the submissions (notebooks, folders, zips, as `grade` takes them; none: every graded
    version kept in the results folder, `store.history`) and the archive's notebooks, compare, and write OUT/ASSIGNMENT/similarity.json.  Who a submission is comes from the
    identities intake recorded when grading (`identities.json`), else its submission id."""
    import tempfile


    a = load_assignment(assignment, kit)
    skip = boilerplate(kit / "student" / f"{a.id}.ipynb")
    known = read_identities(out / a.id / "identities.json")
    with tempfile.TemporaryDirectory(prefix="autograder-similarity-") as scratch:
        subs = collect(submissions, Path(scratch) / "current") if submissions else []
        current = [] if submissions else kept_versions(out, a.id, known, skip)
        for s in subs:
            who = known.get(s.id)
            nb = fingerprint(s.path, s.id, who.student_id if who else s.id, skip) if not s.problem else \
                Notebook(s.id, s.id, problem=s.problem)
            current.append(nb)
        past = []
        if archive is not None:
            for s in collect([archive], Path(scratch) / "archive"):
                key = f"archive:{s.source}"
                past.append(fingerprint(s.path, key, key, skip) if not s.problem else Notebook(key, key, problem=s.problem))
    pairs = compare(current, past, threshold=threshold)
    dest = out / a.id / RESULT_FILE
    write_result(dest, a.id, current + past, pairs, threshold)
    return current + past, pairs, dest
