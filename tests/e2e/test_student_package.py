"""The student package end to end, as a student gets it.

The wheel, built as `make dist` builds it, is installed into a fresh virtualenv exactly as README "For
students" says: torch's CPU build, then the README's line for that notebook (the `[course]` extra, or
`[course,tensorflow]` for a notebook that imports TensorFlow: its setup cell names which), by the
virtualenv's own pip with this machine's pip configuration, so torch, Triton and TensorFlow come from the
same files a student's index serves.  Then every assignment's released notebook, copied alone into an empty folder with its first
exercise answered from the master, runs top to bottom with nbclient in that Python: nothing fails to
import, the answered exercise's check passes, the next one says "not answered yet", and no check prints an
`Out:` line.  The same for a notebook released through nbgrader (`autograder nbgrader source`, then
`nbgrader generate_assignment`).  Each virtualenv is built once per test session (torch and Triton are
large: about two minutes) and shared by every assignment that names its line; the TensorFlow one only when a
TensorFlow notebook is tested.
"""

from __future__ import annotations

import email
import os
import re
import shutil
import subprocess
import sys
import time
import zipfile
from pathlib import Path

import nbformat
import pytest
from packaging.requirements import Requirement
from packaging.utils import canonicalize_name

from autograder.notebook.imports import imported_modules
from autograder.student import public_checks as checks
from autograder.student.release import BEGIN, install_line, release
from autograder.student.verdicts import INSTALL
from tests.tiers import per_assignment

ROOT = Path(__file__).resolve().parents[2]
BIN = Path(sys.executable).parent
ASSIGNMENTS = sorted(p.parent.name for p in (ROOT / "assignments").glob("*/manifest.toml"))
pytestmark = pytest.mark.slow
_CHECK_LINE = re.compile(r'^check\("(\w+)"\)\s*$', re.M)
_DRIVER = """import os, sys, nbformat
from nbclient import NotebookClient
nb = nbformat.read(sys.argv[1], as_version=4)
NotebookClient(nb, timeout=600, allow_errors=True, kernel_name='python3',
               resources={'metadata': {'path': os.path.dirname(sys.argv[1])}}).execute()
nbformat.write(nb, sys.argv[2])
"""


def _env(**extra: str) -> dict[str, str]:
    """This environment without its virtualenv or import path: pip's own configuration (indexes) stays."""
    drop = {
        "VIRTUAL_ENV",
        "PYTHONPATH",
        "PYTHONHOME",
        "PYTHONSTARTUP",
        "AUTOGRADER_KIT",
        "AUTOGRADER_WORKER",
        "AUTOGRADER_VALIDATING",
        "JPY_SESSION_NAME",
    }
    return {**{k: v for k, v in os.environ.items() if k not in drop}, "LANG": "C.UTF-8", **extra}


def _readme_install_line(install: str) -> str:
    """The install command of README "For students" that is the notebook's `install` line (its link is the course's)."""
    section = (ROOT / "README.md").read_text(encoding="utf-8").split("## For students", 1)[1].split("\n## ", 1)[0]
    lines = re.findall(r"^pip install .*$", section, re.M)
    prefix = install.removeprefix("%").split(" @ ", 1)[0]
    found = [line for line in lines if line.startswith(prefix + " @ ")]
    assert len(found) == 1, (prefix, lines)
    return found[0]


@pytest.fixture(scope="session")
def kit(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A copy of the kit's sources: the wheel and the notebooks released from one state of the checks."""
    src = tmp_path_factory.mktemp("kit")
    for name in ("autograder", "assignments", "solutions"):
        shutil.copytree(ROOT / name, src / name, ignore=shutil.ignore_patterns("__pycache__", "*.pyc"))
    for name in ("pyproject.toml", "setup.py", "README.md", "MANIFEST.in"):
        shutil.copy2(ROOT / name, src / name)
    return src


@pytest.fixture(scope="session")
def wheel(kit: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    """`make dist`'s command (an isolated build: setuptools only), with solutions/ and hidden tests present."""
    dist = tmp_path_factory.mktemp("dist")
    subprocess.run(
        [sys.executable, "-m", "pip", "wheel", "-q", "--no-deps", "--wheel-dir", str(dist), str(kit)],
        check=True,
        cwd=dist,
        env=_env(),
    )
    return next(dist.glob("*.whl"))


def _student_env(wheel: Path, tmp_path_factory: pytest.TempPathFactory, install: str) -> Path:
    """A fresh virtualenv with the package installed as the README says: the CPU torch, then the line `install`."""
    venv = tmp_path_factory.mktemp("student-env") / "venv"
    subprocess.run([sys.executable, "-m", "venv", str(venv)], check=True, env=_env())
    py = venv / "bin" / "python"
    line = re.sub(r"torch_course_autograder-[^/\"]+\.whl", wheel.name, _readme_install_line(install))
    assert line == install.removeprefix("%").replace("LINK", "https://YOUR-COURSE-SITE/" + wheel.name), line
    start = time.monotonic()
    pip = [str(py), "-m", "pip", "install", "-q", "--no-compile"]  # byte-compiling torch and Triton: minutes here
    subprocess.run([*pip, f"torch=={_torch_version()}"], check=True, env=_env())  # here: this machine's CPU wheel
    subprocess.run(
        [*pip, line.split(" ", 2)[2].strip('"').replace("https://YOUR-COURSE-SITE/", wheel.parent.as_uri() + "/")],
        check=True,
        env=_env(),
    )
    print(f"the student's install ({line.split(' @ ')[0]}): {time.monotonic() - start:.0f} s")
    return py


@pytest.fixture(scope="session")
def student_python(wheel: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The PyTorch notebooks' virtualenv: the README's `[course]` line."""
    return _student_env(wheel, tmp_path_factory, INSTALL)


@pytest.fixture(scope="session")
def tf_student_python(wheel: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The TensorFlow notebooks' virtualenv, a fresh one: the README's `[course,tensorflow]` line."""
    return _student_env(wheel, tmp_path_factory, install_line(["tensorflow"]))


def _setup_install(nb: nbformat.NotebookNode) -> str:
    """The install line a released notebook's setup cell names (its first line)."""
    return (
        next(c.source for c in nb.cells if c.cell_type == "code")
        .splitlines()[0]
        .split("Install once:", 1)[1]
        .split("  (LINK")[0]
        .strip()
    )


def _python_for(nb: nbformat.NotebookNode, request: pytest.FixtureRequest) -> Path:
    """The virtualenv of the install line the notebook's setup cell names: a TensorFlow notebook's is a
    fresh one with the TF extra."""
    return request.getfixturevalue("tf_student_python" if "tensorflow" in _setup_install(nb) else "student_python")


def _torch_version() -> str:
    import torch

    return torch.__version__.split("+")[0]


def _requirements(wheel: Path) -> list[str]:
    with zipfile.ZipFile(wheel) as z:
        meta = next(n for n in z.namelist() if n.endswith(".dist-info/METADATA"))
        return email.message_from_bytes(z.read(meta)).get_all("Requires-Dist") or []


def _exercises(master: nbformat.NotebookNode) -> list[tuple[str, list[str]]]:
    """(exercise, ids of its solution cells) in notebook order: the solution cells before each `check("...")`."""
    out, pending = [], []
    for cell in master.cells:
        if cell.cell_type != "code":
            continue
        if BEGIN in cell.source:
            pending.append(cell.id)
        m = _CHECK_LINE.search(cell.source)
        if m and pending:
            out.append((m.group(1), pending))
            pending = []
    return out


def _answer_first(kit: Path, nb: nbformat.NotebookNode, assignment: str) -> tuple[str, str]:
    """Copy the first exercise's solution cells from the master into `nb`; its name and the next exercise's."""
    master = nbformat.read(kit / "solutions" / f"{assignment}.ipynb", as_version=4)
    (first, ids), (second, _) = _exercises(master)[:2]
    sources = {c.id: c.source for c in master.cells}
    answered = [c for c in nb.cells if c.get("id") in ids]
    assert len(answered) == len(ids), (assignment, ids)
    for cell in answered:
        cell.source = sources[cell.id]
    return first, second


def _run_alone(py: Path, nb: nbformat.NotebookNode, folder: Path, name: str, **env: str) -> nbformat.NotebookNode:
    """`nb` saved alone in an empty `folder` and run there top to bottom by `py`'s nbclient and kernel."""
    folder.mkdir(parents=True)
    nbformat.write(nb, folder / name)
    out = folder.parent / f"{folder.name}-executed.ipynb"
    subprocess.run(
        [str(py), "-c", _DRIVER, str(folder / name), str(out)], check=True, env=_env(**env), cwd=folder, timeout=900
    )
    return nbformat.read(out, as_version=4)


def _output(cell: nbformat.NotebookNode) -> str:
    return "".join(o.get("text", "") + o.get("evalue", "") for o in cell.outputs)


def _check_cell(nb: nbformat.NotebookNode, exercise: str) -> nbformat.NotebookNode:
    return next(
        c for c in nb.cells if c.cell_type == "code" and re.search(rf'^check\("{exercise}"\)\s*$', c.source, re.M)
    )


def _assert_checks_itself(done: nbformat.NotebookNode, answered: str, unanswered: str) -> None:
    errors = [
        (i, o["ename"], o["evalue"][:200])
        for i, c in enumerate(done.cells)
        if c.cell_type == "code"
        for o in c.outputs
        if o.get("output_type") == "error"
    ]
    assert not [
        e for e in errors if e[1] in ("ImportError", "ModuleNotFoundError") or "'check' is not defined" in e[2]
    ], errors
    assert f"{answered}: all public checks pass" in _output(_check_cell(done, answered)), _output(
        _check_cell(done, answered)
    )
    assert f"{unanswered}: not answered yet" in _output(_check_cell(done, unanswered)), _output(
        _check_cell(done, unanswered)
    )
    checking = [c for c in done.cells if c.cell_type == "code" and _CHECK_LINE.search(c.source)]
    assert checking and not [
        c.source for c in checking if any(o.get("output_type") == "execute_result" for o in c.outputs)
    ]
    assert "out of date" not in "".join(_output(c) for c in done.cells if c.cell_type == "code")


def test_wheel_has_the_public_checks_and_no_secrets(kit, wheel):
    names = zipfile.ZipFile(wheel).namelist()
    assert not [
        n
        for n in names
        if "hidden/" in n
        or "solutions/" in n
        or n.startswith("assignments/")
        or "/.cache/" in n
        or n.endswith((".ipynb", ".pt", ".bin", ".sqlite"))
    ]
    for a in sorted(p.parent for p in (kit / "assignments").glob("*/manifest.toml")):
        packaged = {n for n in names if n.startswith(f"autograder/student/public_checks/{a.name}/")}
        expected = {f"autograder/student/public_checks/{a.name}/{f.relative_to(a).as_posix()}" for f in checks.files(a)}
        assert packaged == expected | {f"autograder/student/public_checks/{a.name}/manifest.toml"}
    requires = [Requirement(r) for r in _requirements(wheel)]
    core = {canonicalize_name(r.name) for r in requires if not r.marker or "extra" not in str(r.marker)}
    assert core <= {"torch", "numpy", "nbformat", "nbclient", "ipykernel", "ipython", "pytest", "tomli"}, core


def test_make_dist_builds_without_the_instructor_stack(tmp_path):
    """`make dist` must not depend on `make install` (minutes of instructor packages for a small wheel)."""
    r = subprocess.run(
        ["make", "-n", "dist", f"VENV={tmp_path / 'venv'}"], cwd=ROOT, capture_output=True, text=True, check=True
    )
    assert "pip wheel" in r.stdout and "pip install" not in r.stdout and "--no-build-isolation" not in r.stdout, (
        r.stdout
    )


@pytest.mark.parametrize("assignment", ASSIGNMENTS)
def test_setup_cell_names_the_install_line_before_any_import(kit, assignment, tmp_path):
    """In a Python with none of the packages, the released setup cell fails first, once, with the line."""
    bare = tmp_path / "bare"
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(bare)], check=True, env=_env())
    nb = nbformat.read(release(kit, assignment, tmp_path / "released")[0], as_version=4)
    setup = next(c.source for c in nb.cells if c.cell_type == "code")
    modules = imported_modules([c.source for c in nb.cells if c.cell_type == "code"])
    install = install_line(modules)
    assert install in setup.splitlines()[0] and _setup_install(nb) == install  # named first, as in the README
    assert ("tensorflow" in install) == ("tensorflow" in modules or "keras" in modules), (install, modules)
    r = subprocess.run(
        [str(bare / "bin" / "python"), "-c", setup], capture_output=True, text=True, env=_env(), cwd=tmp_path
    )
    last = r.stderr.strip().splitlines()[-1]
    assert r.returncode != 0 and last.startswith("ImportError: Not installed: autograder"), r.stderr
    assert f"Run  {install}  (LINK: the link your course gives)" in last and all(f"'{m}'" in setup for m in modules)
    assert ("torch" in modules or "tensorflow" in modules) and all(m in last for m in modules), last
    assert "%pip install torch-course-autograder " not in setup


@pytest.mark.parametrize("assignment", per_assignment(ASSIGNMENTS))
def test_each_lone_notebook_checks_itself_after_the_readme_install(kit, assignment, tmp_path, request):
    nb = nbformat.read(release(kit, assignment, tmp_path / "released")[0], as_version=4)  # = student/
    student_python = _python_for(nb, request)
    assert nb.cells[-1].source == "check.all()"
    nb.cells = nb.cells[:-2]  # check.all() runs the whole notebook again: once, below, is enough
    answered, unanswered = _answer_first(kit, nb, assignment)
    nb.cells.insert(
        1,
        nbformat.v4.new_code_cell(
            "import autograder, sys\nprint('FROM', autograder.__file__)\n"
            "print('PATH', [p for p in sys.path if 'work/main' in p])"
        ),
    )
    start = time.monotonic()
    done = _run_alone(student_python, nb, tmp_path / "alone", f"{assignment}.ipynb")
    print(f"{assignment}: {time.monotonic() - start:.0f} s")
    assert sorted(p.name for p in (tmp_path / "alone").iterdir()) == [f"{assignment}.ipynb"]  # nothing else needed
    where = _output(done.cells[1])
    assert f"FROM {student_python.parents[1]}" in where and "PATH []" in where, where
    _assert_checks_itself(done, answered, unanswered)


@pytest.mark.parametrize("assignment", ["01_tensors", "tf01_bricks"])
def test_nbgrader_release_checks_itself_with_the_wheel(kit, assignment, tmp_path, request):
    """`autograder nbgrader source`, then nbgrader's own `generate_assignment`: the released notebook carries the
    checks' version and the import guard, so the installed wheel's checks run on it (a PyTorch and a
    TensorFlow notebook, each in the virtualenv its setup cell's install line makes)."""
    course = tmp_path / "course"
    r = subprocess.run(
        [
            sys.executable,
            "-m",
            "autograder",
            "--kit",
            str(kit),
            "nbgrader",
            "source",
            assignment,
            "--course",
            str(course),
            "--allow-weak-isolation",
        ],
        capture_output=True,
        text=True,
        timeout=900,
    )
    assert r.returncode == 0, r.stdout + r.stderr
    env = {**os.environ, "PATH": f"{BIN}{os.pathsep}{os.environ.get('PATH', '')}"}  # nbgrader runs `alembic`
    r = subprocess.run(
        [str(BIN / "nbgrader"), "generate_assignment", assignment, "--force"],
        cwd=course,
        env=env,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert r.returncode == 0, r.stdout + r.stderr
    nb = nbformat.read(course / "release" / assignment / f"{assignment}.ipynb", as_version=4)
    version = checks.version(kit / "assignments" / assignment)
    assert nb.metadata["autograder"] == {"assignment": assignment, "version": version}
    assert f'Checker("{assignment}", version="{version}")' in next(c.source for c in nb.cells if "Checker(" in c.source)
    student_python = _python_for(nb, request)
    answered, unanswered = _answer_first(kit, nb, assignment)
    done = _run_alone(student_python, nb, tmp_path / "alone", f"{assignment}.ipynb")
    _assert_checks_itself(done, answered, unanswered)


def test_check_all_finds_its_file_when_a_copy_sits_beside_it(kit, student_python, tmp_path):
    """Jupyter starts a kernel with JPY_SESSION_NAME (the notebook's path): a second copy in the folder does not
    make check.all() give up."""
    assignment = "01_tensors"
    nb = nbformat.read(release(kit, assignment, tmp_path / "released")[0], as_version=4)
    folder = tmp_path / "alone"
    nb.cells = [
        nb.cells[0],
        next(c for c in nb.cells if "Checker(" in c.source),
        nbformat.v4.new_code_cell("import shutil\nshutil.copy('mine.ipynb', 'mine (copy).ipynb')"),
        nb.cells[-1],
    ]
    done = _run_alone(student_python, nb, folder, "mine.ipynb", JPY_SESSION_NAME=str(folder / "mine.ipynb"))
    report = _output(done.cells[-1])
    assert "Cannot tell which file" not in report and "Running mine.ipynb top to bottom" in report, report


@pytest.mark.parametrize("assignment", per_assignment(ASSIGNMENTS))
def test_blank_notebook_runs_through_saying_not_answered_yet(assignment, tmp_path):
    """Run All on an untouched notebook stops at nothing: each check says "not answered yet", and no cell
    raises because an exercise above it is still a stub (Jupyter's Run All would stop there).  The notebook
    is student/ as committed, which must be the current release."""
    from nbclient import NotebookClient

    path = release(ROOT, assignment, tmp_path)[0]
    assert path.read_bytes() == (ROOT / "student" / f"{assignment}.ipynb").read_bytes(), "student/ is stale"
    nb = nbformat.read(path, as_version=4)
    nb.cells = nb.cells[:-2]  # check.all() runs the notebook again
    NotebookClient(
        nb, timeout=600, allow_errors=False, kernel_name="python3", resources={"metadata": {"path": str(tmp_path)}}
    ).execute(env=_env(AUTOGRADER_KIT=str(ROOT)))
    exercises = [e for e, _ in _exercises(nbformat.read(ROOT / "solutions" / f"{assignment}.ipynb", as_version=4))]
    assert exercises
    for exercise in exercises:
        assert f"{exercise}: not answered yet" in _output(_check_cell(nb, exercise)), exercise
