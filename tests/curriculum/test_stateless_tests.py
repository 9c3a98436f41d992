"""Every assignment's test modules keep no state between tests (docs/writing-tests.md): a judge runs
the same collected test functions against one submission after another, so a module-level container
or a `global` filled by one student's run would reach the next student's grade."""

import ast
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
MODULES = sorted((ROOT / "assignments").glob("*/*/test_*.py"))
_MUTABLE = (ast.List, ast.Dict, ast.Set, ast.ListComp, ast.DictComp, ast.SetComp)
_FACTORIES = {"list", "dict", "set", "defaultdict", "OrderedDict", "Counter", "deque", "bytearray"}


_MUTATORS = {
    "append",
    "extend",
    "insert",
    "add",
    "update",
    "setdefault",
    "pop",
    "popitem",
    "clear",
    "remove",
    "discard",
    "__setitem__",
    "appendleft",
}


def _stateful(tree: ast.Module) -> list[str]:
    """Module-level containers that some code changes, `global` statements and functools caches
    (a constant table at module level is fine: nothing changes it)."""
    names = set()
    for node in tree.body:
        if isinstance(node, (ast.Assign, ast.AnnAssign)) and node.value is not None:
            v = node.value
            factory = isinstance(v, ast.Call) and getattr(v.func, "id", getattr(v.func, "attr", "")) in _FACTORIES
            if isinstance(v, _MUTABLE) or factory:
                targets = node.targets if isinstance(node, ast.Assign) else [node.target]
                names |= {t.id for t in targets if isinstance(t, ast.Name)}
    found = []
    for n in ast.walk(tree):
        if (
            isinstance(n, ast.Call)
            and isinstance(n.func, ast.Attribute)
            and n.func.attr in _MUTATORS
            and isinstance(n.func.value, ast.Name)
            and n.func.value.id in names
        ):
            found.append(f"line {n.lineno}: changes module-level `{n.func.value.id}`")
        elif isinstance(n, (ast.Assign, ast.AugAssign, ast.Delete)):
            for t in n.targets if isinstance(n, (ast.Assign, ast.Delete)) else [n.target]:
                if isinstance(t, ast.Subscript) and isinstance(t.value, ast.Name) and t.value.id in names:
                    found.append(f"line {n.lineno}: changes module-level `{t.value.id}`")
        elif isinstance(n, ast.Global):
            found.append(f"line {n.lineno}: `global`")
        elif isinstance(n, ast.Attribute) and n.attr in ("lru_cache", "cache"):
            found.append(f"line {n.lineno}: functools cache")
    return found


def test_there_are_test_modules():
    assert len(MODULES) > 50


@pytest.mark.parametrize("path", MODULES, ids=lambda p: f"{p.parent.parent.name}/{p.parent.name}/{p.name}")
def test_a_test_module_keeps_no_state_between_tests(path):
    assert _stateful(ast.parse(path.read_text())) == []


def test_the_check_finds_state():
    src = (
        "SEEN = []\nC = defaultdict(int)\nTABLE = [1, 2]\n"
        "def f(x):\n    global N\n    SEEN.append(x)\n    C[x] += 1\n    return TABLE[x]\n"
    )
    assert len(_stateful(ast.parse(src))) == 3
