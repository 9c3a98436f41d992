"""The folder tree is the architecture: intake -> execute -> probe -> judge -> score -> report/export.
A layer imports only from its own layer and those before it, lazily inside a function too."""
import ast
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2] / "autograder"
# what each lower layer must never import (the layers built on top of it)
ABOVE = {"score": ("report", "interop", "lms", "serve", "pipeline", "cli")}


def _imports(path: Path) -> set[str]:
    found: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            found.update(a.name for a in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module and not node.level:
            found.add(node.module)
            found.update(f"{node.module}.{a.name}" for a in node.names)
    return found


def test_score_does_not_reach_up_into_report():
    for layer, above in ABOVE.items():
        for path in sorted((ROOT / layer).glob("*.py")):
            bad = sorted(m for m in _imports(path)
                         if any(m == f"autograder.{u}" or m.startswith(f"autograder.{u}.") for u in above))
            assert not bad, f"{path.relative_to(ROOT.parent)} imports {bad}"


def test_an_override_is_made_where_grades_are_shown():
    from autograder.report.overrides import set_override
    from autograder.score import overrides

    assert callable(set_override) and not hasattr(overrides, "set_override")
