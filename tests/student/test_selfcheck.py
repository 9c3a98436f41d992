"""`check(...)` and `check.all()` in a student's kernel, and the setup cell the release writes for them."""
from __future__ import annotations

import builtins
import json
import threading
from http.server import BaseHTTPRequestHandler, HTTPServer
from pathlib import Path

import nbformat
import pytest

from autograder.student import public_checks as checks, selfcheck
from autograder.interop.nbgrader import source_notebook
from autograder.notebook.imports import imported_modules
from autograder.student.release import install_line, release
from autograder.student.verdicts import INSTALL
from autograder.student.selfcheck import Checker

ROOT = Path(__file__).resolve().parents[2]
TOY = ROOT / "tests" / "fixtures" / "kit" / "assignments" / "toy"


def _ours(path: Path, assignment: str = "01_tensors") -> Path:
    path.write_text(json.dumps({"cells": [], "metadata": {"autograder": {"assignment": assignment}}}), encoding="utf-8")
    return path


@pytest.fixture
def folder(tmp_path, monkeypatch):
    """A working folder with two copies of the same notebook, and no front end that names either."""
    monkeypatch.chdir(tmp_path)
    monkeypatch.delenv("JPY_SESSION_NAME", raising=False)
    monkeypatch.setattr(selfcheck, "_server_session_path", lambda: None)
    _ours(tmp_path / "01_tensors.ipynb")
    _ours(tmp_path / "01_tensors (1).ipynb")
    return tmp_path


def test_check_prints_its_verdict_returns_nothing_and_keeps_it(capsys, monkeypatch):
    monkeypatch.delenv("AUTOGRADER_WORKER", raising=False)
    monkeypatch.delenv(selfcheck.VALIDATING, raising=False)
    check = Checker("toy", checks.version(TOY), TOY)
    assert check("double", {"double": lambda x: x * 2}) is None   # no `Out: True` under the verdict
    assert "double: all public checks pass" in capsys.readouterr().out
    assert check.passed("double") and not check.passed("double", "later")
    assert check("double", {"double": lambda x: x * 3}) is None
    assert "double: " in capsys.readouterr().out and not check.passed("double")


def test_check_passes_nothing_while_grading(monkeypatch):
    monkeypatch.setenv("AUTOGRADER_WORKER", "1")
    check = Checker("toy", checks.version(TOY), TOY)
    assert check("double", {"double": lambda x: x * 2}) is None and not check.passed("double")


def test_the_kernels_own_file_wins_over_a_copy_beside_it(folder, monkeypatch):
    monkeypatch.setenv("JPY_SESSION_NAME", str(folder / "01_tensors (1).ipynb"))
    assert selfcheck._this_notebook("01_tensors") == folder / "01_tensors (1).ipynb"
    monkeypatch.setenv("JPY_SESSION_NAME", "course/week1/01_tensors.ipynb")   # older servers: relative to their root
    assert selfcheck._this_notebook("01_tensors") == folder / "01_tensors.ipynb"


def test_two_copies_and_no_front_end_ask_the_student(folder, monkeypatch):
    asked = []
    monkeypatch.setattr(builtins, "input", lambda prompt: asked.append(prompt) or "01_tensors (1).ipynb")
    assert selfcheck._this_notebook("01_tensors") == Path("01_tensors (1).ipynb")
    assert "01_tensors (1).ipynb" in asked[0] and "01_tensors.ipynb" in asked[0]


def test_a_kernel_that_cannot_ask_gets_the_message(folder, monkeypatch, capsys):
    def no_stdin(prompt):
        raise RuntimeError("raw_input was called, but this frontend does not support input requests")

    monkeypatch.setattr(builtins, "input", no_stdin)
    assert Checker("01_tensors", version="x").all() is None
    assert "Cannot tell which file this notebook is" in capsys.readouterr().out


def test_the_jupyter_servers_sessions_name_the_notebook(tmp_path, monkeypatch):
    """A server that does not set JPY_SESSION_NAME still lists which notebook runs in which kernel."""
    sessions = [{"path": "other.ipynb", "kernel": {"id": "k-other"}},
                {"path": "week1/01_tensors.ipynb", "kernel": {"id": "k-mine"}}]

    class Server(BaseHTTPRequestHandler):
        def do_GET(self):  # noqa: N802 - http.server's name
            ok = self.path == "/api/sessions" and self.headers.get("Authorization") == "token secret"
            body = json.dumps(sessions if ok else {"message": "Forbidden"}).encode()
            self.send_response(200 if ok else 403)
            self.end_headers()
            self.wfile.write(body)

        def log_message(self, *args):
            pass

    httpd = HTTPServer(("127.0.0.1", 0), Server)
    threading.Thread(target=httpd.serve_forever, daemon=True).start()
    try:
        runtime = tmp_path / "runtime"
        runtime.mkdir()
        (runtime / "jpserver-1.json").write_text(json.dumps({"url": f"http://127.0.0.1:{httpd.server_port}/",
                                                             "token": "secret", "root_dir": "/home/me"}))
        (runtime / "nbserver-2.json").write_text("{not json")   # a stale file: skipped
        monkeypatch.setenv("JUPYTER_RUNTIME_DIR", str(runtime))
        import ipykernel.connect

        monkeypatch.setattr(ipykernel.connect, "get_connection_file", lambda: str(runtime / "kernel-k-mine.json"))
        assert selfcheck._server_session_path() == "/home/me/week1/01_tensors.ipynb"
        monkeypatch.setattr(ipykernel.connect, "get_connection_file", lambda: str(runtime / "kernel-k-gone.json"))
        assert selfcheck._server_session_path() is None
    finally:
        httpd.shutdown()


def test_imported_modules_are_the_non_standard_ones():
    cells = ["import os, torch\nfrom torch import nn\nimport matplotlib.pyplot as plt", "%matplotlib inline\nimport pandas as pd",
             "def f():\n    import triton\n", "from . import local\nfrom __future__ import annotations", "this is not python ("]
    assert imported_modules(cells) == ["matplotlib", "pandas", "torch", "triton"]


def test_released_setup_cell_guards_the_imports_first(tmp_path):
    nb = nbformat.read(release(ROOT, "02b_kernels", tmp_path)[0], as_version=4)
    setup = next(c.source for c in nb.cells if c.cell_type == "code")
    assert setup.index("find_spec") < setup.index("import torch") < setup.index("import triton")
    assert "'autograder', 'torch', 'triton'" in setup and INSTALL in setup
    assert "%pip install torch-course-autograder " not in setup


def test_only_a_tensorflow_notebook_names_the_tensorflow_extra(tmp_path):
    """TensorFlow is a large download: the install line names its extra (a pyproject extra) only where it is imported."""
    from autograder.config.compat import tomllib

    assert install_line(["autograder", "torch", "triton"]) == INSTALL
    assert install_line(["keras", "numpy"]) == install_line(["tensorflow"]) == INSTALL.replace("[course]", "[course,tensorflow]")
    assert "tensorflow" in tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]["optional-dependencies"]
    nb = nbformat.read(release(ROOT, "tf00_devices", tmp_path)[0], as_version=4)
    setup = next(c.source for c in nb.cells if c.cell_type == "code")
    assert install_line(["tensorflow"]) in setup.splitlines()[0] and "'tensorflow'" in setup


def test_nbgrader_source_checks_itself_like_a_release(tmp_path):
    """The nbgrader source notebook carries the public checks' version (what the wheel's checks have), not the
    grading version, and the same guarded setup cell as `autograder release`."""
    nb = source_notebook(ROOT, "04_fit_api", {"metrics": 10.0})
    version = checks.version(ROOT / "assignments" / "04_fit_api")
    assert nb.metadata["autograder"] == {"assignment": "04_fit_api", "version": version}
    released = nbformat.read(release(ROOT, "04_fit_api", tmp_path)[0], as_version=4)
    first = next(c.source for c in nb.cells if c.cell_type == "code")
    assert first == next(c.source for c in released.cells if c.cell_type == "code")
    assert f'Checker("04_fit_api", version="{version}")' in first and "'pandas'" in first
