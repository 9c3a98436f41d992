"""The Python a worker runs: the caller's own interpreter, wherever it is installed.

A student's environment may be a virtualenv anywhere (under /tmp, in a folder whose name has spaces), a
conda prefix (its own `bin/python` and `lib/python3.X/site-packages`, no `pyvenv.cfg`), a pyenv version,
or the package may sit in the user site (`pip install --user`).  The worker starts that same interpreter
in isolated mode (`-I`: no cwd, no PYTHON* variables, no user site) inside a sandbox that shows it only
the folders bound read-only, so three things come from here, and only from here:

* `executable()`: `sys.executable` as an absolute, normalised path: a relative `../venv/bin/python` names
  a folder the sandbox does not have, and resolving its links would lose the virtualenv;
* `import_folders()`: every folder that interpreter imports from, as `python -I` builds its path (its
  standard library, its site-packages and what their `.pth` files add: a conda env's, a virtualenv's
  base, a `--system-site-packages` one's system folders), plus the user site when the caller imports from
  it.  Never the caller's cwd or PYTHONPATH (a TA's folder), never a course kit's root (hidden tests,
  solutions): those would be shown to student code;
* `module_argv(module)`: the argv that runs `python -I -m module` with those folders importable (the
  user site, which `-I` leaves out, added by a one-line bootstrap: the worker's HOME is not the caller's,
  so the interpreter could not find it by itself).
"""

from __future__ import annotations

import functools
import json
import os
import site
import subprocess
import sys
from pathlib import Path


def executable() -> str:
    return os.path.abspath(sys.executable)


@functools.cache
def _isolated_path() -> tuple[str, ...]:
    """`sys.path` of this interpreter started with -I (what the worker gets before anything of ours)."""
    try:
        out = subprocess.run(
            [executable(), "-I", "-c", "import sys, json; print(json.dumps(sys.path))"],
            capture_output=True,
            timeout=60,
            env={"PATH": "/usr/bin:/bin", "LANG": "C.UTF-8"},
            cwd="/",
            check=True,
        ).stdout
        return tuple(p for p in json.loads(out) if isinstance(p, str))
    except (OSError, subprocess.SubprocessError, ValueError):
        return tuple(p for p in sys.path if p and os.path.isabs(p))


def user_site() -> str | None:
    """The caller's user site when it imports from it (a `pip install --user`) and -I would leave it out."""
    user = site.getusersitepackages() if site.ENABLE_USER_SITE else None
    if user and user in sys.path and os.path.isdir(user) and user not in _isolated_path():
        return user
    return None


def _is_kit(folder: Path) -> bool:
    return (folder / "assignments").is_dir() and (folder / "solutions").is_dir()


@functools.cache
def import_folders() -> tuple[str, ...]:
    """The existing folders (and zip files) the worker imports from, outermost first, no course kit."""
    found = [*_isolated_path(), *([user_site()] if user_site() else [])]
    cwd = os.path.realpath(os.getcwd())
    keep = []
    for p in found:
        if not p or not os.path.isabs(p) or not os.path.exists(p):
            continue
        if os.path.realpath(p) == cwd or _is_kit(Path(p)):
            continue
        keep.append(os.path.normpath(p))
    return tuple(sorted(set(keep)))


def module_argv(module: str) -> list[str]:
    """`python -I -m module`, with the caller's user site importable where the package needs it."""
    user = user_site()
    if user is None:
        return [executable(), "-I", "-m", module]
    boot = (
        f"import runpy, site; site.addsitedir({user!r}); "
        f"runpy.run_module({module!r}, run_name='__main__', alter_sys=True)"
    )
    return [executable(), "-I", "-c", boot]
