"""The two tiers of the kit's own tests (tests/tiers.py) are what the Makefile and the README say."""

from __future__ import annotations

import re
from pathlib import Path

from tests.tiers import REPRESENTATIVES, per_assignment

ROOT = Path(__file__).resolve().parents[2]
ASSIGNMENTS = sorted(p.parent.name for p in (ROOT / "assignments").glob("*/manifest.toml"))


def _recipe(target: str) -> str:
    make = (ROOT / "Makefile").read_text()
    m = re.search(rf"^{re.escape(target)}:[^\n]*\n((?:\t[^\n]*\n)+)", make, re.M)
    assert m, target
    return m.group(1)


def test_one_pytorch_and_one_tensorflow_representative():
    assert set(REPRESENTATIVES) <= set(ASSIGNMENTS)
    assert sorted(a.startswith("tf") for a in REPRESENTATIVES) == [False, True]


def test_every_other_assignment_is_deep():
    params = per_assignment(ASSIGNMENTS)
    plain = [p for p in params if isinstance(p, str)]
    deep = [p.values[0] for p in params if not isinstance(p, str) and [m.name for m in p.marks] == ["deep"]]
    assert sorted(plain) == sorted(REPRESENTATIVES) and sorted(plain + deep) == ASSIGNMENTS


def test_make_test_leaves_the_deep_tier_to_make_check():
    test = _recipe("test")
    assert '-m pytest -q -m "not deep and not serial" -n $(TEST_JOBS) --dist loadfile' in test
    assert '-m pytest -q -m "not deep and serial"' in test
    assert "-m pytest -q -m deep" in _recipe("check")
    assert "make check" in (ROOT / "README.md").read_text()


def test_what_needs_the_host_to_itself_runs_alone_after_the_rest():
    """`make test` runs the tests several at a time, and those marked `serial` after them, one at a time: a
    test that starts busy processes would starve a neighbour's, one that measures time would measure the
    neighbour's."""
    test = _recipe("test").splitlines()
    parallel = next(i for i, ln in enumerate(test) if "not serial" in ln)
    alone = next(i for i, ln in enumerate(test) if '"not deep and serial"' in ln)
    assert parallel < alone and "-n" not in test[alone].split()
