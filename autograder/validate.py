"""`autograder validate NOTEBOOK` (and `check.all()`): the whole notebook as the grader will run it.

A student's live kernel hides what grading will see: cells run out of order, names defined in a
deleted cell, an error in the middle that later cells never hit.  So this runs the saved file top to
bottom in a fresh kernel (nbclient, cells continue after an error like the grader's worker), then every
public check in that kernel, and prints per exercise: answered or not, passed or the first failure with
its hint; then the cells that raised (with the offending line) and the cells that took long.  Only public
checks are used: the hidden tests are never needed, nor present in the student package.
"""
from __future__ import annotations

import json
import os
import re
import subprocess
import sys
import time
from pathlib import Path
from typing import Any, Callable

VALIDATE_CELL_TIMEOUT_S = 600  # wall time for one cell here: a hang is reported, not waited on forever
SLOW_FRACTION = 0.5            # a cell taking half of the grader's cell_timeout (on this machine) is listed
_MARK = "AUTOGRADER-VALIDATE-REPORT:"
_STUB_LINE = ": raise NotImplementedError())"
_ANSI = re.compile(r"\x1b\[[0-9;]*[A-Za-z]")
_ARROW = re.compile(r"^-*> ?(\d+)\s?(.*)$")
_CELL_FRAME = re.compile(r"^(?:Cell In\s*\[(\d*)\]|Input In \[(\d*)\]), line (\d+)")


def validate(path: Path, out: Callable[[str], Any] = print) -> int:
    """0: every exercise answered and passing its public checks; 1: not yet; 2: cannot validate."""
    import nbformat

    from autograder.compat import tomllib
    from autograder.execute.limits import Limits
    from autograder.notebook.parse import InvalidNotebook, read_notebook
    from autograder.report.escape import terminal
    from autograder.selfcheck import Checker, answered, passed, render

    def out(text: str, _show: Callable[[str], Any] = out) -> None:
        """Notebook text (messages, cell lines) is shown, never obeyed: one escaping for every line."""
        _show("\n".join(terminal(line) for line in text.split("\n")))
    try:
        nb = nbformat.reads(json.dumps(read_notebook(path)), as_version=4)
    except (OSError, InvalidNotebook, nbformat.ValidationError) as e:
        out(f"{path}: cannot read it: {e}")
        return 2
    meta = nb.metadata.get("autograder") or {}
    if not meta.get("assignment"):
        out(f"{path}: not a notebook handed out by this course (no `autograder` metadata)")
        return 2
    checker = Checker(meta["assignment"], meta.get("version"))
    try:
        folder = checker.folder()
    except ValueError as e:
        out(str(e))
        return 2
    manifest = folder / "manifest.toml"
    limits = Limits.from_table(tomllib.loads(manifest.read_text("utf-8")).get("limits") if manifest.is_file() else None)

    started = time.monotonic()
    cells, report = _execute(nb, path.resolve().parent, Checker(checker.assignment, checker.version, folder))
    out(f"{path.name}: ran {len(cells)} code cells top to bottom in a fresh kernel "
        f"in {time.monotonic() - started:.1f} s")
    errors = [c for c in cells if c["error"] and not c["error"].endswith(_STUB_LINE)]  # stubs: listed as unanswered
    if "problem" in report:
        _list(out, errors, "")
        out(report["problem"])
        return 1 if report.get("not_ready") else 2
    exercises = report["exercises"]
    order = _check_order(nb)
    names = sorted(exercises, key=lambda e: (order.get(e, len(order)), e))
    for e in names:
        lines = render(e, exercises[e], first_failure_only=True)
        out(f"{'✔' if passed(exercises[e]) else '✘'} {lines[-1]}")
        if answered(exercises[e]) and not passed(exercises[e]):
            out("\n".join(f"    {ln}" for ln in lines[:-1]))
    _list(out, errors, "\n")
    slow = [c for c in cells if c["seconds"] >= SLOW_FRACTION * limits.cell_timeout]
    if slow:
        out(f"\nSlow cells (the grader stops a cell after {limits.cell_timeout:g} s of CPU time; this machine "
            "is not the grader's):")
        for c in slow:
            out(f"  code cell {c['number']} ({c['first_line']}): {c['seconds']:.1f} s")
    todo = [e for e in names if not answered(exercises[e])]
    failing = [e for e in names if answered(exercises[e]) and not passed(exercises[e])]
    if not todo and not failing:
        out(f"\nReady: all {len(names)} exercises answered, every public check passes "
            "(hidden tests will check more cases when grading).")
        return 0
    out("\nNot ready:" + (f" not answered yet: {', '.join(todo)}." if todo else "")
        + (f" failing public checks: {', '.join(failing)}." if failing else ""))
    return 1


def _list(out: Callable[[str], Any], errors: list[dict[str, Any]], before: str) -> None:
    if errors:
        out(f"{before}{len(errors)} cell(s) raised an error when run top to bottom (the grader will see the same):")
        for c in errors:
            out(f"  code cell {c['number']} ({c['first_line']}): {c['error']}")


def _execute(nb: Any, cwd: Path, checker: Any) -> tuple[list[dict[str, Any]], dict[str, Any]]:
    """Run every code cell in a fresh kernel, then the checks; per cell: number, error, seconds."""
    import nbformat
    from nbclient import NotebookClient
    from nbclient.exceptions import CellTimeoutError, DeadKernelError

    from autograder.selfcheck import VALIDATING

    client = NotebookClient(nb, timeout=VALIDATE_CELL_TIMEOUT_S, allow_errors=True, interrupt_on_timeout=True,
                            kernel_name="python3", resources={"metadata": {"path": str(cwd)}})
    cells: list[dict[str, Any]] = []
    env = {**os.environ, VALIDATING: "1", "MPLBACKEND": "Agg"}
    report_cell = nbformat.v4.new_code_cell(
        "from autograder.selfcheck import Checker as _AGChecker\n"
        f"print({_MARK!r} + _AGChecker({checker.assignment!r}, {checker.version!r}, "
        f"{str(checker.folder())!r}).report(globals()))")
    with client.setup_kernel(env=env, stderr=subprocess.DEVNULL):  # the kernel's own log lines, not the student's
        # the grader's worker imports these before any cell, so their import time is no cell's
        nb.cells.insert(0, nbformat.v4.new_code_cell("import numpy, torch"))
        client.execute_cell(nb.cells[0], 0)
        for index, cell in enumerate(nb.cells[1:], 1):
            if cell.cell_type != "code":
                continue
            start = time.monotonic()
            try:
                client.execute_cell(cell, index)
                error = _error(cell.outputs)
            except CellTimeoutError:
                error = f"still running after {VALIDATE_CELL_TIMEOUT_S} s: interrupted"
            except DeadKernelError:
                error = "the kernel died in this cell (os._exit, a crash, or out of memory)"
            first = next((ln.strip() for ln in cell.source.splitlines() if ln.strip()), "empty")
            cells.append({"number": len(cells) + 1, "error": error, "seconds": time.monotonic() - start,
                          "first_line": first[:60] + ("…" if len(first) > 60 else "")})
            if error and error.startswith("the kernel died"):
                return cells, {"problem": "The kernel died, so the cells below it and the checks did not run; the "
                                          "grader would replay the notebook without that cell. Fix it and validate again.",
                               "not_ready": True}
        nb.cells.append(report_cell)
        client.execute_cell(report_cell, len(nb.cells) - 1)
    text = "".join(o.get("text", "") for o in report_cell.outputs if o.get("output_type") == "stream")
    line = next((ln for ln in text.splitlines() if ln.startswith(_MARK)), None)
    if line is None:
        why = _error(report_cell.outputs) or text[-500:] or "no output"
        return cells, {"problem": f"The kernel could not run the checks ({why}); is `autograder` installed in the "
                                  f"Python of the notebook's kernel ({sys.executable})?"}
    return cells, json.loads(line[len(_MARK):])


def _error(outputs: list[Any]) -> str | None:
    """`NameError: name 'x' is not defined (line 3: y = x + 1)` for a cell's error output, else None."""
    err = next((o for o in outputs if o.get("output_type") == "error"), None)
    if err is None:
        return None
    where = None
    in_cell = False
    for raw in err.get("traceback", []):
        for ln in _ANSI.sub("", raw).splitlines():
            m = _CELL_FRAME.match(ln.strip())
            if m:
                in_cell, where = True, f"line {m.group(3)}"
            elif ln.startswith("File ") or ln.strip().startswith("File "):
                in_cell = False
            elif in_cell and (a := _ARROW.match(ln.strip())):
                where = f"line {a.group(1)}: {a.group(2).strip()[:120]}"
    return f"{err.get('ename')}: {str(err.get('evalue'))[:300]}" + (f" ({where})" if where else "")


def _check_order(nb: Any) -> dict[str, int]:
    """Exercise -> position of its check("...") cell, to list exercises in notebook order."""
    order: dict[str, int] = {}
    for i, cell in enumerate(nb.cells):
        for m in re.finditer(r"""check\(\s*["'](\w+)["']""", cell.source if cell.cell_type == "code" else ""):
            order.setdefault(m.group(1), i)
    return order
