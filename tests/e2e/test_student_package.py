"""The student package end to end, as a student gets it.

One wheel (built like `make dist`), installed into a fresh virtualenv that has neither the checkout
nor anything the wheel does not ask for on its path; a released notebook copied alone into an empty
folder, one exercise filled in, executed with nbclient: its check passes, an unanswered one says so
with its hint, and the notebook's last cell (`check.all()`) validates the saved file.  The fresh
virtualenv borrows its dependencies from this one through a `.pth` file naming a folder of links to
exactly the wheel's (transitive, core) requirements, so torch costs no download and a missing
dependency still fails: pip runs with `--no-index`.
"""
from __future__ import annotations

import email
import json
import os
import shutil
import subprocess
import sys
import time
import zipfile
from importlib import metadata
from pathlib import Path

import nbformat
import pytest
from packaging.requirements import Requirement
from packaging.utils import canonicalize_name

from autograder import checks
from autograder.notebook.release import release

ROOT = Path(__file__).resolve().parents[2]
pytestmark = pytest.mark.slow


@pytest.fixture(scope="module")
def wheel(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """`make dist`'s command on a copy of the sources (with solutions/ and hidden tests present)."""
    tmp = tmp_path_factory.mktemp("dist")
    src = tmp / "src"
    for name in ("autograder", "assignments", "solutions"):
        shutil.copytree(ROOT / name, src / name, ignore=shutil.ignore_patterns("__pycache__", "*.pyc"))
    for name in ("pyproject.toml", "setup.py", "README.md"):
        shutil.copy2(ROOT / name, src / name)
    subprocess.run([sys.executable, "-m", "pip", "wheel", "-q", "--no-deps", "--no-build-isolation",
                    "--wheel-dir", str(tmp / "dist"), str(src)], check=True, cwd=tmp)
    return next((tmp / "dist").glob("*.whl"))


def _requirements(wheel: Path) -> list[str]:
    with zipfile.ZipFile(wheel) as z:
        meta = next(n for n in z.namelist() if n.endswith(".dist-info/METADATA"))
        return email.message_from_bytes(z.read(meta)).get_all("Requires-Dist") or []


def _dependency_view(wheel: Path, dest: Path) -> list[str]:
    """Links in `dest` to the files of every distribution the wheel needs (core, transitively), from this
    environment; returns their names."""
    todo = [(r, "") for r in _requirements(wheel)]
    seen: dict[str, metadata.Distribution] = {}
    while todo:
        text, extra = todo.pop()
        req = Requirement(text)
        if req.marker and not req.marker.evaluate({"extra": extra}):
            continue
        name = canonicalize_name(req.name)
        for wanted in {"", *req.extras}:
            key = f"{name}[{wanted}]"
            if key in seen:
                continue
            dist = seen[key] = metadata.distribution(req.name)
            todo += [(r, wanted) for r in dist.requires or []]
    dest.mkdir()
    for dist in {id(d): d for d in seen.values()}.values():
        for top in {f.parts[0] for f in dist.files or [] if f.parts[0] not in ("..", "__pycache__")}:
            if not top.endswith(".pth") and not (dest / top).exists():
                (dest / top).symlink_to(Path(str(dist.locate_file(top))).resolve())
    return sorted({k.split("[")[0] for k in seen})


@pytest.fixture(scope="module")
def student_python(wheel: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    tmp = tmp_path_factory.mktemp("student-env")
    names = _dependency_view(wheel, tmp / "deps")
    assert "torch" in names and not {"rich", "dask", "pandas", "nbgrader", "matplotlib"} & set(names), names
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(tmp / "venv")], check=True)
    py = tmp / "venv" / "bin" / "python"
    site = subprocess.run([py, "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"],
                          capture_output=True, text=True, check=True).stdout.strip()
    Path(site, "deps.pth").write_text(str(tmp / "deps") + "\n")
    return py


def _env() -> dict[str, str]:
    return {"PATH": os.environ["PATH"], "HOME": os.environ.get("HOME", "/tmp"), "LANG": "C.UTF-8"}


def test_wheel_has_the_public_checks_and_no_secrets(wheel):
    names = zipfile.ZipFile(wheel).namelist()
    assert not [n for n in names if "hidden/" in n or "solutions/" in n or n.startswith("assignments/")
                or "/.cache/" in n or n.endswith((".ipynb", ".pt", ".bin", ".sqlite"))]
    for a in sorted(p.parent for p in (ROOT / "assignments").glob("*/manifest.toml")):
        packaged = {n for n in names if n.startswith(f"autograder/checks/{a.name}/")}
        expected = {f"autograder/checks/{a.name}/{f.relative_to(a).as_posix()}" for f in checks.files(a)}
        assert packaged == expected | {f"autograder/checks/{a.name}/manifest.toml"}
    requires = [Requirement(r) for r in _requirements(wheel)]
    core = {canonicalize_name(r.name) for r in requires if not r.marker or "extra" not in str(r.marker)}
    assert core <= {"torch", "numpy", "nbformat", "nbclient", "ipykernel", "ipython", "pytest", "tomli"}, core


def test_setup_cell_says_what_to_install_when_the_package_is_missing(student_python, tmp_path):
    nb = nbformat.read(release(ROOT, "01_tensors", tmp_path)[0], as_version=4)
    setup = next(c.source for c in nb.cells if c.cell_type == "code" and "Checker" in c.source)
    before = subprocess.run([student_python, "-c", "import autograder"], capture_output=True, env=_env(), cwd=tmp_path)
    if before.returncode == 0:
        pytest.skip("the package is already installed in the student environment (fixture order)")
    r = subprocess.run([student_python, "-c", setup], capture_output=True, text=True, env=_env(), cwd=tmp_path)
    assert r.returncode != 0 and 'Run  %pip install "torch-course-autograder[course] @ LINK"' in r.stderr.splitlines()[-1]


def test_lone_notebook_checks_itself_after_one_pip_install(student_python, wheel, tmp_path):
    start = time.monotonic()
    subprocess.run([sys.executable, "-m", "pip", "--python", str(student_python), "install", "-q", "--no-index",
                    str(wheel)], check=True, env=_env())
    install_s = time.monotonic() - start
    print(f"pip install of the wheel: {install_s:.1f} s")
    assert install_s < 60, f"pip install took {install_s:.0f} s"

    # the released notebook, alone in an empty folder, with the dtypes exercise answered from the master
    master = nbformat.read(ROOT / "solutions" / "01_tensors.ipynb", as_version=4)
    nb = nbformat.read(release(ROOT, "01_tensors", tmp_path / "released")[0], as_version=4)  # = student/
    answer = next(c for c in master.cells if "def to_float32" in c.source)
    next(c for c in nb.cells if c.get("id") == answer.id).source = answer.source
    nb.cells.insert(-2, nbformat.v4.new_code_cell("import autograder, sys\nprint('FROM', autograder.__file__)\n"
                                                  "print('PATH', [p for p in sys.path if 'work/main' in p])"))
    folder = tmp_path / "alone"
    folder.mkdir()
    nbformat.write(nb, folder / "01_tensors.ipynb")
    driver = ("import sys, nbformat\nfrom nbclient import NotebookClient\n"
              "nb = nbformat.read(sys.argv[1], as_version=4)\n"
              "NotebookClient(nb, timeout=600, allow_errors=True, kernel_name='python3',"
              " resources={'metadata': {'path': sys.argv[2]}}).execute()\n"
              "nbformat.write(nb, sys.argv[3])\n")
    out = tmp_path / "executed.ipynb"
    subprocess.run([student_python, "-c", driver, str(folder / "01_tensors.ipynb"), str(folder), str(out)],
                   check=True, env=_env(), cwd=folder)
    assert sorted(p.name for p in folder.iterdir()) == ["01_tensors.ipynb"]  # nothing else was needed, or written

    done = nbformat.read(out, as_version=4)

    def output_of(code: str) -> str:
        cell = next(c for c in done.cells if c.cell_type == "code" and c.source.strip() == code)
        return "".join(o.get("text", "") + json.dumps(o.get("evalue", "")) for o in cell.outputs)

    where = output_of(nb.cells[-3].source)
    assert f"FROM {student_python.parents[1]}" in where and "PATH []" in where
    assert "dtypes: all public checks pass" in output_of('check("dtypes")')
    shapes = output_of('check("shapes")')
    assert "not answered yet" in shapes and "Hint: rank = t.dim()" in shapes and "should be a tuple" not in shapes
    report = output_of("check.all()")
    assert "✔ dtypes: all public checks pass" in report and "✘ shapes: not answered yet" in report
    assert "Not ready: not answered yet: shapes, views" in report
