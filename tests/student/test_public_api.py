"""The student-facing API (`autograder.student.PUBLIC`, `CHECKER`): every name a released notebook imports, of
any release (`tests/fixtures/released/`, the current `student/` and the masters), is declared and importable,
and its `check` object is called only by declared methods.  A move that leaves no shim fails here."""
from __future__ import annotations

import ast
import importlib
import inspect
import json
from pathlib import Path

import pytest

from autograder.student import CHECKER, PUBLIC

ROOT = Path(__file__).resolve().parents[2]
RELEASED = sorted((ROOT / "tests" / "fixtures" / "released").glob("*.ipynb"))
NOTEBOOKS = RELEASED + sorted((ROOT / "student").glob("*.ipynb")) + sorted((ROOT / "solutions").glob("*.ipynb"))


def _code(path: Path) -> list[ast.Module]:
    cells = json.loads(path.read_text(encoding="utf-8"))["cells"]
    out = []
    for c in cells:
        if c["cell_type"] != "code":
            continue
        source = "".join(c["source"]) if isinstance(c["source"], list) else c["source"]
        # IPython's own syntax (%pip, !ls) is no Python: those lines import nothing of ours
        source = "\n".join("" if ln.lstrip().startswith(("%", "!")) else ln for ln in source.splitlines())
        out.append(ast.parse(source))
    return out


def _imports(path: Path) -> set[tuple[str, str]]:
    """(module, name) for each `from autograder... import name`; (module, "") for each `import autograder...`."""
    found = set()
    for tree in _code(path):
        for node in ast.walk(tree):
            if isinstance(node, ast.ImportFrom) and (node.module or "").split(".")[0] == "autograder":
                found |= {(node.module, a.name) for a in node.names}
            elif isinstance(node, ast.Import):
                found |= {(a.name, "") for a in node.names if a.name.split(".")[0] == "autograder"}
    return found


def _check_methods(path: Path) -> set[str]:
    """What the notebook calls on its `check`: `check(...)` is `__call__`, `check.x(...)` is `x`."""
    used = set()
    for tree in _code(path):
        for node in ast.walk(tree):
            if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id == "check":
                used.add("__call__")
            elif isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name) and node.value.id == "check":
                used.add(node.attr)
    return used


def test_the_fixtures_hold_a_release_from_before_the_move():
    assert any(("autograder.selfcheck", "Checker") in _imports(p) for p in RELEASED)
    assert any(("autograder.selfcheck", "quiet_stderr") in _imports(p) for p in RELEASED)


@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda p: f"{p.parent.name}/{p.name}")
def test_every_name_a_notebook_imports_is_public_and_there(path):
    imported = _imports(path)
    assert imported, f"{path.name} imports nothing of the kit: the parser missed its setup cell"
    for module, name in sorted(imported):
        assert module in PUBLIC and (not name or name in PUBLIC[module]), (
            f"{path.name} imports {name or module} from {module}, which autograder.student.PUBLIC does not declare")
        found = importlib.import_module(module)
        assert not name or hasattr(found, name), f"{module}.{name} is gone: a released notebook imports it"
    assert _check_methods(path) <= set(CHECKER), _check_methods(path) - set(CHECKER)


def test_every_declared_name_is_there_and_a_shim_is_the_same_object():
    from autograder.student.selfcheck import Checker

    for module, names in PUBLIC.items():
        found = importlib.import_module(module)
        for name in names:
            assert getattr(found, name) is getattr(importlib.import_module("autograder.student.selfcheck"), name)
    for method in CHECKER:
        assert callable(getattr(Checker, method))
    # how every release's setup cell makes it: Checker("<id>", version="<hash>"), or Checker("<id>")
    assert list(inspect.signature(Checker).parameters)[:2] == ["assignment", "version"]
