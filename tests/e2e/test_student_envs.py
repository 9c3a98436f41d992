"""The student package from wherever a student's Python lives: `autograder validate` and `check.all()`.

Both run the notebook in the grader's sandboxed worker, started with the student's own interpreter, which
sees only the folders the sandbox binds read-only and gets its own /tmp: an environment under /tmp, one
with spaces in its path, a conda prefix or a user site must all work, or say why.  Each layout below gets
the wheel as `make dist` builds it (the `wheel` fixture of test_student_package.py) and runs, on a notebook
released from the kit with every exercise answered from the master, `python -m autograder validate`
(exit 0, "Ready") and the notebook's own `check.all()` cell in a Jupyter kernel (nbclient): "Ready".

How each layout is made, and why it is what a student can have:

* **venv under /tmp**: `python -m venv` in /tmp (the sandbox mounts its own tmpfs there), the wheel
  installed with `pip install --no-deps`.  torch, numpy, nbclient and ipykernel come from this test
  environment's site-packages through a `.pth` file in the venv's own site-packages: what a student gets
  from `--system-site-packages` over a Python that has them (the worker sees them only if the sandbox
  binds what that `.pth` adds), without downloading torch again for every layout.
* **path with spaces**: the same, in a folder whose name has spaces, outside /tmp (/var/tmp).
* **conda-style prefix**: no conda here, so one is laid out as conda lays one out: the interpreter binary
  copied into `PREFIX/bin/python3.X` (a real file, `python`/`python3` links beside it), its shared
  libpython into `PREFIX/lib` with the binary's run path set to `$ORIGIN/../lib` (conda-build's
  relocation, with `patchelf`), the standard library hard-linked into `PREFIX/lib/python3.X` (conda links
  its package cache the same way), an empty `site-packages`, and no `pyvenv.cfg`: `sys.prefix` and
  `sys.base_prefix` are both the prefix, under /tmp.  (A venv made with `--copies` and its `pyvenv.cfg`
  removed is not one: that interpreter finds the original prefix, not its own.)
* **user site**: a `--system-site-packages` venv (whose user site is on) and the wheel installed with
  `pip install --user` under `PYTHONUSERBASE`: the package sits in the user site, which the worker's
  isolated interpreter (`python -I`) leaves out unless told.

One more: a Python whose packages come from PYTHONPATH (which the isolated worker ignores) cannot start a
worker, and `validate` says which module it could not import, what to do, and what the worker printed.
Each layout is built once per module (about two seconds: no download), then run by both faces.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import sysconfig
import tempfile
from pathlib import Path

import nbformat
import pytest

from autograder.student.release import release
from tests.e2e.test_student_package import _DRIVER, _env, _exercises, _output, kit, wheel  # noqa: F401 - fixtures

pytestmark = pytest.mark.slow
A = "01_tensors"
VER = f"python{sys.version_info.major}.{sys.version_info.minor}"
LAYOUTS = ["venv under /tmp", "path with spaces", "conda-style prefix", "user site"]


@pytest.fixture(scope="module", autouse=True)
def _sandbox() -> None:
    from autograder.execute.sandbox import Bubblewrap

    if not Bubblewrap.available():
        pytest.skip("these layouts are about the bubblewrap sandbox, which cannot run here")


def _sees_this_environment(site_packages: Path) -> None:
    """torch, numpy, nbclient, ipykernel from this test environment, as `--system-site-packages` would give them."""
    site_packages.mkdir(parents=True, exist_ok=True)
    (site_packages / "_course_packages.pth").write_text(sysconfig.get_paths()["purelib"] + "\n", encoding="utf-8")


def _venv(prefix: Path, *flags: str) -> Path:
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", *flags, str(prefix)], check=True, env=_env())
    _sees_this_environment(prefix / "lib" / VER / "site-packages")
    return prefix / "bin" / "python"


def _install(py: Path, wheel: Path, *flags: str, **env: str) -> None:
    """The wheel alone.  --ignore-installed: pip would otherwise take this checkout's own install, which the
    layout sees through its `.pth`, for one of the layout's and uninstall it from the test environment."""
    subprocess.run(
        [
            sys.executable,
            "-m",
            "pip",
            "--python",
            str(py),
            "install",
            "-q",
            "--no-deps",
            "--ignore-installed",
            *flags,
            str(wheel),
        ],
        check=True,
        env=_env(**env),
    )


def _conda_prefix(prefix: Path) -> Path:
    """A conda-style prefix (see the module docstring), made from this interpreter's installation."""
    base = Path(sys.base_prefix)
    exe = Path(os.path.realpath(getattr(sys, "_base_executable", None) or sys.executable))
    (prefix / "bin").mkdir(parents=True)
    shutil.copy2(exe, prefix / "bin" / VER)
    for name in ("python3", "python"):
        (prefix / "bin" / name).symlink_to(VER)
    needed = subprocess.run(["ldd", str(exe)], capture_output=True, text=True).stdout
    libs = sorted((base / "lib").glob("libpython*.so*"))
    if "libpython" in needed:
        patchelf = shutil.which("patchelf") or shutil.which("patchelf", path=str(Path(sys.executable).parent))
        if not patchelf or not libs:
            pytest.skip("this Python links a shared libpython and patchelf (the dev extra) is not installed")
        (prefix / "lib").mkdir()
        for lib in libs:
            shutil.copy2(lib, prefix / "lib" / lib.name)
        subprocess.run([patchelf, "--set-rpath", "$ORIGIN/../lib", str(prefix / "bin" / VER)], check=True)

    def link(src: str, dst: str) -> None:
        try:
            os.link(src, dst)
        except OSError:  # another file system: a copy
            shutil.copy2(src, dst)

    shutil.copytree(
        base / "lib" / VER,
        prefix / "lib" / VER,
        copy_function=link,
        symlinks=True,
        ignore=lambda d, names: [
            n
            for n in names
            if Path(d) == base / "lib" / VER and n in ("site-packages", "test", "idlelib", "turtledemo")
        ],
    )
    _sees_this_environment(prefix / "lib" / VER / "site-packages")
    py = prefix / "bin" / "python"
    where = subprocess.run(
        [str(py), "-c", "import sys; print(sys.prefix); print(sys.base_prefix)"],
        capture_output=True,
        text=True,
        check=True,
        env=_env(),
    ).stdout.split()
    assert where == [str(prefix), str(prefix)] and not (prefix / "pyvenv.cfg").exists(), where
    return py


@pytest.fixture(scope="module", params=LAYOUTS)
def layout(request, wheel, tmp_path_factory) -> tuple[Path, dict[str, str]]:  # noqa: F811
    """(the layout's python, the environment variables its user has)."""
    env: dict[str, str] = {}

    def made(prefix: str, base: Path = Path("/tmp")) -> Path:
        """A folder where a student's environment would be (outside pytest's folders), removed after the module."""
        folder = Path(tempfile.mkdtemp(prefix=prefix, dir=base))
        request.addfinalizer(lambda: shutil.rmtree(folder, ignore_errors=True))
        return folder

    if request.param == "venv under /tmp":
        py = _venv(made("ag-venv-") / "venv")
        _install(py, wheel)
    elif request.param == "path with spaces":
        base = Path("/var/tmp") if os.access("/var/tmp", os.W_OK) else Path.home()
        py = _venv(made("autograder test ", base) / "my course env")
        _install(py, wheel)
    elif request.param == "conda-style prefix":
        py = _conda_prefix(made("ag-conda-") / "envs" / "course")
        _install(py, wheel)
    else:
        root = made("ag-user-")
        py = _venv(root / "venv", "--system-site-packages")
        env = {"PYTHONUSERBASE": str(root / "userbase")}
        _install(py, wheel, "--user", **env)
    where = subprocess.run(
        [str(py), "-c", "import autograder; print(autograder.__file__)"],
        capture_output=True,
        text=True,
        check=True,
        env=_env(**env),
        cwd="/",
    ).stdout
    expected = env.get("PYTHONUSERBASE") or str(py.parents[1])
    assert where.startswith(expected), (where, expected)  # the wheel, not this checkout
    return py, env


@pytest.fixture(scope="module")
def answered(kit, tmp_path_factory) -> nbformat.NotebookNode:  # noqa: F811
    """The released notebook with every exercise answered from the master (what a student hands in)."""
    nb = nbformat.read(release(kit, A, tmp_path_factory.mktemp("released"))[0], as_version=4)
    master = nbformat.read(kit / "solutions" / f"{A}.ipynb", as_version=4)
    sources = {c.id: c.source for c in master.cells}
    ids = {i for _, cells in _exercises(master) for i in cells}
    for cell in nb.cells:
        if cell.get("id") in ids:
            cell.source = sources[cell.id]
    assert not any("# YOUR CODE HERE" in c.source for c in nb.cells) and nb.cells[-1].source == "check.all()"
    return nb


def _alone(nb: nbformat.NotebookNode, folder: Path) -> Path:
    folder.mkdir(parents=True)
    nbformat.write(nb, folder / f"{A}.ipynb")
    return folder / f"{A}.ipynb"


def test_validate_passes(layout, answered, tmp_path):
    py, env = layout
    path = _alone(answered, tmp_path / "alone")
    r = subprocess.run(
        [str(py), "-m", "autograder", "validate", path.name],
        capture_output=True,
        text=True,
        env=_env(**env),
        cwd=path.parent,
        timeout=900,
    )
    assert r.returncode == 0 and "\nReady: all " in r.stdout, r.stdout + r.stderr
    assert "fresh sandboxed worker" in r.stdout and "could not be started" not in r.stdout


def test_check_all_in_a_kernel_passes(layout, answered, tmp_path):
    py, env = layout
    path = _alone(answered, tmp_path / "alone")
    out = tmp_path / "executed.ipynb"
    subprocess.run(
        [str(py), "-c", _DRIVER, str(path), str(out)], check=True, env=_env(**env), cwd=path.parent, timeout=900
    )
    report = _output(nbformat.read(out, as_version=4).cells[-1])
    assert "\nReady: all " in report and "fresh sandboxed worker" in report, report


def test_a_worker_that_cannot_start_says_why(wheel, answered, tmp_path):  # noqa: F811
    """The caller imports torch and numpy from PYTHONPATH, which the isolated worker does not read: no worker
    starts, and validate names the module, what to do, and shows what the worker printed."""
    py = tmp_path / "bare" / "bin" / "python"
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(py.parents[1])], check=True, env=_env())
    _install(py, wheel)
    path = _alone(answered, tmp_path / "alone")
    env = {**_env(), "PYTHONPATH": sysconfig.get_paths()["purelib"]}
    r = subprocess.run(
        [str(py), "-m", "autograder", "validate", path.name],
        capture_output=True,
        text=True,
        env=env,
        cwd=path.parent,
        timeout=900,
    )
    assert r.returncode != 0, r.stdout + r.stderr
    assert "No worker could be started on this machine" in r.stdout, r.stdout + r.stderr
    assert "its Python could not import `" in r.stdout and "install `" in r.stdout, r.stdout
    assert "What the worker printed" in r.stdout and "ModuleNotFoundError: No module named" in r.stdout, r.stdout
