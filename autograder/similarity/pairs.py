"""Which notebooks of one assignment share code: a signal for a person to read, never a grade change.

Code cells only.  Whatever the released student notebook already holds (its imports, signatures, stubs,
helpers) is boilerplate: its k-grams are removed before comparing, so two blank notebooks share nothing.
Fingerprints found in most notebooks of a large class (`COMMON_SHARE`) are common code and removed too.
A pair is flagged when the fingerprints both share make up `THRESHOLD` of the smaller notebook's own
code and there are at least `MIN_SHARED` of them (about `MIN_SHARED` lines of shared code); two
notebooks of the same student (resubmissions) are never a pair, and past terms' notebooks (an archive)
are compared with this term's, not with each other.

Bounded whatever the notebooks hold (`config.limits`, SIMILAR_*): a notebook's fingerprints are kept compactly
(numpy arrays, at most SIMILAR_PLACES places of one hash, SIMILAR_PRINTS in all), not its code; counting pairs
costs at most SIMILAR_WORK (past it the most shared fingerprints are common code, `_common`); the best
SIMILAR_KEPT pairs are kept, each with its SIMILAR_SPANS largest spans.
"""

from __future__ import annotations

import json
from collections import defaultdict
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Iterator, Sequence

import numpy as np

from autograder.config.assignment import load_assignment
from autograder.config.limits import (
    SHOWN_TEXT,
    SIMILAR_KEPT,
    SIMILAR_PAIRS,
    SIMILAR_PLACES,
    SIMILAR_PRINTS,
    SIMILAR_RANGES,
    SIMILAR_SPANS,
    SIMILAR_WORK,
)
from autograder.intake.submissions import collect
from autograder.notebook.parse import InvalidNotebook, code_cells, read_notebook
from autograder.similarity.syntax import defined_names, notebook_tokens
from autograder.similarity.winnow import Print, kgrams, winnow
from autograder.store.folder import ResultsFolder
from autograder.store.history import versions

THRESHOLD = 0.5  # share of the smaller notebook's fingerprints found in the other one
MIN_SHARED = 8  # fingerprints in common, below which a pair is not flagged whatever its share
COMMON_SHARE = 0.5  # a fingerprint in more than this share of the notebooks (classes of 10 or more) is common
RESULT_FILE = "similarity.json"


@dataclass
class Notebook:
    """One notebook's fingerprints (boilerplate removed), compactly: `hashes[i]` was found in cell `cells[i]`,
    lines `firsts[i]` to `lasts[i]` (at most SIMILAR_PLACES places per hash, SIMILAR_PRINTS in all).  Its code
    is not kept: the few cells a flagged pair shows are read again from `path` (`cell_sources`)."""

    key: str  # submission id, or "archive:<path>"
    student: str  # who: pairs of one student are resubmissions
    hashes: Any = field(default_factory=lambda: np.zeros(0, np.uint64))
    cells: Any = field(default_factory=lambda: np.zeros(0, np.int32))
    firsts: Any = field(default_factory=lambda: np.zeros(0, np.int32))
    lasts: Any = field(default_factory=lambda: np.zeros(0, np.int32))
    path: Path | None = None
    problem: str = ""  # why it could not be read

    @property
    def prints(self) -> set[int]:
        """Its distinct fingerprint hashes."""
        return {int(h) for h in self.hashes}

    def places(self) -> dict[int, list[tuple[int, int, int]]]:
        """{hash: [(cell, first line, last line), ...]}."""
        out: dict[int, list[tuple[int, int, int]]] = defaultdict(list)
        for h, c, f, la in zip(self.hashes.tolist(), self.cells.tolist(), self.firsts.tolist(), self.lasts.tolist()):
            out[h].append((c, f, la))
        return out


class Pairs(list):
    """The pairs kept (`SIMILAR_KEPT`, best first) and how many were flagged in all."""

    flagged = 0


@dataclass
class Pair:
    a: str
    b: str
    score: float
    shared: int
    spans: list[dict[str, Any]]

    def to_json(self) -> dict[str, Any]:
        return {"a": self.a, "b": self.b, "score": round(self.score, 3), "shared": self.shared, "spans": self.spans}


class Boilerplate(frozenset):
    """The released notebook's k-gram hashes, and `names`: what it binds (its functions are the exercise's API,
    never inlined as a student's trivial helper, `similarity.canon`)."""

    names: frozenset[str] = frozenset()


def notebook_grams(path: Path, keep: frozenset[str] = frozenset()) -> tuple[list[list[Print]], dict[int, str]]:
    """Each code cell's k-grams, smallest cells first, and the cells' sources; raises `InvalidNotebook` (a
    capped read)."""
    sources = {c.index: c.source for c in code_cells(read_notebook(path))}
    return [kgrams(toks) for toks in notebook_tokens(list(sources.items()), keep).values()], sources


def cell_sources(nb: Notebook) -> dict[int, str]:
    """The notebook's code cells read again, {cell number: source} ({} when it cannot be read)."""
    try:
        return {c.index: c.source for c in code_cells(read_notebook(nb.path))} if nb.path else {}
    except (InvalidNotebook, OSError):
        return {}


def boilerplate(released: Path | None) -> Boilerplate:
    """Every k-gram hash of the released student notebook's code (all of them, not only the winnowed)."""
    if released is None or not released.is_file():
        return Boilerplate()
    grams, sources = notebook_grams(released)
    out = Boilerplate(p.hash for cell in grams for p in cell)
    out.names = frozenset(defined_names(list(sources.values())))
    return out


def fingerprint(path: Path, key: str, student: str, skip: frozenset[int]) -> Notebook:
    """The notebook's winnowed fingerprints, boilerplate left out, smallest cells first, within the caps of
    the class `Notebook` (a 20,000-zero list winnows to one hash found 10,000 times: two places are kept)."""
    nb = Notebook(key, student, path=path)
    try:
        grams, _ = notebook_grams(path, getattr(skip, "names", frozenset()))
    except (InvalidNotebook, OSError) as e:
        nb.problem = str(e)
        return nb
    rows: list[tuple[int, int, int, int]] = []
    seen: dict[int, int] = defaultdict(int)
    for cell in grams:
        for p in winnow([g for g in cell if g.hash not in skip]):
            if seen[p.hash] < SIMILAR_PLACES:
                seen[p.hash] += 1
                rows.append((p.hash, p.cell, p.first, p.last))
        if len(rows) >= SIMILAR_PRINTS:
            break
    rows = sorted(rows[:SIMILAR_PRINTS])
    if rows:
        nb.hashes = np.array([r[0] for r in rows], np.uint64)
        nb.cells, nb.firsts, nb.lasts = (np.array([r[i] for r in rows], np.int32) for i in (1, 2, 3))
    return nb


def _merge(ranges: list[tuple[int, int]]) -> list[list[int]]:
    out: list[list[int]] = []
    for first, last in sorted(ranges):
        if out and first <= out[-1][1] + 1:
            out[-1][1] = max(out[-1][1], last)
        else:
            out.append([first, last])
    return out[:SIMILAR_RANGES]


def spans(
    a: dict[int, list[tuple[int, int, int]]], b: dict[int, list[tuple[int, int, int]]], shared: set[int]
) -> list[dict[str, Any]]:
    """The matching code as line ranges per pair of cells, {"a_cell", "a_lines", "b_cell", "b_lines", "prints"},
    the pairs of cells sharing most first, at most SIMILAR_SPANS of them (`Notebook.places` of each side)."""
    by_cells: dict[tuple[int, int], tuple[list, list]] = defaultdict(lambda: ([], []))
    for h in shared:
        for ca, fa, la in a.get(h, ()):
            for cb, fb, lb in b.get(h, ()):
                ra, rb = by_cells[(ca, cb)]
                ra.append((fa, la))
                rb.append((fb, lb))
    best = sorted(by_cells.items(), key=lambda kv: (-len(kv[1][0]), kv[0]))[:SIMILAR_SPANS]
    return [
        {"a_cell": ca, "a_lines": _merge(ra), "b_cell": cb, "b_lines": _merge(rb), "prints": len(ra)}
        for (ca, cb), (ra, rb) in best
    ]


def _shared_counts(sets: list[Any], common: Any) -> Iterator[tuple[int, Any]]:
    """For each notebook i, how many of its fingerprints each notebook holds (a row of counts), over the
    fingerprints not `common`.  The work is the sum over fingerprints of their holders squared (`_common` keeps
    it under SIMILAR_WORK), gathered a million at a time."""
    n = len(sets)
    owner = np.repeat(np.arange(n), [len(s) for s in sets])
    allh = np.concatenate(sets) if sets else np.zeros(0, np.uint64)
    keep = ~np.isin(allh, common)
    allh, owner = allh[keep], owner[keep]
    order = np.argsort(allh, kind="stable")
    sorted_h, sorted_owner = allh[order], owner[order]
    starts = np.searchsorted(sorted_h, allh, side="left")  # each entry's group in the sorted array
    ends = np.searchsorted(sorted_h, allh, side="right")
    bounds = np.concatenate([[0], np.cumsum(np.bincount(owner, minlength=n))])
    for i in range(n):
        s, e = starts[bounds[i] : bounds[i + 1]], ends[bounds[i] : bounds[i + 1]]
        lens = e - s
        multi = lens > 1  # held by someone else too
        s, lens = s[multi], lens[multi]
        if not len(s):
            continue
        row = np.zeros(n, np.int64)
        cut = np.searchsorted(np.cumsum(lens), np.arange(2**20, int(lens.sum()) + 2**20, 2**20), side="right")
        for a, b in zip(np.concatenate([[0], cut[:-1]]), cut):
            cs, cl = s[a:b], lens[a:b]
            offsets = np.repeat(cs - np.cumsum(cl) + cl, cl) + np.arange(int(cl.sum()))
            row += np.bincount(sorted_owner[offsets], minlength=n)
        yield i, row


def _common(sets: list[Any]) -> Any:
    """The fingerprints taken as common code: those more than COMMON_SHARE of a class of 10 or more hold, and,
    where counting pairs over the rest would cost over SIMILAR_WORK, the most shared ones past that (a class
    flooded with one shared text), so the count's work is bounded whatever the notebooks hold."""
    if not sets:
        return np.zeros(0, np.uint64)
    values, counts = np.unique(np.concatenate(sets), return_counts=True)
    limit = COMMON_SHARE * len(sets) if len(sets) >= 10 else len(sets)
    shared = np.sort(counts[(counts >= 2) & (counts <= limit)])
    fits = int(np.searchsorted(np.cumsum(shared.astype(np.int64) ** 2), SIMILAR_WORK, side="right"))
    if fits < len(shared):
        limit = min(limit, int(shared[fits]) - 1)
    return values[counts > limit]


def compare(
    current: list[Notebook],
    archive: Sequence[Notebook] = (),
    *,
    threshold: float = THRESHOLD,
    min_shared: int = MIN_SHARED,
) -> Pairs:
    """Pairs above `threshold`, best first, at most SIMILAR_KEPT of them (`Pairs.flagged`: how many were):
    this term's notebooks with each other and with the archive."""
    everyone = [n for n in [*current, *archive] if not n.problem]
    sets = [np.unique(n.hashes) for n in everyone]
    common = _common(sets)
    own = np.array([len(s) - int(np.isin(s, common).sum()) for s in sets], np.int64)
    students = np.array([n.student for n in everyone], object)
    archived = np.array([i >= len(everyone) - sum(not n.problem for n in archive) for i in range(len(everyone))], bool)
    found: list[tuple[float, int, int, int]] = []
    for i, row in _shared_counts(sets, common):
        others = np.nonzero(row[i + 1 :] >= max(min_shared, 1))[0] + i + 1
        others = others[(students[others] != students[i]) & ~(archived[others] & archived[i])]
        smaller = np.minimum(own[i], own[others])
        score = np.where(smaller > 0, row[others] / np.maximum(smaller, 1), 0.0)
        for k in np.nonzero(score >= threshold)[0]:
            found.append((-float(score[k]), int(i), int(others[k]), int(row[others[k]])))
    keys = [n.key for n in everyone]
    found.sort(key=lambda f: (f[0], -f[3], *sorted((keys[f[1]], keys[f[2]]))))
    pairs = Pairs()
    pairs.flagged = len(found)
    places: dict[int, dict] = {}
    for negative, i, j, shared in found[:SIMILAR_KEPT]:
        first, second = (i, j) if keys[i] < keys[j] else (j, i)
        for x in (first, second):
            if x not in places:
                places[x] = everyone[x].places()
        both = set(np.intersect1d(np.setdiff1d(sets[first], common), sets[second]).tolist())
        pairs.append(Pair(keys[first], keys[second], -negative, shared, spans(places[first], places[second], both)))
    return pairs


def write_result(path: Path, assignment: str, notebooks: list[Notebook], pairs: list[Pair], threshold: float) -> None:
    """OUT/ASSIGNMENT/similarity.json: the pairs with their spans, and what could not be read."""
    path.parent.mkdir(parents=True, exist_ok=True)
    data = {
        "assignment": assignment,
        "threshold": threshold,
        "notebooks": len(notebooks),
        "unreadable": {n.key: n.problem for n in notebooks if n.problem},
        "students": {n.key: n.student for n in notebooks},
        "flagged": getattr(pairs, "flagged", len(pairs)),
        "pairs": [p.to_json() for p in pairs],
        "code": _flagged_code(notebooks, pairs),
    }
    tmp = path.with_suffix(".tmp")
    tmp.write_text(json.dumps(data, indent=1), encoding="utf-8")
    tmp.replace(path)


MAX_SHOWN_CELL = SHOWN_TEXT  # characters of one cell kept in the JSON file for showing a pair side by side


def _flagged_code(notebooks: list[Notebook], pairs: list[Pair]) -> dict[str, dict[str, str]]:
    """The code of the cells the similarity page shows (its first SIMILAR_PAIRS pairs, SIMILAR_SPANS spans
    each), {key: {cell: source}}, each cut to SHOWN_TEXT characters: the file's size is bounded too."""
    wanted: dict[str, set[int]] = defaultdict(set)
    for p in pairs[:SIMILAR_PAIRS]:
        for s in p.spans[:SIMILAR_SPANS]:
            wanted[p.a].add(s["a_cell"])
            wanted[p.b].add(s["b_cell"])
    out = {}
    for n in notebooks:
        if n.key in wanted:
            sources = cell_sources(n)
            out[n.key] = {str(c): sources.get(c, "")[:MAX_SHOWN_CELL] for c in sorted(wanted[n.key])}
    return out


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
            assert v.notebook is not None  # kept: the versions with a notebook
            key = sub.name if i == len(kept) - 1 else f"{sub.name}@{v.sha256[:12]}"
            found.append(fingerprint(v.notebook, key, who.student_id if who else sub.name, skip))
    return found


def assignment_similarity(
    kit: Path,
    assignment: str,
    submissions: list[Path],
    out: Path,
    *,
    archive: Path | None = None,
    threshold: float = THRESHOLD,
) -> tuple[list[Notebook], list[Pair], Path]:
    """Fingerprint the submissions (notebooks, folders, zips, as `grade` takes them; none: every graded
    version kept in the results folder, `store.history`) and the archive's notebooks, compare, and write OUT/ASSIGNMENT/similarity.json.  Who a submission is comes from the
    identities intake recorded when grading (`identities.json`), else its submission id."""
    import tempfile

    a = load_assignment(assignment, kit)
    skip = boilerplate(kit / "student" / f"{a.id}.ipynb")
    known = ResultsFolder(out).identities(a.id)
    with tempfile.TemporaryDirectory(prefix="autograder-similarity-") as scratch:
        subs = collect(submissions, Path(scratch) / "current") if submissions else []
        current = [] if submissions else kept_versions(out, a.id, known, skip)
        for s in subs:
            who = known.get(s.id)
            nb = (
                fingerprint(s.path, s.id, who.student_id if who else s.id, skip)
                if not s.problem
                else Notebook(s.id, s.id, problem=s.problem)
            )
            current.append(nb)
        past = []
        if archive is not None:
            for s in collect([archive], Path(scratch) / "archive"):
                key = f"archive:{s.source}"
                past.append(
                    fingerprint(s.path, key, key, skip) if not s.problem else Notebook(key, key, problem=s.problem)
                )
        pairs = compare(current, past, threshold=threshold)
        dest = out / a.id / RESULT_FILE
        write_result(dest, a.id, current + past, pairs, threshold)  # reads the shown cells again
    return current + past, pairs, dest
