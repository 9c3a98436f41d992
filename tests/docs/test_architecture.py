"""docs/architecture.md's numbers about the package's shape are the code's (scripts/architecture.py), and the
shape holds: the store alone names the results folder's files, the grade command stays a thin face."""

from __future__ import annotations

import subprocess
import sys

import pytest

from tests.docs.checks import ROOT

sys.path.insert(0, str(ROOT / "scripts"))
import architecture  # noqa: E402

BEFORE = "b0c779c"  # the commit docs/architecture.md compares with


def _block(name: str) -> str:
    text = (ROOT / "docs" / "architecture.md").read_text(encoding="utf-8")
    start, end = f"<!-- {name} -->\n", f"<!-- /{name} -->"
    assert start in text and end in text, f"docs/architecture.md has no {name} block"
    return text.split(start, 1)[1].split(end, 1)[0].strip()


def test_the_docs_numbers_are_the_codes():
    assert _block("shape now") == architecture.report(None)


def test_the_before_numbers_are_that_commits():
    known = subprocess.run(["git", "cat-file", "-e", f"{BEFORE}^{{commit}}"], cwd=ROOT, capture_output=True)
    if known.returncode:
        pytest.skip(f"{BEFORE} is not in this clone's history")
    assert _block("shape before") == architecture.report(BEFORE)


def test_only_the_store_names_the_results_files():
    files = architecture._files(None)
    assert [p for p in architecture.result_file_spellers(files) if not p.startswith("autograder/store/")] == []


def test_the_grade_command_is_a_thin_face():
    lines, packages, climbs = architecture.command_walk((ROOT / "autograder" / "cli" / "grade.py").read_text())
    assert lines <= 90 and len(packages) <= 4 and climbs <= 3, (lines, packages, climbs)
