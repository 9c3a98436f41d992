"""`check("exercise")` and `check.all()` inside a notebook: the public tests, run by the student.

`check("x")` runs the very files the grader runs (`public/test_x.py`), by the same pytest plugin,
with the student's live namespace as the `student` backend, so a check that passes here can only
fail in grading because of hidden tests.  `check.all()` runs the saved notebook top to bottom in a
fresh kernel first, as the grader will (`autograder.validate`).  The checks come from the course
kit when the notebook sits in one, else from the installed student package (`autograder.checks`);
checks of another version than the notebook was released with are refused, not run.  Inside a
grading worker (`AUTOGRADER_WORKER`) or a validation run (`AUTOGRADER_VALIDATING`) both do nothing:
grading does not need them, and a validation runs every check once at the end.
"""
from __future__ import annotations

import importlib.util
import inspect
import json
import math
import os
from pathlib import Path
from types import ModuleType
from typing import Any

DISTRIBUTION = "torch-course-autograder"  # what students pip install (README, "For students")
VALIDATING = "AUTOGRADER_VALIDATING"
_COLAB_COPY = "-colab-copy.ipynb"  # Colab keeps notebooks in Drive: check.all() validates a copy of it


def _quiet() -> bool:
    return bool(os.environ.get("AUTOGRADER_WORKER") or os.environ.get(VALIDATING))


class Checker:
    def __init__(self, assignment: str, version: str | None = None, folder: Path | str | None = None) -> None:
        """`version`: of the checks the notebook was released with (None: a master, checked in its kit)."""
        self.assignment, self.version = assignment, version
        self._folder = Path(folder) if folder else None

    def folder(self) -> Path:
        """Where this notebook's checks are, or a ValueError saying what the student should do."""
        from autograder import checks

        kit = None
        try:
            from autograder.assignment import find_kit

            kit = find_kit()
        except Exception:  # noqa: BLE001 - no kit: the installed package's checks
            pass
        folder = self._folder or checks.find(self.assignment, kit)
        if folder is None:
            raise ValueError(f"This version of the `{DISTRIBUTION}` package has no checks for {self.assignment}: "
                             f"update it (%pip install -U {DISTRIBUTION}, or the link your course gives), "
                             "then restart the kernel.")
        found = checks.version(folder)
        if self.version is None and folder.parent.name == "assignments":
            return folder  # a master notebook, in its kit
        if found != self.version:
            released = (f"it was released with version {self.version} of {self.assignment}'s checks"
                        if self.version else "it comes from an older release, which does not name its checks' version")
            raise ValueError(
                f"The checks of this notebook are out of date: {released}, and the installed ones are version "
                f"{found}.  Get the current notebook "
                "from your course and copy your answers into it (or install the package release that came with "
                "this notebook); checking against other tests would mislead you.")
        return folder

    def exercises(self) -> list[str]:
        return sorted(p.stem[len("test_"):] for p in (self.folder() / "public").glob("test_*.py"))

    def results(self, exercise: str, namespace: dict) -> list[dict[str, Any]]:
        """Each public test of `exercise` on `namespace`: name, outcome, message, hint."""
        from autograder.judge.plugin import GradingPlugin
        from autograder.judge.suite import run_tests
        from autograder.probe.inprocess import InProcess
        from autograder.probe.seeds import Seeds

        folder = self.folder()
        test_file = folder / "public" / f"test_{exercise}.py"
        if not test_file.is_file():
            raise ValueError(f"There is no check called {exercise!r}; the checks are: {', '.join(self.exercises())}")
        probes = _load(folder / "probes.py")
        plugin = GradingPlugin(student=InProcess(namespace, probes), reference=None, probes=probes,
                               seeds=Seeds(b"public self-check", self.assignment),  # no course secret here
                               test_timeout=math.inf, hidden_dir=None)
        run_tests([test_file], plugin, folder)
        out = [{"name": r.name, "outcome": r.outcome, "message": r.message, "hint": r.hint}
               for r in plugin.results if r.outcome != "skipped"]
        out += [{"name": "(the check itself)", "outcome": "error", "message": p[:300], "hint": ""} for p in plugin.problems]
        return out

    def report(self, namespace: dict) -> str:
        """Every exercise's results as JSON (what `autograder validate` reads back from a kernel)."""
        try:
            return json.dumps({"exercises": {e: self.results(e, namespace) for e in self.exercises()}})
        except ValueError as e:
            return json.dumps({"problem": str(e)})

    def __call__(self, exercise: str, namespace: dict | None = None) -> bool | None:
        if _quiet():
            return None
        ns = namespace if namespace is not None else inspect.stack()[1].frame.f_globals
        try:
            results = self.results(exercise, ns)
        except ValueError as e:
            print(e)
            return None
        for line in render(exercise, results):
            print(line)
        return passed(results)

    def all(self, notebook: Path | str | None = None) -> bool | None:
        """Run the saved notebook top to bottom in a fresh kernel, then every public check."""
        if _quiet():
            return None
        from autograder.validate import validate

        path = Path(notebook) if notebook else _this_notebook(self.assignment)
        if path is None:
            print("Cannot tell which file this notebook is: pass its name, check.all(\"my_notebook.ipynb\"), "
                  "or run `autograder validate my_notebook.ipynb` in a terminal.")
            return None
        print(f"Running {path.name} top to bottom in a fresh kernel (save it first: the saved file is what runs)...")
        try:
            return validate(path) == 0
        finally:
            if path.name.endswith(_COLAB_COPY):
                path.unlink(missing_ok=True)


def passed(results: list[dict[str, Any]]) -> bool:
    return bool(results) and all(r["outcome"] == "passed" for r in results)


def answered(results: list[dict[str, Any]]) -> bool:
    from autograder.probe.inprocess import NOT_ANSWERED

    return not any(NOT_ANSWERED in r["message"] for r in results)


def render(exercise: str, results: list[dict[str, Any]], first_failure_only: bool = False) -> list[str]:
    """What a student reads: a verdict per test (or the first failure), its message and hint."""
    lines = []
    failures = [r for r in results if r["outcome"] != "passed"]
    for r in failures[:1] if first_failure_only else results:
        lines.append(f"{'✔' if r['outcome'] == 'passed' else '✘'} {r['name']}")
        if r["outcome"] != "passed":
            lines.append(f"    {r['message']}")
            if r["hint"]:
                lines.append(f"    Hint: {r['hint']}")
    n = len(results) - len(failures)
    if not answered(results):
        verdict = "not answered yet."
    elif passed(results):
        verdict = "all public checks pass" + ("." if first_failure_only else
                                              " (hidden tests will check more cases when grading).")
    else:
        verdict = f"{n}/{len(results)} public checks pass."
    return lines + [f"{exercise}: {verdict}"]


def _this_notebook(assignment: str) -> Path | None:
    """The notebook file this kernel runs: VS Code and Jupyter say so, Colab hands out its content, else
    the one notebook of this assignment in the working folder."""
    main = __import__("__main__").__dict__
    for name in (main.get("__vsc_ipynb_file__"), os.environ.get("JPY_SESSION_NAME")):
        if name and Path(name).is_file() and name.endswith(".ipynb"):
            return Path(name)
    try:
        from google.colab import _message  # type: ignore[import-not-found]

        content = _message.blocking_request("get_ipynb", request="", timeout_sec=60)["ipynb"]
        path = Path.cwd() / f".{assignment}{_COLAB_COPY}"
        path.write_text(json.dumps(content), encoding="utf-8")
        return path
    except ImportError:
        pass
    mine = []
    for p in sorted(Path.cwd().glob("[!.]*.ipynb")):
        try:
            if json.loads(p.read_text(encoding="utf-8"))["metadata"]["autograder"]["assignment"] == assignment:
                mine.append(p)
        except Exception:  # noqa: BLE001 - not one of ours
            continue
    return mine[0] if len(mine) == 1 else None


def _load(path: Path) -> ModuleType:
    spec = importlib.util.spec_from_file_location(f"autograder_selfcheck_probes_{abs(hash(path))}", path)
    assert spec and spec.loader
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod
