"""Similarity: a copy with renamed variables and reordered cells is flagged; the curriculum's independent
correct solutions of each assignment are not, nor are blank notebooks, nor a student's own resubmissions."""

from __future__ import annotations

import ast
import builtins
import copy
import io
import json
import keyword
import tokenize
from pathlib import Path

import pytest

from autograder.cli import main
from autograder.similarity.pairs import THRESHOLD, boilerplate, compare, fingerprint
from autograder.similarity.winnow import kgrams, tokens, winnow

ROOT = Path(__file__).resolve().parents[2]
ASSIGNMENTS = sorted(
    p.name for p in (ROOT / "assignments").iterdir() if (ROOT / "solutions" / f"{p.name}.ipynb").is_file()
)
KEEP = set(keyword.kwlist) | set(dir(builtins))


def rename(source: str, suffix: str = "_mine") -> str:
    """Every name a student chooses (not keywords, builtins or attributes) renamed, as a copier would: what an
    import binds is renamed by an alias (`from torch import nn as zz_nn_mine`), since a library's own names
    cannot be, and a method called as an attribute somewhere (`def backward` beside `.backward()`) keeps its
    name, as the program would break."""
    out, previous = [], ""
    try:
        toks = list(tokenize.generate_tokens(io.StringIO(source).readline))
        tree = ast.parse(source)
    except (tokenize.TokenError, SyntaxError):
        return source
    imports: dict[int, tuple[int, str]] = {}
    for node in ast.walk(tree):
        if isinstance(node, (ast.Import, ast.ImportFrom)):
            new = copy.deepcopy(node)
            for a in new.names:
                bound = a.asname or a.name.split(".")[0]
                if (
                    a.name != "*"
                    and bound not in KEEP
                    and not bound.startswith("__")
                    and (a.asname or "." not in a.name)
                ):
                    a.asname = "zz_" + bound + suffix
            imports[node.lineno] = (node.end_lineno, " " * node.col_offset + ast.unparse(new))
    inside = {n for first, (last, _) in imports.items() for n in range(first, last + 1)}
    attributes = {b.string for a, b in zip(toks, toks[1:]) if a.string == "."}
    for t in toks:
        text = t.string
        if (
            t.type == tokenize.NAME
            and text not in KEEP
            and previous != "."
            and not text.startswith("__")
            and t.start[0] not in inside
            and text not in attributes
        ):
            text = "zz_" + text + suffix
        out.append((t.type, text))
        previous = t.string
    lines = tokenize.untokenize(out).split("\n")
    for first, (last, text) in imports.items():
        lines[first - 1 : last] = [text] + [""] * (last - first)
    return "\n".join(lines)


def disguised(src: Path, dest: Path) -> Path:
    """`src` with its variables renamed, comments added and its code cells in reverse order."""
    nb = json.loads(src.read_text(encoding="utf-8"))
    code = [c for c in nb["cells"] if c["cell_type"] == "code"]
    for c in code:
        c["source"] = "# my own work\n" + rename("".join(c["source"]))
    others = [c for c in nb["cells"] if c["cell_type"] != "code"]
    nb["cells"] = others + list(reversed(code))
    dest.write_text(json.dumps(nb), encoding="utf-8")
    return dest


def _fp(path: Path, key: str, assignment: str, student: str | None = None):
    return fingerprint(path, key, student or key, boilerplate(ROOT / "student" / f"{assignment}.ipynb"))


@pytest.mark.parametrize("assignment", ASSIGNMENTS)
def test_renamed_reordered_copy_is_flagged(assignment, tmp_path):
    original = ROOT / "tests" / "curriculum" / "alternatives" / f"{assignment}.ipynb"
    copied = disguised(original, tmp_path / "copy.ipynb")
    pairs = compare([_fp(original, "alice", assignment), _fp(copied, "bob", assignment)])
    assert [(p.a, p.b) for p in pairs] == [("alice", "bob")]
    assert pairs[0].score > 0.9
    assert pairs[0].spans and all(s["a_lines"] and s["b_lines"] for s in pairs[0].spans)


@pytest.mark.parametrize("assignment", ASSIGNMENTS)
def test_independent_correct_solutions_are_not_flagged(assignment):
    """The master and the independent alternative; a style variant (`<id>.<style>.ipynb`, the master written
    against another API) is compared with the independent alternative only, being the master's own kin."""
    alt = ROOT / "tests" / "curriculum" / "alternatives" / f"{assignment}.ipynb"
    styles = sorted((ROOT / "tests" / "curriculum" / "alternatives").glob(f"{assignment}.*.ipynb"))
    alternative = _fp(alt, "alternative", assignment)
    for other in [ROOT / "solutions" / f"{assignment}.ipynb", *styles]:
        pair = compare([alternative, _fp(other, "other", assignment)], threshold=0.0, min_shared=0)
        score = pair[0].score if pair else 0.0
        assert score < THRESHOLD / 2, (other.name, score)  # a margin under the threshold


@pytest.mark.parametrize("assignment", ASSIGNMENTS)
def test_blank_notebooks_share_nothing(assignment, tmp_path):
    blank = ROOT / "student" / f"{assignment}.ipynb"
    twin = tmp_path / "twin.ipynb"
    twin.write_bytes(blank.read_bytes())
    master = ROOT / "solutions" / f"{assignment}.ipynb"
    nbs = [_fp(blank, "a", assignment), _fp(twin, "b", assignment), _fp(master, "c", assignment)]
    assert not nbs[0].prints and not nbs[1].prints
    assert compare(nbs) == []


def test_resubmissions_and_archives(tmp_path):
    a = "01_tensors"
    original = ROOT / "tests" / "curriculum" / "alternatives" / f"{a}.ipynb"
    again = disguised(original, tmp_path / "again.ipynb")
    first, second = _fp(original, "s1-v1", a, "s1"), _fp(again, "s1-v2", a, "s1")
    assert compare([first, second]) == []  # one student's two versions
    past1, past2 = _fp(original, "archive:x", a), _fp(again, "archive:y", a)
    assert compare([], [past1, past2]) == []  # past terms are not compared with each other
    assert [(p.a, p.b) for p in compare([second], [past1])] == [("archive:x", "s1-v2")]


def test_hostile_notebooks_are_bounded_and_reported(tmp_path):
    bad = tmp_path / "bad.ipynb"
    bad.write_bytes(b"\xff{not json")
    nb = fingerprint(bad, "bad", "bad", frozenset())
    assert nb.problem and not nb.prints
    magic = "%timeit x = 1\n!rm -rf /\ndef f(:\n    return 'unterminated\n"
    assert [t.text for t in tokens(magic, 1)][:3] == ["%", "V", "V"]  # fallback tokenizer, no exception
    huge = "x = 1\n" * 100_000
    assert len(tokens(huge, 1, budget=1000)) == 1000


def test_winnowing_guarantee():
    """Any shared run of K + WINDOW - 1 tokens yields at least one shared fingerprint."""
    body = "y = torch.matmul(a, b).sum(dim=1) + c.mean()\n"
    one = "import torch\n" + body * 1 + "print('a')\n"
    two = "q = 3\nz = q * 2\n" + body + "w = 1\n"
    fa = {p.hash for p in winnow(kgrams(tokens(one, 1)))}
    fb = {p.hash for p in winnow(kgrams(tokens(two, 1)))}
    assert fa & fb


def test_cli_writes_table_and_json(tmp_path, capsys):
    a = "02_autograd"
    folder = tmp_path / "subs"
    folder.mkdir()
    alt = ROOT / "tests" / "curriculum" / "alternatives" / f"{a}.ipynb"
    (folder / "alice.ipynb").write_bytes(alt.read_bytes())
    disguised(alt, folder / "bob.ipynb")
    (folder / "carol.ipynb").write_bytes((ROOT / "solutions" / f"{a}.ipynb").read_bytes())
    (folder / "dan.ipynb").write_bytes((ROOT / "student" / f"{a}.ipynb").read_bytes())
    out = tmp_path / "results"
    assert main(["--kit", str(ROOT), "similarity", a, str(folder), "--out", str(out)]) == 0
    printed = capsys.readouterr().out
    assert "alice" in printed and "bob" in printed and "carol" not in printed
    data = json.loads((out / a / "similarity.json").read_text())
    assert [(p["a"], p["b"]) for p in data["pairs"]] == [("alice", "bob")]
    assert data["notebooks"] == 4 and data["threshold"] == THRESHOLD


def test_kept_versions_are_compared_by_default(tmp_path, capsys):
    """No SUBMISSIONS: every graded version kept in the results folder; a student's own versions never pair."""
    from autograder.judge.results import SubmissionResult
    from autograder.store.history import keep

    a = "01_tensors"
    out = tmp_path / "results"
    alt = ROOT / "tests" / "curriculum" / "alternatives" / f"{a}.ipynb"
    copy = disguised(alt, tmp_path / "copy.ipynb")
    master = ROOT / "solutions" / f"{a}.ipynb"

    def graded(sid: str, sha: str, nb: Path) -> None:
        keep(
            out,
            SubmissionResult(
                assignment=a,
                submission_id=sid,
                source=nb.name,
                sha256=sha,
                status="graded",
                message="",
                tests=[],
                cells=[],
                execution_time=1.0,
                environment={},
            ),
            nb,
        )

    graded("alice", "a1" * 32, alt)
    graded("alice", "a2" * 32, copy)  # alice's resubmission: her own code again
    graded("bob", "b1" * 32, master)
    graded("bob", "b2" * 32, copy)  # bob's latest is alice's code
    assert main(["--kit", str(ROOT), "similarity", a, "--out", str(out)]) == 0
    data = json.loads((out / a / "similarity.json").read_text())
    pairs = {(p["a"], p["b"]) for p in data["pairs"]}
    assert data["notebooks"] == 4 and ("alice", "bob") in pairs
    assert not any(p[0].split("@")[0] == p[1].split("@")[0] for p in pairs)
    assert all("bob@" not in x for p in pairs for x in p)  # bob's first version (the master) is his own
