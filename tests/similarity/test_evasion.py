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
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from autograder.similarity import pairs, syntax
from autograder.similarity.pairs import THRESHOLD, boilerplate, cell_sources, compare, fingerprint
from tests.similarity.evasions import OBFUSCATIONS, PAD, SAME_TREE, WRAPPERS, disguise
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
    path.write_text(
        json.dumps(
            {
                "nbformat": 4,
                "nbformat_minor": 5,
                "metadata": {},
                "cells": [
                    {"cell_type": "code", "metadata": {}, "source": c, "outputs": [], "execution_count": None}
                    for c in cells
                ],
            }
        )
    )
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
    assert found and found[0].score >= THRESHOLD and found[0].shared >= pairs.MIN_SHARED, (
        (found[0].score, found[0].shared) if found else "nothing shared"
    )


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
    "long attribute chain": "x = a" + ".b" * 30_000 + "\n",  # under MAX_PARSE_CHARS: parsed
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
    assert {n: [t.text for t in t_] for n, t_ in toks.items() if n} == {
        n: [t.text for t in t_] for n, t_ in alone.items()
    }
    assert len(toks[0]) <= syntax.CELL_TOKENS
    assert _pair(master, padded, "01_tensors")[0].score >= THRESHOLD


def test_parse_is_bounded_before_parsing(monkeypatch):
    """No cell over MAX_PARSE_CHARS reaches the parser, nor more than MAX_PARSE_TOTAL a notebook, and the
    small cells are the ones parsed: padding cells lose the budget, not the student's code."""
    seen: list[int] = []
    real = syntax.parse
    monkeypatch.setattr(syntax, "parse", lambda s: seen.append(len(s)) or real(s))
    big = "x = [" + "1, " * 12_000 + "]\n"  # 36,000 characters: over the cap for one cell
    medium = "y = [" + "1, " * 10_000 + "]\n"  # 30,000: under it
    small = "def f(a):\n    return a.sum(dim=1)\n"
    out = syntax.notebook_tokens([(1, big), *[(i, medium) for i in range(2, 42)], (42, small)])
    assert max(seen) <= syntax.MAX_PARSE_CHARS and sum(seen) <= 2 * syntax.MAX_PARSE_TOTAL  # two passes
    assert 2 * len(small) + 2 * 34 * len(medium) == sum(seen)  # the small first
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
    cells = {
        "a": cell_sources(fingerprint(master, "a", "a", skip)),
        "b": cell_sources(fingerprint(copy, "b", "b", skip)),
    }
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
    cells = ["class Huber:\n    def call(self, a):\n        return a\n", "print(Huber()(1), keras.losses.Huber()(1))\n"]
    changed = disguise(cells, ["renames"])

    def texts(cs):
        return [[t.text for t in toks] for _, toks in sorted(syntax.notebook_tokens(list(enumerate(cs))).items())]

    assert texts(changed) == texts(cells)
    assert ".Huber" in texts(cells)[1]


# -- issue 49: a trivial helper of the notebook's own, library calls respelled, bounded work -----------------

_MASTER_PRINTS: dict[str, object] = {}


@pytest.mark.parametrize("respelled", [False, True], ids=["as-is", "respelled"])
@pytest.mark.parametrize("kind", WRAPPERS)
def test_copy_through_a_trivial_helper_is_flagged(kind, respelled, tmp_path):
    """Every returned and assigned value passed through a helper that changes nothing (identity, lambda,
    forwarding `*a, **kw`, a no-op statement first, a chain, a method of a trivial class), with and without the
    library calls respelled the other legal way (`a @ b` / `torch.matmul`, `torch.sum(x, 0)` / `x.sum(dim=0)`):
    the copy of every assignment's master is flagged."""
    missed = {}
    for assignment in ASSIGNMENTS:
        master = ROOT / "solutions" / f"{assignment}.ipynb"
        names = [f"{kind} wrapper", *(["respelled calls"] if respelled else [])]
        copy = write(tmp_path / "copy.ipynb", disguise(code_of(master), names))
        found = _pair(master, copy, assignment)
        if not (found and found[0].score >= THRESHOLD and found[0].shared >= pairs.MIN_SHARED):
            missed[assignment] = round(found[0].score, 2) if found else 0.0
    assert not missed


def _tokens(*cells: str, keep: frozenset[str] = frozenset()) -> list[list[str]]:
    out = syntax.notebook_tokens(list(enumerate(cells)), keep)
    return [[t.text for t in out[n]] for n in sorted(out)]


DIRECT = "import torch\ny = torch.sum(a @ b, dim=0)\nz = y.reshape(2, 3).mean(1)\n"
HELPERS = {  # the helper's definition, and DIRECT's last two lines written through it
    "identity": ("def h(v):\n    return v\n", "y = h(torch.sum(h(a) @ b, dim=0))\nz = h(h(y).reshape(2, 3).mean(1))\n"),
    "lambda": ("h = lambda v: v\n", "y = h(torch.sum(a @ b, dim=0))\nz = h(y.reshape(2, 3).mean(1))\n"),
    "second argument": (
        "def h(_, v):\n    return v\n",
        "y = h(0, torch.sum(a @ b, dim=0))\nz = h(1, y.reshape(2, 3).mean(1))\n",
    ),
    "keyword": (
        "def h(v, *, scale=None):\n    return v\n",
        "y = h(torch.sum(a @ b, dim=0), scale=2)\nz = h(v=y.reshape(2, 3).mean(1))\n",
    ),
    "varargs": (
        "def g(v):\n    return v\ndef h(*a, **k):\n    return g(*a, **k)\n",
        "y = h(torch.sum(a @ b, dim=0))\nz = h(y.reshape(2, 3).mean(1))\n",
    ),
    "no-op first": (
        'def h(v):\n    "why"\n    v.shape\n    _ = None\n    if 0:\n        print(v)\n    return v\n',
        "y = h(torch.sum(a @ b, dim=0))\nz = h(y.reshape(2, 3).mean(1))\n",
    ),
    "local copy": (
        "def h(v):\n    w = v\n    return w\n",
        "y = h(torch.sum(a @ b, dim=0))\nz = h(y.reshape(2, 3).mean(1))\n",
    ),
    "forwarder": (
        "def mm(p, q):\n    return torch.matmul(p, q)\ndef total(x, d):\n    return x.sum(dim=d)\n",
        "y = total(mm(a, b), 0)\nz = y.reshape(2, 3).mean(1)\n",
    ),
    "chain": (
        "def f(v):\n    return v\ndef g(v):\n    return f(v)\nh = g\n",
        "y = h(torch.sum(a @ b, dim=0))\nz = h(y.reshape(2, 3).mean(1))\n",
    ),
    "method": (
        "class K:\n    def h(self, v):\n        return v\n",
        "y = K().h(torch.sum(a @ b, dim=0))\nz = K.h(None, y.reshape(2, 3).mean(1))\n",
    ),
    "static method": (
        "class K:\n    @staticmethod\n    def h(v):\n        return v\n",
        "y = K.h(torch.sum(a @ b, dim=0))\nz = K().h(y.reshape(2, 3).mean(1))\n",
    ),
    "respelled": ("", "y = a.matmul(b).sum(0)\nz = torch.mean(y.reshape((2, 3)), dim=1)\n"),
    "respelled alias": (
        "from torch import matmul as mul_\n",
        "y = torch.sum(mul_(a, b), 0)\nz = y.view(2, 3).mean(dim=1)\n",
    ),
}


@pytest.mark.parametrize("kind", HELPERS)
def test_trivial_helpers_and_respelled_calls_are_undone(kind):
    """The code written through a trivial helper of any shape, or with its library calls respelled, has the very
    tokens of the code written directly."""
    definition, body = HELPERS[kind]
    assert _tokens(definition, "import torch\n" + body)[1] == _tokens(DIRECT)[0]


NOT_TRIVIAL = {  # helpers that do something: their calls stay calls
    "effect first": "def h(v):\n    log(v)\n    return v\n",
    "effect kept in a name": "def h(v):\n    _ = log(v)\n    return v\n",
    "two returns": "def h(v):\n    if v:\n        return v\n    return 0\n",
    "parameter twice": "def h(v):\n    return v * v\n",
    "decorated": "@cache\ndef h(v):\n    return v\n",
    "bound twice": "def h(v):\n    return v\nh = print\n",
    "recursive": "def h(v):\n    return h(v)\n",
    "the exercise's own": "def h(v):\n    return v\n",  # named in the released notebook (`keep`)
}


@pytest.mark.parametrize("kind", NOT_TRIVIAL)
def test_helpers_that_do_something_are_kept(kind):
    keep = frozenset({"h"}) if kind == "the exercise's own" else frozenset()
    used = _tokens(NOT_TRIVIAL[kind], "y = h(x.sum(0))\n", keep=keep)[1]
    assert "Call" in used and used.count("Call") >= 2, used


def _padded(tmp_path: Path, name: str, pad: str) -> Path:
    return write(tmp_path / f"{name}.ipynb", [pad, *code_of(ROOT / "solutions" / "01_tensors.ipynb")])


_BOMB_SCRIPT = """
import resource, sys
resource.setrlimit(resource.RLIMIT_AS, (3 * 2**30, 3 * 2**30))
from autograder.cli import main
sys.exit(main(sys.argv[1:]))
"""


def test_padding_cells_shared_by_copies_cost_bounded_time_and_memory(tmp_path):
    """The notebooks of issue 49: three copies of the master with a padding cell first, two sharing one
    20,000-zero list, and two sharing a 100,000-zero list: `autograder similarity` ran minutes and took 14 GB.
    Now, under a 3 GB address-space limit, it finishes in seconds and flags the copies (not the paddings)."""
    import subprocess
    import sys

    folder = tmp_path / "subs"
    folder.mkdir()
    zeros = "PAD = [" + "0, " * 20_000 + "]\n"
    _padded(folder, "a", zeros)
    _padded(folder, "b", zeros)
    _padded(folder, "c", "PAD = [" + "1, " * 20_000 + "]\n")
    write(folder / "d.ipynb", code_of(ROOT / "student" / "01_tensors.ipynb"))
    _padded(folder, "e", "PAD = [" + "0, " * 100_000 + "]\n")
    _padded(folder, "f", "PAD = [" + "0, " * 100_000 + "]\n")
    import resource

    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    done = subprocess.run(
        [
            sys.executable,
            "-c",
            _BOMB_SCRIPT,
            "--kit",
            str(ROOT),
            "similarity",
            "01_tensors",
            str(folder),
            "--out",
            str(tmp_path / "out"),
        ],
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert done.returncode == 0, done.stderr[-2000:]
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = after.ru_utime + after.ru_stime - before.ru_utime - before.ru_stime
    assert cpu < 60  # CPU seconds (the machine may be loaded): about 10; minutes and 14 GB before
    data = json.loads((tmp_path / "out" / "01_tensors" / "similarity.json").read_text())
    flagged = {(p["a"], p["b"]) for p in data["pairs"]}
    assert {("a", "b"), ("a", "c"), ("e", "f"), ("a", "e")} <= flagged and not any("d" in p for p in flagged)
    assert all(len(p["spans"]) <= pairs.SIMILAR_SPANS for p in data["pairs"])


def test_a_fingerprint_repeated_or_shared_by_many_is_bounded(tmp_path, monkeypatch):
    """A cell of one repeated k-gram keeps SIMILAR_PLACES places; only the best SIMILAR_KEPT pairs are kept,
    and how many were flagged is said; where counting pairs would cost over SIMILAR_WORK, the most shared
    fingerprints are common code."""
    from autograder.config import limits

    nb = fingerprint(_padded(tmp_path, "pad", "PAD = [" + "0, " * 20_000 + "]\n"), "x", "x", frozenset())
    assert len(nb.hashes) <= limits.SIMILAR_PLACES * len(nb.prints) and len(nb.hashes) < 400
    master = ROOT / "solutions" / "01_tensors.ipynb"
    one = fingerprint(master, "s0", "s0", frozenset())
    copies = [
        pairs.Notebook(f"s{i:02}", f"s{i}", one.hashes, one.cells, one.firsts, one.lasts, master) for i in range(51)
    ]
    blank = [pairs.Notebook(f"b{i}", f"b{i}") for i in range(70)]  # a class of 121: half is 60
    monkeypatch.setattr(pairs, "SIMILAR_KEPT", 100)
    found = compare(copies + blank)
    assert found.flagged == 51 * 50 // 2 and len(found) == 100
    work = len(one.prints) * 51**2
    monkeypatch.setattr(pairs, "SIMILAR_WORK", work - 1)  # one fingerprint too many: all held by 51
    assert compare(copies + blank) == []
    monkeypatch.setattr(pairs, "SIMILAR_WORK", work)
    assert compare(copies + blank).flagged == 51 * 50 // 2
