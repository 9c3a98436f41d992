"""What the worker's interpreter sees (`execute/interpreter.py`) and what a worker that cannot start says
(`runner.cannot_start`).  The layouts themselves (a venv under /tmp, spaces, conda, user site) run end to
end in tests/e2e/test_student_envs.py."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import sysconfig

from autograder.execute import interpreter
from autograder.execute.runner import cannot_start

_SHOW = "import json; from autograder.execute import interpreter as i; print(json.dumps([i.executable(), i.import_folders()]))"


def test_the_worker_sees_its_environment_not_the_callers_folder_path_or_kit(tmp_path):
    kit = tmp_path / "course kit"
    for name in ("assignments", "solutions", "lib"):
        (kit / name).mkdir(parents=True)
    env = {**os.environ, "PYTHONPATH": f"{kit}{os.pathsep}{kit / 'lib'}"}
    env.pop("AUTOGRADER_KIT", None)
    relative = os.path.relpath(sys.executable, kit)  # ../../.venv/bin/python, as a student may type it
    out = subprocess.run([relative, "-c", _SHOW], capture_output=True, text=True, check=True, cwd=kit, env=env).stdout
    exe, folders = json.loads(out)
    assert exe == os.path.abspath(sys.executable) and ".." not in exe
    assert sysconfig.get_paths()["purelib"] in folders and sysconfig.get_paths()["stdlib"] in folders
    assert not [f for f in folders if f == str(kit) or f.startswith(str(kit) + "/")], folders
    assert "" not in folders and all(os.path.isabs(f) for f in folders)


def test_the_user_site_is_added_only_when_the_caller_uses_it(monkeypatch, tmp_path):
    user = tmp_path / "user site"
    user.mkdir()
    monkeypatch.setattr(interpreter.site, "ENABLE_USER_SITE", True)
    monkeypatch.setattr(interpreter.site, "getusersitepackages", lambda: str(user))
    assert interpreter.module_argv("autograder.execute.worker") == [
        interpreter.executable(),
        "-I",
        "-m",
        "autograder.execute.worker",
    ]
    monkeypatch.setattr(sys, "path", [*sys.path, str(user)])
    argv = interpreter.module_argv("autograder.execute.worker")
    assert argv[:3] == [interpreter.executable(), "-I", "-c"] and repr(str(user)) in argv[3]
    # the bootstrap runs the module as -m would, with the same arguments after it
    r = subprocess.run([*interpreter.module_argv("json.tool"), "--help"], capture_output=True, text=True)
    assert r.returncode == 0 and "usage:" in r.stdout, r.stderr


def test_a_worker_that_cannot_start_says_why_in_fixed_words():
    missing = (
        "Traceback (most recent call last):\n  File \"/x/autograder/execute/worker.py\", line 36\n"
        "ModuleNotFoundError: No module named 'numpy'\n"
    )
    said = cannot_start("the worker exited with code 1", missing)
    assert said.startswith("a worker could not be started: the worker exited with code 1: ")
    assert "could not import `numpy`" in said and "install `numpy`" in said and "Traceback" not in said
    assert "bubblewrap" in cannot_start("x", "bwrap: execvp /a b/python: No such file or directory\n")
    assert "/a b" not in cannot_start("x", "bwrap: execvp /a b/python: No such file or directory\n")
    disk = "  File \"/tmp/v/autograder/execute/disk.py\", line 90\nOSError: [Errno 30] Read-only file system: '/tmp/secret'"
    assert "own disk" in cannot_start("x", disk) and "/tmp/secret" not in cannot_start("x", disk)
    assert "printed nothing" in cannot_start("x", "")
    assert "No module named 'x; rm'" not in cannot_start("x", "ModuleNotFoundError: No module named 'x; rm'")
