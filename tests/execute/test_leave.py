"""`leave`: a process that loaded torch ends without Python's teardown, but with everything that teardown
did that anyone can see (its threads joined, the exit handlers run, its output flushed, its status)."""

from __future__ import annotations

import subprocess
import sys
import textwrap
from pathlib import Path

from autograder.config.compat import tomllib

ROOT = Path(__file__).resolve().parents[2]

CHILD = textwrap.dedent("""
    import atexit, sys, threading, time
    from autograder.execute.leave import leave

    atexit.register(lambda: print("exit handler ran", flush=False))
    done = []
    worker = threading.Thread(target=lambda: (time.sleep(0.2), done.append(1), print("thread finished")))
    worker.start()
    sys.stdout.write("unflushed ")
    leave(3)
    print("never printed")
""")


def test_leave_runs_threads_and_exit_handlers_flushes_and_keeps_the_status(tmp_path):
    run = subprocess.run([sys.executable, "-c", CHILD], capture_output=True, text=True, timeout=60, cwd=ROOT)
    assert run.returncode == 3, run.stderr
    assert run.stdout == "unflushed thread finished\nexit handler ran\n", run.stdout


def test_the_command_and_python_dash_m_leave_through_entry():
    """The installed `autograder` script and `python -m autograder` both end through `leave`; tests call `main`."""
    scripts = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]["scripts"]
    assert scripts["autograder"] == "autograder.cli:entry"
    assert "entry()" in (ROOT / "autograder" / "__main__.py").read_text()
    run = subprocess.run(
        [sys.executable, "-m", "autograder", "list"], capture_output=True, text=True, timeout=120, cwd=ROOT
    )
    assert run.returncode == 0 and "01_tensors" in run.stdout, run.stderr
