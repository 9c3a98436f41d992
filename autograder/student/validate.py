"""`autograder validate NOTEBOOK` (and `check.all()`): the whole notebook as the grader will run it.

A student's live kernel hides what grading will see: cells run out of order, names defined in a
deleted cell, an error in the middle that later cells never hit.  So this runs the saved file top to
bottom in a fresh worker, then every public check, and prints per exercise: answered or not, passed or
the first failure with its hint; then the cells that raised (with the offending line), the cells the
grader would stop, and the cells that took long.

It runs the notebook the way grading does, because whoever validates may not be its author (a TA, an
instructor): in the grader's sandboxed worker (`execute.runner`, bubblewrap where it works here), with
the grader's environment (no course secret, no caller's variables), under the assignment's own limits
(a cell is stopped after `cell_timeout` seconds of CPU, the whole run after `submission_timeout`), and
the verdicts come from the public tests run in *this* process on the values the worker sent back, so
nothing the notebook does to itself (patching the checker, printing "Ready") changes them.  Without
bubblewrap the worker is a plain process of the caller's, and the output says so first.  Only public
checks and no course secret are used: the hidden tests are never needed, nor present in the student
package.
"""
from __future__ import annotations

import ast
import importlib.util
import re
import time
from pathlib import Path
from typing import Any, Callable

from autograder.notebook.cells import cell_name, first_line
from autograder.config.compat import tomllib
from autograder.config.limits import Limits
from autograder.execute import nvidia
from autograder.execute.sandbox import Bubblewrap, RlimitsOnly, SandboxUnavailable
from autograder.notebook.parse import InvalidNotebook, code_cells, read_notebook
from autograder.notebook.stub import ERROR, MARKER, NOT_ANSWERED, PATTERN, not_answered
from autograder.probe.seeds import Seeds
from autograder.report.escape import terminal
from autograder.student.verdicts import Checks, answered, passed, render

SLOW_FRACTION = 0.5            # a cell using half of the grader's cell_timeout (CPU, on this machine) is listed
PUBLIC_SEED = b"public self-check"  # the seed key of public checks: the same for everyone, no course secret
UNSANDBOXED = ("NOTE: bubblewrap is not available here, so this notebook runs WITHOUT a sandbox, as you: "
               "it can read and change your files. Validate only notebooks you trust (your own); install "
               "bubblewrap (Debian/Ubuntu: apt-get install bubblewrap) to run any notebook sandboxed.")
_CHECK_CALL = re.compile(r"""check\(\s*["'](\w+)["']""")


def validate(path: Path, out: Callable[[str], Any] = print, kit: Path | None = None) -> int:
    """0: every exercise answered and passing its public checks; 1: not yet; 2: cannot validate.  The checks come
    from `kit` when the caller names one, else from the installed package (`Checks`), never from a kit found
    above the notebook or the working folder."""

    def out(text: str, _show: Callable[[str], Any] = out) -> None:  # type: ignore[no-redef]  # `out`, escaped
        """Notebook text (messages, cell lines) is shown, never obeyed: one escaping for every line."""
        _show("\n".join(terminal(line) for line in text.split("\n")))
    try:
        data = read_notebook(path)
        cells = code_cells(data)
    except (OSError, InvalidNotebook) as e:
        out(f"{path}: cannot read it: {e}")
        return 2
    meta = data.get("metadata", {}).get("autograder")
    if type(meta) is not dict or type(meta.get("assignment")) is not str or not meta["assignment"]:
        out(f"{path}: not a notebook handed out by this course (no `autograder` metadata)")
        return 2
    version = meta.get("version") if type(meta.get("version")) is str else None
    checker = Checks(meta["assignment"], version, kit=kit)
    try:
        folder = checker.folder()
    except ValueError as e:
        out(str(e))
        return 2
    if checker.note:
        out(checker.note)
    manifest = folder / "manifest.toml"
    limits = Limits.from_table(tomllib.loads(manifest.read_text("utf-8")).get("limits") if manifest.is_file() else None)

    isolation, sandboxed = _isolation()
    if not sandboxed:
        out(UNSANDBOXED)
    out(f"Running {path.name} top to bottom in a fresh {'sandboxed ' if sandboxed else ''}worker, as the grader "
        f"will (it stops a cell after {limits.cell_timeout:g} s of CPU time, the notebook after "
        f"{limits.submission_timeout:g} s):")
    started = time.monotonic()
    try:
        records, results, why = _run(cells, folder, checker.assignment, limits, isolation, out)
    finally:
        isolation.close()
    out(f"{path.name}: ran {len(records)} code cells in {time.monotonic() - started:.1f} s")
    return _verdict(out, cells, records, results, why, limits)


def _isolation() -> tuple[Any, bool]:
    """The grader's cold sandbox where bubblewrap works here (whoever runs this), else a plain process."""

    try:
        return Bubblewrap(gpu=nvidia.visible()), True
    except SandboxUnavailable:
        return RlimitsOnly(), False


class _Records(dict):
    """The runner's cell records, printing each cell's outcome the first time it is known (a replay after a
    cell the grader stops runs the cells before it again: they are not listed twice)."""

    def __init__(self, show: Callable[[Any], None]) -> None:
        super().__init__()
        self.show = show

    def __setitem__(self, index: int, record: Any) -> None:
        if index not in self:
            self.show(record)
        super().__setitem__(index, record)


def _run(cells: list[Any], folder: Path, assignment: str, limits: Any, isolation: Any,
         out: Callable[[str], Any]) -> tuple[list[Any], dict[str, list[dict[str, Any]]], str]:
    """Execute in a worker, then run each public test file here on what the worker answers: the cell
    records, {exercise: results as `checking.render` takes them}, and why the checks could not run."""
    import torch

    from autograder.execute.backend import ProbeCrashed, ProbeTimeout
    from autograder.execute.runner import HostFault, NotebookRunner
    from autograder.judge.plugin import GradingPlugin
    from autograder.judge.suite import run_tests

    seeds = Seeds(PUBLIC_SEED, assignment)
    firsts = {c.index: _first_line(c.source) for c in cells}

    def show(record: Any) -> None:
        out(f"  {cell_name(record.index, firsts.get(record.index, ''))}: {_outcome(record)}")

    runner = NotebookRunner(cells, probes=folder / "probes.py", limits=limits, isolation=isolation,
                            seed=seeds.cells())
    runner.records = _Records(show)
    why = ""
    results: dict[str, list[dict[str, Any]]] = {}
    try:
        try:
            runner.execute()
        except HostFault as e:
            printed = "\n".join("    " + ln for ln in runner.start_stderr.splitlines()) or "    (nothing)"
            why = (f"No worker could be started on this machine, so no cell of the notebook ran (not the notebook's "
                   f"doing): {e}.\nWhat the worker printed (the end of it):\n{printed}")
        except (ProbeTimeout, ProbeCrashed) as e:
            why = f"The notebook could not be run to its end ({e}), so the checks did not run."
        if not why:
            spec = importlib.util.spec_from_file_location(f"autograder_validate_probes_{assignment}", folder / "probes.py")
            assert spec and spec.loader
            probes = importlib.util.module_from_spec(spec)
            spec.loader.exec_module(probes)
            kernels = "cuda" if isolation.sees_gpu() and torch.cuda.is_available() else "cpu"
            for test_file in sorted((folder / "public").glob("test_*.py")):
                plugin = GradingPlugin(student=runner, reference=None, probes=probes, seeds=seeds,
                                       test_timeout=limits.test_timeout, hidden_dir=None, kernel_device=kernels)
                run_tests([test_file], plugin, folder)
                found = [{"name": r.name, "outcome": r.outcome, "message": r.message, "hint": r.hint}
                         for r in plugin.results if r.outcome != "skipped"]
                found += [{"name": "(the check itself)", "outcome": "error", "message": p[:300], "hint": ""}
                          for p in plugin.problems]
                results[test_file.stem.removeprefix("test_")] = found
    finally:
        runner.close()
    return runner.cell_records, results, why


def _first_line(source: str) -> str:
    return first_line(source) or "empty"


def _outcome(record: Any) -> str:
    if _is_stub(record):
        return f"{NOT_ANSWERED} (the `{MARKER}` stub)"
    if record.status == "ok":
        return f"ok ({record.wall:.1f} s)"
    if record.status == "timeout":
        return "STOPPED: " + str((record.error or {}).get("message", "")) + "; the grader stops it too and grades the rest"
    if record.status == "crashed":
        return ("its worker died in it (os._exit, a crash, or out of memory: " + str((record.error or {}).get("message", ""))
                + "); the grader skips it too and grades the rest")
    return _error(record)


def _error(record: Any) -> str:
    """`NameError: name 'x' is not defined (line 3: y = x + 1)` for a cell that raised."""
    err = record.error or {}
    where = ""
    own = [f for f in err.get("frames") or [] if f.get("cell") == record.index]
    if own:
        f = own[-1]
        where = f" (line {f.get('line')}: {str(f.get('code', '')).strip()[:120]})"
    return f"{err.get('type')}: {str(err.get('message'))[:300]}{where}"


def _is_stub(record: Any) -> bool:
    """A cell that raised only because it is still the release's stub: an unanswered exercise, not an error."""
    return record.status == "error" and (record.error or {}).get("type") == ERROR \
        and bool(PATTERN.search(record.source))


def _stubbed_names(source: str) -> list[str]:
    """The functions (and methods) of a cell that are still the release's stub, read (never run) here."""
    try:
        tree = ast.parse(source)
    except (SyntaxError, ValueError):
        return []
    names = []
    for node in ast.walk(tree):
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            segment = ast.get_source_segment(source, node) or ""
            if PATTERN.search(segment) and not any(isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef))
                                                 for n in ast.walk(node) if n is not node):
                names.append(node.name)
    return names


def _unanswered(cells: list[Any], exercises: list[str]) -> dict[str, list[str]]:
    """{exercise: its stubs} for exercises whose cells (those since the previous check cell, up to its own
    `check("...")` cell) still hold the release's stub."""
    found: dict[str, list[str]] = {}
    region: list[Any] = []
    for cell in cells:
        region.append(cell)
        named = [e for e in _CHECK_CALL.findall(cell.source) if e in exercises]
        if named:
            stubs = [n for c in region if PATTERN.search(c.source) for n in (_stubbed_names(c.source) or ["this exercise"])]
            for e in named:
                if stubs and e not in found:
                    found[e] = list(dict.fromkeys(stubs))
            region = []
    return found


def _verdict(out: Callable[[str], Any], cells: list[Any], records: list[Any],
             results: dict[str, list[dict[str, Any]]], why: str, limits: Any) -> int:
    firsts = {c.index: _first_line(c.source) for c in cells}
    errors = [r for r in records if r.status == "error" and not _is_stub(r)]
    stopped = [r for r in records if r.status in ("timeout", "crashed")]
    if why:
        _list(out, errors, stopped, firsts, "")
        out(why)
        return 1
    order = {e: i for i, c in enumerate(cells) for e in _CHECK_CALL.findall(c.source)}
    names = sorted(results, key=lambda e: (order.get(e, len(order)), e))
    for e, stubs in _unanswered(cells, names).items():
        if not passed(results[e]):
            message = not_answered([f"`{s}`" for s in stubs if s != "this exercise"])
            for r in results[e]:
                if r["outcome"] != "passed":
                    r["message"] = message
    out("")
    for e in names:
        lines = render(e, results[e], first_failure_only=True)
        out(f"{'✔' if passed(results[e]) else '✘'} {lines[-1]}")
        if answered(results[e]) and not passed(results[e]):
            out("\n".join(f"    {ln}" for ln in lines[:-1]))
    _list(out, errors, stopped, firsts, "\n")
    slow = [r for r in records if r.status == "ok" and (r.cpu if r.cpu is not None else r.wall)
            >= SLOW_FRACTION * limits.cell_timeout]
    if slow:
        out(f"\nSlow cells (the grader stops a cell after {limits.cell_timeout:g} s of CPU time; this machine "
            "is not the grader's):")
        for r in slow:
            out(f"  {cell_name(r.index, firsts.get(r.index, ''))}: {r.cpu if r.cpu is not None else r.wall:.1f} s")
    todo = [e for e in names if not answered(results[e])]
    failing = [e for e in names if answered(results[e]) and not passed(results[e])]
    if not todo and not failing and not stopped and names:
        out(f"\nReady: all {len(names)} exercises answered, every public check passes "
            "(hidden tests will check more cases when grading).")
        return 0
    out("\nNot ready:" + (f" not answered yet: {', '.join(todo)}." if todo else "")
        + (f" failing public checks: {', '.join(failing)}." if failing else "")
        + (f" the grader would stop cell {', '.join(str(r.index) for r in stopped)}." if stopped else ""))
    return 1


def _list(out: Callable[[str], Any], errors: list[Any], stopped: list[Any], firsts: dict[int, str],
          before: str) -> None:
    if stopped:
        out(f"{before}{len(stopped)} cell(s) the grader would stop (it grades the rest without them):")
        for r in stopped:
            out(f"  {cell_name(r.index, firsts.get(r.index, ''))}: {_outcome(r)}")
        before = "\n"
    if errors:
        out(f"{before}{len(errors)} cell(s) raised an error when run top to bottom (the grader will see the same):")
        for r in errors:
            out(f"  {cell_name(r.index, firsts.get(r.index, ''))}: {_error(r)}")

