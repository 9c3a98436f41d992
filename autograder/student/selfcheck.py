"""`check("exercise")` and `check.all()` inside a notebook: the public tests, run by the student.

`check("x")` runs the very files the grader runs (`public/test_x.py`), by the same pytest plugin,
with the student's live namespace as the `student` backend, so a check that passes here can only
fail in grading because of hidden tests.  `check.all()` runs the saved notebook top to bottom in a
fresh kernel first, as the grader will (`autograder.student.validate`).  The checks come from the course
kit when the notebook sits in one, else from the installed student package (`autograder.student.public_checks`):
the checks grading runs, whatever version the notebook was released with (a note says so once where they
differ: a notebook from an earlier release keeps working for the whole term).  Inside a
grading worker (`AUTOGRADER_WORKER`) or a validation run (`AUTOGRADER_VALIDATING`) both do nothing:
grading does not need them, and a validation runs every check once at the end.  `check()` prints and
returns None (a notebook shows no `Out:` line); `check.passed("x")` says whether its last run passed, so a
notebook's demo of an exercise runs only then.  `quiet_stderr` is here for a TensorFlow notebook's setup
cell (`with quiet_stderr(): import tensorflow as tf`), whose one import line is this module.
"""
from __future__ import annotations

import inspect
import json
import os
from pathlib import Path

from autograder.execute.quiet import quiet_stderr
from autograder.student.verdicts import Checks, passed, render

__all__ = ["Checker", "quiet_stderr"]

VALIDATING = "AUTOGRADER_VALIDATING"
_COLAB_COPY = "-colab-copy.ipynb"  # Colab keeps notebooks in Drive: check.all() validates a copy of it


def _quiet() -> bool:
    return bool(os.environ.get("AUTOGRADER_WORKER") or os.environ.get(VALIDATING))


class Checker(Checks):
    """`check` in a notebook: `check("x")`, `check.passed("x")`, `check.all()` (`autograder.student.CHECKER`)."""

    _noted = False  # whether the note on the checks' version (`Checks.note`) was printed in this kernel

    def __call__(self, exercise: str, namespace: dict | None = None) -> None:
        """Print `exercise`'s verdict.  Returns None, so a notebook shows no `Out:` line under it; the
        verdict is kept for `passed`."""
        if _quiet():
            return
        ns = namespace if namespace is not None else inspect.stack()[1].frame.f_globals
        self._verdicts[exercise] = False
        try:
            results = self.results(exercise, ns)
        except ValueError as e:
            print(e)
            return
        if self.note and not self._noted:
            print(self.note)
            self._noted = True
        for line in render(exercise, results):
            print(line)
        self._verdicts[exercise] = passed(results)

    def passed(self, *exercises: str) -> bool:
        """Whether the last `check(...)` of each exercise in this kernel passed: a notebook runs a demo of an
        exercise only then, so a notebook run top to bottom with exercises left says "not answered yet" for
        each, not a chain of errors.  False while grading or validating, where checks do not run."""
        return all(self._verdicts.get(e, False) for e in exercises)

    def all(self, notebook: Path | str | None = None) -> bool | None:
        """Run the saved notebook top to bottom in a fresh kernel, then every public check."""
        if _quiet():
            return None
        # imported here: a notebook's setup cell imports this module, and validating's imports (the sandbox,
        # the seeds, escaping) would more than double its start (0.04 -> 0.10 s of CPU, python -X importtime)
        from autograder.student.validate import validate

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


def _this_notebook(assignment: str) -> Path | None:
    """The notebook file this kernel runs: VS Code and Jupyter say so, Colab hands out its content; else
    the one notebook of this assignment in the working folder; else the student names it, when asked."""
    for name in _named_by_frontend():
        for path in (Path(name).expanduser(), Path.cwd() / Path(name).name):  # a server's path may be relative
            if path.suffix == ".ipynb" and path.is_file():
                return path
    try:
        from google.colab import _message

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
    if len(mine) == 1:
        return mine[0]
    try:
        answer = input(f"Which file is this notebook{' (' + ', '.join(p.name for p in mine) + ')' if mine else ''}? ")
    except Exception:  # noqa: BLE001 - a kernel that cannot ask (no stdin)
        return None
    path = Path(answer.strip().strip("'\"")).expanduser()
    return path if path.suffix == ".ipynb" and path.is_file() else None


def _named_by_frontend() -> list[str]:
    """What the notebook's front end says the file is: VS Code's variable, the environment Jupyter starts a
    kernel with, the sessions of the Jupyter server that started this kernel."""
    try:
        from IPython import get_ipython

        ns = get_ipython().user_ns
    except Exception:  # noqa: BLE001 - not in IPython
        ns = __import__("__main__").__dict__
    names = [ns.get("__vsc_ipynb_file__"), os.environ.get("JPY_SESSION_NAME")]
    if not any(isinstance(n, str) and n.endswith(".ipynb") for n in names):
        names.append(_server_session_path())
    return [n for n in names if isinstance(n, str) and n]


def _server_session_path(timeout: float = 2.0) -> str | None:
    """This kernel's notebook as a running Jupyter server knows it (its sessions API), for servers that do
    not tell the kernel (`JPY_SESSION_NAME` is recent)."""
    import urllib.request

    try:
        from ipykernel.connect import get_connection_file
        from jupyter_core.paths import jupyter_runtime_dir

        kernel = Path(get_connection_file()).stem.removeprefix("kernel-")
        servers = sorted(Path(jupyter_runtime_dir()).glob("*server-*.json"))  # jpserver-*, nbserver-*
    except Exception:  # noqa: BLE001 - not a kernel started by Jupyter
        return None
    for info in servers:
        try:
            server = json.loads(info.read_text(encoding="utf-8"))
            request = urllib.request.Request(server["url"].rstrip("/") + "/api/sessions",
                                             headers={"Authorization": f"token {server.get('token', '')}"})
            with urllib.request.urlopen(request, timeout=timeout) as r:  # noqa: S310 - the user's own server
                sessions = json.loads(r.read(1_000_000))
            for session in sessions:
                if session["kernel"]["id"] == kernel:
                    path = session.get("path") or session["notebook"]["path"]
                    return str(Path(server.get("root_dir") or server.get("notebook_dir") or ".") / path)
        except Exception:  # noqa: BLE001 - a server gone, another user's, password-only
            continue
    return None


