"""`check("exercise")` inside a notebook: the exercise's public tests, run on the live kernel.

The very same files the grader runs (`public/test_<exercise>.py`) are run here by the same
pytest plugin, with the student's namespace as the `student` backend, so a check that
passes here can only fail in grading because of hidden tests.  Inside a grading worker
(`AUTOGRADER_WORKER` set) a check does nothing.
"""
from __future__ import annotations

import importlib.util
import inspect
import math
import os
from pathlib import Path
from types import ModuleType


class Checker:
    def __init__(self, assignment: str, bundle: Path | str | None = None) -> None:
        self.assignment = assignment
        self._bundle = Path(bundle) if bundle else None

    def bundle(self) -> Path | None:
        """student/<id>/ beside the notebook, else the kit's assignments/<id>/."""
        candidates = [self._bundle] if self._bundle else []
        candidates += [Path.cwd() / self.assignment, Path.cwd() / "student" / self.assignment]
        try:
            from autograder.assignment import find_kit

            candidates.append(find_kit() / "assignments" / self.assignment)
        except Exception:  # noqa: BLE001
            pass
        return next((c for c in candidates if c and (c / "public").is_dir()), None)

    def __call__(self, exercise: str, namespace: dict | None = None) -> bool | None:
        if os.environ.get("AUTOGRADER_WORKER"):
            return None
        from autograder.judge.plugin import GradingPlugin, run_tests
        from autograder.probe.inprocess import InProcess
        from autograder.probe.seeds import Seeds

        bundle = self.bundle()
        if bundle is None:
            print(f"Cannot find the checks for {self.assignment}: keep the folder `{self.assignment}/` "
                  "that came with this notebook next to it.")
            return None
        test_file = bundle / "public" / f"test_{exercise}.py"
        if not test_file.is_file():
            known = sorted(p.stem.removeprefix("test_") for p in (bundle / "public").glob("test_*.py"))
            print(f"There is no check called {exercise!r}; the checks are: {', '.join(known)}")
            return None
        ns = namespace if namespace is not None else inspect.stack()[1].frame.f_globals
        probes = _load(bundle / "probes.py")
        plugin = GradingPlugin(student=InProcess(ns, probes), reference=None, probes=probes,
                               seeds=Seeds(b"public self-check", self.assignment),  # no course secret here
                               test_timeout=math.inf, hidden_dir=None)
        run_tests([test_file], plugin, bundle)
        results = [r for r in plugin.results if r.outcome != "skipped"]
        passed = sum(r.outcome == "passed" for r in results)
        for r in results:
            mark = "✔" if r.outcome == "passed" else "✘"
            print(f"{mark} {r.name}")
            if r.outcome != "passed":
                print(f"    {r.message}")
                if r.hint:
                    print(f"    Hint: {r.hint}")
        for p in plugin.problems:
            print(f"(check problem: {p[:300]})")
        verdict = "all public checks pass" if passed == len(results) and results else f"{passed}/{len(results)} public checks pass"
        print(f"{exercise}: {verdict}" + (" (hidden tests will check more cases when grading)." if passed == len(results) else "."))
        return passed == len(results) and bool(results)


def _load(path: Path) -> ModuleType:
    spec = importlib.util.spec_from_file_location(f"autograder_selfcheck_probes_{abs(hash(path))}", path)
    assert spec and spec.loader
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod
