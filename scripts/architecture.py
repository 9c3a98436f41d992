"""The numbers docs/architecture.md gives about the package's shape, drawn from the code (of the work tree, or of
any commit: `REV`), so the doc never carries a number typed in by hand (tests/docs/test_architecture.py).

    python scripts/architecture.py          # the work tree, as the doc's block
    python scripts/architecture.py b0c779c  # an earlier commit, for a before/after

- lines per layer: `wc -l` of each layer's `.py` files (pyproject.toml's import-linter layers);
- the modules that spell a results folder's file name (`gradebook.sqlite`, `identities.json`) as a string:
  the store alone should;
- the grade command (`autograder/cli/grade.py`): its lines, the kit's packages it imports, and its climbs back
  up: reading its code top to bottom, each kit name it uses belongs to a layer, and a climb is a step from a
  lower layer back to a higher one (a face that walks down the pipeline once climbs none).
"""

from __future__ import annotations

import argparse
import ast
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
LAYERS = [
    "cli",
    "serve | interop",
    "student",
    "pipeline",
    "report | lms | similarity",
    "store",
    "grades",
    "judge",
    "probe",
    "execute",
    "intake",
    "notebook",
    "config",
]  # top to bottom, as pyproject.toml's contract
RESULT_FILES = ("gradebook.sqlite", "identities.json")


def _files(at: str | None) -> dict[str, str]:
    """{path: text} of the package's .py files, in the work tree or at commit `at`."""
    if at is None:
        return {
            str(p.relative_to(ROOT)): p.read_text(encoding="utf-8") for p in sorted((ROOT / "autograder").rglob("*.py"))
        }
    names = subprocess.run(
        ["git", "ls-tree", "-r", "--name-only", at, "autograder"], cwd=ROOT, check=True, capture_output=True, text=True
    ).stdout.split()
    return {
        n: subprocess.run(["git", "show", f"{at}:{n}"], cwd=ROOT, check=True, capture_output=True, text=True).stdout
        for n in names
        if n.endswith(".py")
    }


def _package(path: str) -> str:
    parts = Path(path).parts  # autograder/<package>/... or autograder/<module>.py
    return parts[1] if len(parts) > 2 else Path(parts[1]).stem


def _layer(package: str) -> int | None:
    return next((i for i, row in enumerate(LAYERS) if package in row.split(" | ")), None)


def lines_per_layer(files: dict[str, str]) -> dict[str, int]:
    out = {name: 0 for row in LAYERS for name in row.split(" | ")}
    for path, text in files.items():
        if _package(path) in out:
            out[_package(path)] += len(text.splitlines())
    return out


def result_file_spellers(files: dict[str, str]) -> list[str]:
    """Modules with a string constant naming a results file (docstrings and comments are not code)."""
    found = []
    for path, text in files.items():
        tree = ast.parse(text)
        docs = {
            id(n.body[0].value)
            for n in ast.walk(tree)
            if isinstance(n, (ast.Module, ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef))
            and n.body
            and isinstance(n.body[0], ast.Expr)
            and isinstance(n.body[0].value, ast.Constant)
        }
        if any(
            isinstance(n, ast.Constant)
            and isinstance(n.value, str)
            and id(n) not in docs
            and any(f in n.value for f in RESULT_FILES)
            for n in ast.walk(tree)
        ):
            found.append(path)
    return sorted(found)


def command_walk(text: str) -> tuple[int, list[str], int]:
    """The grade command's lines, the kit packages it imports, and its climbs back up."""
    tree = ast.parse(text)
    bound: dict[str, str] = {}  # a name the module binds -> the kit package it came from
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom) and node.module and node.module.startswith("autograder"):
            parts = node.module.split(".")
            for alias in node.names:
                package = parts[1] if len(parts) > 1 else alias.name
                bound[alias.asname or alias.name] = package
    packages = sorted(set(bound.values()))
    # kit names in the order the code reads them (imports left out: where a name is used is the walk)
    uses = sorted(
        (n.lineno, n.col_offset, bound[n.id]) for n in ast.walk(tree) if isinstance(n, ast.Name) and n.id in bound
    )
    layers = [lay for _, _, pkg in uses if (lay := _layer(pkg)) is not None]
    climbs = sum(1 for a, b in zip(layers, layers[1:]) if b < a)
    return len(text.splitlines()), packages, climbs


def report(at: str | None) -> str:
    files = _files(at)
    lines = lines_per_layer(files)
    spellers = result_file_spellers(files)
    n, packages, climbs = command_walk(files["autograder/cli/grade.py"])
    return "\n".join(
        [
            "Lines per layer ("
            + ", ".join(f"{k} {v:,}" for k, v in lines.items())
            + f"; {sum(lines.values()):,} in all).",
            f"Modules that spell a results file's name: {len(spellers)} ({', '.join(p.removeprefix('autograder/') for p in spellers)}).",
            f"The grade command: {n} lines, the kit's imports from {len(packages)} packages ({', '.join(packages)}), "
            f"{climbs} climbs back up.",
        ]
    )


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    p.add_argument("rev", nargs="?", help="a commit (default: the work tree)")
    print(report(p.parse_args(argv).rev))
    return 0


if __name__ == "__main__":
    sys.exit(main())
