"""The public checks, run in the student's own process: which ones (the course kit's, else the installed
package's: those grading runs, with a note where the notebook was released with another version), each exercise's results on a
namespace, and how a result reads to a student.  Used by `check()` in a notebook (`selfcheck`) and by
`autograder validate` (`validate`), which runs them after executing the notebook in the worker.
"""
from __future__ import annotations

import importlib.util
import json
import math
from pathlib import Path
from types import ModuleType
from typing import Any

from autograder.notebook.stub import NOT_ANSWERED

# The kit's other modules are imported where used: a notebook's setup cell imports this module (through
# `selfcheck`) and must stay quick, torch-free for a TensorFlow notebook, whatever `check()` later needs.

DISTRIBUTION = "torch-course-autograder"  # what students pip install (README, "For students")
# The one install line of README "For students": the package with the extra that brings what every
# assignment imports.  No index serves the package: LINK is the wheel's link the course gives.
INSTALL = f'%pip install "{DISTRIBUTION}[course] @ LINK"'


class Checks:
    """The public checks of one assignment, run in this process on a namespace (`results`)."""

    def __init__(self, assignment: str, version: str | None = None, folder: Path | str | None = None,
                 kit: Path | None = None) -> None:
        """`version`: of the checks the notebook was released with (None: a master, checked in its kit).  `kit`:
        one the caller named (`autograder --kit`); else `$AUTOGRADER_KIT` or the installed one, never a kit
        found above the working folder (`config.locate`): who checks may be a TA in a folder a student unpacked."""
        self.assignment, self.version = assignment, version
        self._folder = Path(folder) if folder else None
        self._kit = kit
        self._verdicts: dict[str, bool] = {}
        # Said once when the installed checks are of another version than the notebook's (`folder`): a student
        # keeps the notebook given out for the whole term, and grading runs the installed checks whatever
        # version it names, so those are the ones that tell the truth about it.
        self.note = ""

    def folder(self) -> Path:
        """Where this notebook's checks are, or a ValueError saying what the student should do."""
        from autograder.student import public_checks

        from autograder.config import locate

        kit = locate.kit(self._kit, discover=False)
        found = locate.discovered_kit() if self._folder is None and kit == locate.installed_kit() else None
        if found is not None and found != kit:
            locate.refuse(found, "the checks come only from the installed package or a kit you name, never from a "
                          "kit found above the working folder", f"if it is yours, name it: autograder --kit {found} "
                          f"validate ... (or {locate.KIT_ENV}={found})")
        if self._folder is None and not public_checks.is_id(self.assignment):
            raise ValueError(
                f"This notebook does not say which assignment it is: its `autograder` metadata names "
                f"{str(self.assignment)[:80]!r}, which is not an assignment's name (one of "
                f"{', '.join(public_checks.known(kit)) or 'none installed'}).  The checks only come with the "
                "installed package, never from a place a notebook names: get a fresh copy of the notebook "
                "from your course and copy your answers into it.")
        folder = self._folder or public_checks.find(self.assignment, kit)
        if folder is None:
            raise ValueError(f"This version of the `{DISTRIBUTION}` package has no checks for {self.assignment}: "
                             f"install the current release ({INSTALL}, LINK: the link your course gives), "
                             "then restart the kernel.")
        installed = public_checks.version(folder)
        if self.version is None and folder.parent.name == "assignments":
            return folder  # a master notebook, in its kit
        if installed != self.version:
            released = (f"version {self.version} of {self.assignment}'s checks" if self.version
                        else "an older release's checks")
            self.note = (f"Note: this notebook came with {released}; the installed package has version {installed}, "
                         "the checks grading runs now, so those are the ones run here (where an exercise changed since, "
                         "its check says what it expects now).")
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


def passed(results: list[dict[str, Any]]) -> bool:
    return bool(results) and all(r["outcome"] == "passed" for r in results)


def answered(results: list[dict[str, Any]]) -> bool:
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
        verdict = f"{NOT_ANSWERED}."
    elif passed(results):
        verdict = "all public checks pass" + ("." if first_failure_only else
                                              " (hidden tests will check more cases when grading).")
    else:
        verdict = f"{n}/{len(results)} public checks pass."
    return lines + [f"{exercise}: {verdict}"]


def _load(path: Path) -> ModuleType:
    spec = importlib.util.spec_from_file_location(f"autograder_selfcheck_probes_{abs(hash(path))}", path)
    assert spec and spec.loader
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod
