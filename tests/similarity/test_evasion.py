"""A copier cannot dodge the similarity report with one token per line: each evasion class of issue 37
(parentheses round every value, a statement without effect after each one, renames + respelled numbers +
dead statements, a padding cell that ate the notebook's token budget) is flagged on every assignment; the
fingerprint is the same under every rewrite the normaliser undoes; a hostile cell costs bounded work; and
independent correct solutions stay apart, disguised or not."""
from __future__ import annotations

import json
import random
import time
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings, strategies as st

from autograder.similarity import pairs, syntax
from autograder.similarity.pairs import THRESHOLD, boilerplate, cell_sources, compare, fingerprint
from tests.similarity.evasions import OBFUSCATIONS, PAD, SAME_TREE, disguise
from tests.similarity.test_similarity import ASSIGNMENTS, ROOT

EVASIONS = {
    "parens": ["parens"],
    "dead statements": ["dead statements"],
    "no-op calls": ["no-op calls"],
    "renames + numbers + dead": ["renames", "respelled numbers", "dead statements"],
    "padding cell": ["padding cell"],
}


def code_of(path: Path) -> list[str]:
    nb = json.loads(path.read_text(encoding="utf-8"))
    return ["".join(c["source"]) for c in nb["cells"] if c["cell_type"] == "code"]


def write(path: Path, cells: list[str]) -> Path:
    path.write_text(json.dumps({"nbformat": 4, "nbformat_minor": 5, "metadata": {}, "cells": [
        {"cell_type": "code", "metadata": {}, "source": c, "outputs": [], "execution_count": None} for c in cells]}))
    return path


def _pair(a: Path, b: Path, assignment: str):
    skip = boilerplate(ROOT / "student" / f"{assignment}.ipynb")
    return compare([fingerprint(a, "a", "a", skip), fingerprint(b, "b", "b", skip)], threshold=0.0, min_shared=0)


@pytest.mark.parametrize("evasion", EVASIONS)
@pytest.mark.parametrize("assignment", ASSIGNMENTS)
def test_disguised_copy_of_the_master_is_flagged(assignment, evasion, tmp_path):
    master = ROOT / "solutions" / f"{assignment}.ipynb"
    copy = write(tmp_path / "copy.ipynb", disguise(code_of(master), EVASIONS[evasion]))
    found = _pair(master, copy, assignment)
    assert found and found[0].score >= THRESHOLD and found[0].shared >= pairs.MIN_SHARED, \
        (found[0].score, found[0].shared) if found else "nothing shared"


@pytest.mark.parametrize("assignment", ASSIGNMENTS)
def test_disguised_independent_solutions_stay_apart(assignment, tmp_path):
    """The master and an independent correct alternative, the alternative disguised each way: a margin under
    the threshold, so that what the normaliser throws away never makes two programs alike."""
    master = ROOT / "solutions" / f"{assignment}.ipynb"
    alt = code_of(ROOT / "tests" / "curriculum" / "alternatives" / f"{assignment}.ipynb")
    for name in OBFUSCATIONS:
        other = write(tmp_path / "alt.ipynb", disguise(alt, [name]))
        found = _pair(master, other, assignment)
        assert not found or found[0].score < THRESHOLD / 2, (name, found[0].score)


_CELLS = [(a, i) for a in ASSIGNMENTS for i in range(len(code_of(ROOT / "solutions" / f"{a}.ipynb")))]


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.sampled_from(_CELLS), st.sets(st.sampled_from(SAME_TREE), min_size=1))
def test_fingerprint_unchanged_by_rewrites_it_normalises(cell, rewrites):
    """Parentheses, dead statements, no-op prints, renames, respelled numbers, changed strings, swapped
    operands, comments and docstrings, extra imports, reformatting: the tokens are the very same."""
    assignment, i = cell
    cells = code_of(ROOT / "solutions" / f"{assignment}.ipynb")
    changed = disguise(cells, sorted(rewrites))
    assert len(changed) == len(cells)

    def texts(cs):
        return {n: [t.text for t in toks] for n, toks in syntax.notebook_tokens(list(enumerate(cs))).items()}

    assert texts(changed)[i] == texts(cells)[i]


HOSTILE = {
    "200,000-token literal": PAD,
    "deep unary": "x = " + "-" * 100_000 + "1\n",
    "deep parentheses": "x = " + "(" * 100_000 + "1" + ")" * 100_000 + "\n",
    "long attribute chain": "x = a" + ".b" * 30_000 + "\n",          # under MAX_PARSE_CHARS: parsed
    "long call chain": "x = f" + "()" * 15_000 + "\n",
    "long sum": "x = " + " + ".join(["a"] * 7_000) + "\n",
    "nested lists": "x = " + "[" * 150 + "a" + "]" * 150 + "\n",
}


@pytest.mark.parametrize("kind", HOSTILE)
def test_hostile_cell_is_bounded_and_hides_nothing(kind, tmp_path):
    """Whatever a cell holds, fingerprinting it costs bounded CPU time and the notebook's other cells are
    fingerprinted in full: the copy of the master beside it is still flagged."""
    master = ROOT / "solutions" / "01_tensors.ipynb"
    cells = code_of(master)
    padded = write(tmp_path / "padded.ipynb", [HOSTILE[kind], *cells])
    start = time.process_time()
    toks = syntax.notebook_tokens(list(enumerate([HOSTILE[kind], *cells])))
    assert time.process_time() - start < 3.0
    alone = syntax.notebook_tokens(list(enumerate(cells, start=1)))
    assert {n: [t.text for t in t_] for n, t_ in toks.items() if n} == {n: [t.text for t in t_] for n, t_ in alone.items()}
    assert len(toks[0]) <= syntax.CELL_TOKENS
    assert _pair(master, padded, "01_tensors")[0].score >= THRESHOLD


def test_parse_is_bounded_before_parsing(monkeypatch):
    """No cell over MAX_PARSE_CHARS reaches the parser, nor more than MAX_PARSE_TOTAL a notebook, and the
    small cells are the ones parsed: padding cells lose the budget, not the student's code."""
    seen: list[int] = []
    real = syntax.parse
    monkeypatch.setattr(syntax, "parse", lambda s: seen.append(len(s)) or real(s))
    big = "x = [" + "1, " * 12_000 + "]\n"                # 36,000 characters: over the cap for one cell
    medium = "y = [" + "1, " * 10_000 + "]\n"             # 30,000: under it
    small = "def f(a):\n    return a.sum(dim=1)\n"
    out = syntax.notebook_tokens([(1, big), *[(i, medium) for i in range(2, 42)], (42, small)])
    assert max(seen) <= syntax.MAX_PARSE_CHARS and sum(seen) <= 2 * syntax.MAX_PARSE_TOTAL   # two passes
    assert 2 * len(small) + 2 * 34 * len(medium) == sum(seen)                              # the small first
    assert [t.text for t in out[42]][:3] == ["FunctionDef", "arg", "Return"]


def test_many_small_junk_cells_do_not_crowd_out_the_copy(tmp_path):
    """1,900 cells of live code, 280,000 tokens, each cell smaller than half of the master's, before the
    copied cells: each cell gets at most a fair share of the notebook's token budget, so the copy keeps its
    fingerprints."""
    master = ROOT / "solutions" / "01_tensors.ipynb"
    rng = random.Random(0)
    shapes = ["a({})", "{}.b", "{}[c]", "-{}", "{} + d", "{} * e", "f({}, g)", "{}.h()"]

    def line() -> str:
        expr = "x"
        for _ in range(10):
            expr = rng.choice(shapes).format(expr)
        return f"v = {expr}\n"

    junk = ["".join(line() for _ in range(6)) for _ in range(1900)]
    padded = write(tmp_path / "padded.ipynb", [*junk, *code_of(master)])
    assert _pair(master, padded, "01_tensors")[0].score >= THRESHOLD


def test_spans_point_at_the_copied_lines(tmp_path):
    """Spans map back to the lines of the cells as submitted: every highlighted line exists in its cell, and
    in a copy with parentheses and a dead statement after each line, the copied lines are the ones lit."""
    a = "01_tensors"
    master = ROOT / "solutions" / f"{a}.ipynb"
    copy = write(tmp_path / "copy.ipynb", disguise(code_of(master), ["parens", "dead statements"]))
    pair = _pair(master, copy, a)[0]
    skip = boilerplate(ROOT / "student" / f"{a}.ipynb")
    cells = {"a": cell_sources(fingerprint(master, "a", "a", skip)), "b": cell_sources(fingerprint(copy, "b", "b", skip))}
    lit = []
    for s in pair.spans:
        for side in "ab":
            lines = cells[side][s[f"{side}_cell"]].splitlines()
            for first, last in s[f"{side}_lines"]:
                assert 1 <= first <= last <= len(lines)
                if side == "b":
                    lit += [lines[n - 1].strip() for n in range(first, last + 1)]
    code = [x for x in lit if x and x != "_ = None"]
    assert len(code) > len(lit) / 2 and any(x.startswith("return (") for x in code)


def test_renaming_a_class_named_like_a_library_attribute_keeps_the_tokens():
    """`class Huber` beside `keras.losses.Huber`: renaming the student's class must not change how the
    library's attribute is spelled (a class name is not an attribute the notebook owns)."""
    cells = ["class Huber:\n    def call(self, a):\n        return a\n",
             "print(Huber()(1), keras.losses.Huber()(1))\n"]
    changed = disguise(cells, ["renames"])

    def texts(cs):
        return [[t.text for t in toks] for _, toks in sorted(syntax.notebook_tokens(list(enumerate(cs))).items())]

    assert texts(changed) == texts(cells)
    assert ".Huber" in texts(cells)[1]
