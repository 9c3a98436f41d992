"""Set up and drive the peer graders (nbgrader, otter-grader), each in a venv of its own under bench/.

Both venvs are created on first use with `pip install <grader>` plus what the masters import
(NOTEBOOK_PACKAGES: torch pinned to the CPU wheel from the local wheel folder, numpy, triton, pandas,
matplotlib, tensorflow-cpu, pinned as the kit's pyproject pins them; neither grader depends on them; for otter also
ipykernel, which it needs to execute a notebook but does not depend on), plus a stub
`autograder.student.selfcheck` module (the notebooks' `check()` does nothing, as in the kit's own workers).

Every function takes the assignment id; its tests are `peer_tests.TESTS[assignment]`, the source of
its nbgrader course is the master `solutions/<id>.ipynb` with a test cell after each `check(...)` cell.
On a machine without `/dev/nvidia*` the graders run with `TRITON_INTERPRET=1`, as the kit's workers do
(02b_kernels runs its Triton kernel in Triton's CPU interpreter).
"""

from __future__ import annotations

import copy
import glob
import json
import os
import shutil
import subprocess
import sys
import time
from pathlib import Path

from peer_tests import POINTS, SELFCHECK_STUB, TESTS, exercise_of_check_cell

BENCH = Path(__file__).resolve().parent
KIT = BENCH.parent
ASSIGNMENTS = tuple(TESTS)  # the assignments the peers can grade
# What the masters import besides torch (pinned as the kit's pyproject pins them): numpy (01, 04), triton
# (02b; torch's CPU wheel does not bring it, the kit's `instructor` extra does), pandas and matplotlib (04),
# TensorFlow with its Keras (the tf* assignments; the CPU build and ml_dtypes below 0.7, as the kit's `tensorflow`
# extra pins them: 0.7.0's import cost each notebook's kernel 0.55 s of CPU more, tests/bench checks they agree).
NOTEBOOK_PACKAGES = [
    "torch==2.13.0",
    "numpy",
    "triton>=3.4",
    "pandas>=2.0",
    "matplotlib>=3.7",
    "tensorflow-cpu==2.21.0",
    "ml_dtypes>=0.5.1,<0.7",
]
PACKAGES = {
    "nbgrader": ["nbgrader", *NOTEBOOK_PACKAGES],
    # otter executes notebooks through a Jupyter kernel but does not depend on ipykernel
    "otter": ["otter-grader", *NOTEBOOK_PACKAGES, "ipykernel"],
}


def venv_dir(name: str) -> Path:
    return BENCH / f".venv-{name}"


def _write_stub(bin_dir: Path) -> None:
    """The kit package as a peer's notebooks see it: `selfcheck` (a check() that does nothing) and `quiet`
    (the real one: a TensorFlow notebook's setup cell quiets TensorFlow's load with it)."""
    site = subprocess.run(
        [str(bin_dir / "python"), "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"],
        check=True,
        capture_output=True,
        text=True,
    ).stdout.strip()
    stub = Path(site) / "autograder"
    for package in (stub, stub / "student", stub / "execute"):
        package.mkdir(exist_ok=True)
        (package / "__init__.py").write_text('"""Benchmark stub of the kit package (selfcheck and quiet only)."""\n')
    (stub / "student" / "selfcheck.py").write_text(SELFCHECK_STUB)
    (stub / "execute" / "quiet.py").write_text(
        (KIT / "autograder" / "execute" / "quiet.py").read_text(encoding="utf-8")
    )


def ensure_venv(name: str, log) -> tuple[Path | None, str]:
    """(bin dir, '') or (None, why it could not be set up)."""
    venv = venv_dir(name)
    stamp = venv / ".bench-installed"
    bin_dir = venv / "bin"
    if stamp.is_file() and stamp.read_text().split() == PACKAGES[name]:
        _write_stub(bin_dir)  # the stub follows the kit's selfcheck API, which may have grown since the install
        return bin_dir, ""
    base = sys.executable if not hasattr(sys, "base_prefix") else str(Path(sys.base_prefix) / "bin" / "python3")
    log(f"[{name}] creating {venv} and installing {' '.join(PACKAGES[name])} (once; a few minutes)")
    try:
        if not (bin_dir / "python").exists():
            subprocess.run([base, "-m", "venv", str(venv)], check=True, capture_output=True, text=True)
        r = subprocess.run(
            [str(bin_dir / "python"), "-m", "pip", "install", "-q", *PACKAGES[name]], capture_output=True, text=True
        )
        if r.returncode != 0:
            return None, f"pip install {' '.join(PACKAGES[name])} failed: {r.stderr.strip()[-1500:]}"
        _write_stub(bin_dir)
    except (subprocess.CalledProcessError, OSError) as e:
        return None, f"could not create the venv: {e}"
    stamp.write_text(" ".join(PACKAGES[name]) + "\n")
    return bin_dir, ""


def _version(bin_dir: Path, dist: str) -> str:
    r = subprocess.run(
        [str(bin_dir / "python"), "-c", f"import importlib.metadata as m; print(m.version({dist!r}))"],
        capture_output=True,
        text=True,
    )
    return r.stdout.strip() or "?"


def _run_timed(cmd: list[str], *, cwd: Path, timeout: float, env: dict | None = None) -> dict:
    """Run one command in its own process group; kill the whole group at the timeout."""
    t0 = time.perf_counter()
    p = subprocess.Popen(
        cmd, cwd=cwd, env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, start_new_session=True
    )
    try:
        out, _ = p.communicate(timeout=timeout)
        timed_out = False
    except subprocess.TimeoutExpired:
        os.killpg(p.pid, 9)
        out, _ = p.communicate()
        timed_out = True
    return {"wall_s": time.perf_counter() - t0, "rc": p.returncode, "timed_out": timed_out, "output": out[-3000:]}


def _master_cells(assignment: str) -> list[dict]:
    return json.loads((KIT / "solutions" / f"{assignment}.ipynb").read_text())["cells"]


def _peer_env(bin_dir: Path, tmp: Path) -> dict:
    """The environment of a peer grader's commands: its venv first on PATH, no kit-worker marker, Triton's CPU
    interpreter where there is no GPU (what the kit's workers set), and `tmp` (made here, inside the bench's work
    folder) as the temporary folder: the notebooks run there unsandboxed, and what their cells leave in it (tf02b's
    builds of their op, one folder each) goes with the work folder instead of staying in the host's /tmp."""
    tmp.mkdir(parents=True, exist_ok=True)
    env = dict(os.environ, PATH=f"{bin_dir}:{os.environ['PATH']}", TMPDIR=str(tmp))
    env.pop("AUTOGRADER_WORKER", None)
    if not glob.glob("/dev/nvidia[0-9]*"):
        env.setdefault("TRITON_INTERPRET", "1")
    return env


def _test_source(lines: list[str]) -> str:
    return "\n".join(lines) + "\n"


# ------------------------------------------------------------------------------------------- nbgrader
def _nbgrader_source_notebook(assignment: str) -> dict:
    """The master with nbgrader metadata: setup cell locked, solution cells marked, and after every
    `check("exercise")` cell an autograder test cell worth POINTS."""
    nb = json.loads((KIT / "solutions" / f"{assignment}.ipynb").read_text())
    tests = dict(TESTS[assignment])
    cells = []
    for i, c in enumerate(nb["cells"]):
        c = copy.deepcopy(c)
        src = "".join(c["source"])
        meta = {
            "schema_version": 3,
            "grade": False,
            "solution": False,
            "locked": False,
            "task": False,
            "grade_id": f"cell_{i}",
        }
        if c["cell_type"] == "code" and "### BEGIN SOLUTION" in src:
            meta["solution"] = True
        elif c["cell_type"] == "code" and "from autograder.student.selfcheck import" in src:
            meta["locked"] = True
        else:
            meta = None  # an ordinary cell: no nbgrader metadata
        c.setdefault("metadata", {})
        if meta:
            c["metadata"]["nbgrader"] = meta
        c["metadata"]["bench_index"] = i
        cells.append(c)
        ex = exercise_of_check_cell(src) if c["cell_type"] == "code" else None
        if ex in tests:
            cells.append(
                {
                    "cell_type": "code",
                    "execution_count": None,
                    "outputs": [],
                    "id": f"test-{ex}",
                    "source": _test_source(tests[ex]),
                    "metadata": {
                        "nbgrader": {
                            "schema_version": 3,
                            "grade": True,
                            "solution": False,
                            "locked": True,
                            "task": False,
                            "points": POINTS,
                            "grade_id": f"test_{ex}",
                        }
                    },
                }
            )
    nb["cells"] = cells
    return nb


def _nbgrader_submission(release: dict, student_path: Path) -> bytes:
    """What the student would hand in had they worked in the nbgrader release: the release notebook
    (metadata, test cells) with the student's own cell sources at the same positions."""
    raw = student_path.read_bytes()
    try:
        student = json.loads(raw)
    except ValueError:
        return raw  # invalid_json stays invalid
    nb = copy.deepcopy(release)
    for c in nb["cells"]:
        i = c.get("metadata", {}).get("bench_index")
        if i is not None and i < len(student["cells"]):
            c["source"] = student["cells"][i]["source"]
    return json.dumps(nb, indent=1).encode()


def run_nbgrader(
    assignment: str, klass: list[tuple[str, Path]], work: Path, *, timeout: float, log, batch: bool = False
) -> dict:
    """`batch`: one `nbgrader autograde` over the whole class (how instructors usually run it; it
    saves nbgrader's start-up per notebook); otherwise one call per student with a timeout each."""
    bin_dir, why = ensure_venv("nbgrader", log)
    if bin_dir is None:
        return {"grader": "nbgrader", "error": why}
    course = work / "nbgrader-course"
    shutil.rmtree(course, ignore_errors=True)
    (course / "source" / assignment).mkdir(parents=True)
    (course / "nbgrader_config.py").write_text(
        "c = get_config()\n"
        f"c.CourseDirectory.root = {str(course)!r}\n"
        f"c.CourseDirectory.course_id = 'bench'\n"
        # keep nbgrader from treating a missing student as an error
        "c.Autograde.create_student = True\n"
    )
    (course / "source" / assignment / f"{assignment}.ipynb").write_text(
        json.dumps(_nbgrader_source_notebook(assignment), indent=1)
    )
    env = _peer_env(bin_dir, course / "tmp")
    nbg = str(bin_dir / "nbgrader")
    gen = _run_timed([nbg, "generate_assignment", assignment, "--force"], cwd=course, timeout=600, env=env)
    if gen["rc"] != 0:
        return {"grader": "nbgrader", "error": "nbgrader generate_assignment failed: " + gen["output"][-1500:]}
    release = json.loads((course / "release" / assignment / f"{assignment}.ipynb").read_text())
    for sid, path in klass:
        d = course / "submitted" / sid / assignment
        d.mkdir(parents=True)
        (d / f"{assignment}.ipynb").write_bytes(_nbgrader_submission(release, path))
    if batch:
        return _nbgrader_batch(assignment, klass, course, nbg, bin_dir, env, timeout=timeout, log=log)
    # One `nbgrader autograde` per student so that an external per-notebook timeout can be applied
    # (a hanging notebook would otherwise hang the whole batch).
    per = []
    for sid, _ in klass:
        r = _run_timed(
            [nbg, "autograde", assignment, "--student", sid, "--force"], cwd=course, timeout=timeout, env=env
        )
        r["id"] = sid
        per.append(r)
        log(f"[nbgrader] {sid}: {r['wall_s']:.1f} s rc={r['rc']}{' TIMEOUT' if r['timed_out'] else ''}")
    scores = _nbgrader_scores(assignment, bin_dir, course, env)
    for r in per:
        r["score"] = scores.get(r["id"])
        r.pop("output") if r["rc"] == 0 else None
    return {
        "grader": "nbgrader",
        "version": _version(bin_dir, "nbgrader"),
        "per_submission": per,
        "command": f"nbgrader autograde {assignment} --student <id> --force (one call per student, "
        f"killed after {timeout:g} s)",
    }


def _nbgrader_batch(
    assignment: str,
    klass: list[tuple[str, Path]],
    course: Path,
    nbg: str,
    bin_dir: Path,
    env: dict,
    *,
    timeout: float,
    log,
) -> dict:
    """One call for the class, killed after `timeout` per notebook in all.  nbgrader grades students one
    after the other; a student's time is estimated as the gap between consecutive autograded files."""
    start = time.time()
    r = _run_timed([nbg, "autograde", assignment, "--force"], cwd=course, timeout=timeout * len(klass), env=env)
    log(
        f"[nbgrader-batch] {len(klass)} notebooks: {r['wall_s']:.1f} s rc={r['rc']}{' TIMEOUT' if r['timed_out'] else ''}"
    )
    done = {}
    for sid, _ in klass:
        f = course / "autograded" / sid / assignment / f"{assignment}.ipynb"
        if f.is_file():
            done[sid] = f.stat().st_mtime
    scores = _nbgrader_scores(assignment, bin_dir, course, env)
    per, last = [], start
    for sid, t in sorted(done.items(), key=lambda kv: kv[1]):
        per.append(
            {
                "id": sid,
                "wall_s": t - last,
                "rc": r["rc"],
                "timed_out": False,
                "score": scores.get(sid),
                "estimated": True,
            }
        )
        last = t
    for sid, _ in klass:
        if sid not in done:  # not autograded (e.g. unreadable JSON): no time of its own to report
            per.append(
                {
                    "id": sid,
                    "wall_s": 0.0,
                    "rc": r["rc"],
                    "timed_out": r["timed_out"],
                    "score": scores.get(sid),
                    "estimated": True,
                    "not_autograded": True,
                }
            )
    return {
        "grader": "nbgrader-batch",
        "version": _version(bin_dir, "nbgrader"),
        "per_submission": per,
        "wall_s": r["wall_s"],
        "output_tail": r["output"][-1500:] if r["rc"] else "",
        "command": f"nbgrader autograde {assignment} --force (one call for the class, nbgrader's own "
        f"30 s cell timeout; per-student times estimated from the autograded files' mtimes)",
    }


def _nbgrader_scores(assignment: str, bin_dir: Path, course: Path, env: dict) -> dict:
    code = (
        "from nbgrader.api import Gradebook\n"
        f"gb = Gradebook('sqlite:///{course}/gradebook.db')\n"
        "import json; out = {}\n"
        f"for s in gb.assignment_submissions({assignment!r}):\n"
        "    out[s.student.id] = s.score\n"
        "print(json.dumps(out)); gb.close()\n"
    )
    r = subprocess.run([str(bin_dir / "python"), "-c", code], capture_output=True, text=True, env=env, cwd=course)
    try:
        return json.loads(r.stdout.strip().splitlines()[-1])
    except (ValueError, IndexError):
        return {}


# ------------------------------------------------------------------------------------------- otter
def _otter_tests(assignment: str, tests_dir: Path) -> None:
    tests_dir.mkdir(parents=True, exist_ok=True)
    for name, lines in TESTS[assignment]:
        code = "".join(f">>> {line}\n" for line in lines)
        test = {
            "name": name,
            "points": POINTS,
            "suites": [
                {
                    "cases": [{"code": code, "hidden": False, "locked": False}],
                    "scored": True,
                    "setup": "",
                    "teardown": "",
                    "type": "doctest",
                }
            ],
        }
        (tests_dir / f"{name}.py").write_text("OK_FORMAT = True\n\ntest = " + repr(test) + "\n")


def run_otter(assignment: str, klass: list[tuple[str, Path]], work: Path, *, timeout: float, log) -> dict:
    bin_dir, why = ensure_venv("otter", log)
    if bin_dir is None:
        return {"grader": "otter", "error": why}
    root = work / "otter"
    shutil.rmtree(root, ignore_errors=True)
    root.mkdir(parents=True)
    _otter_tests(assignment, root / "tests")
    (root / "requirements.txt").write_text("")
    env = _peer_env(bin_dir, root / "tmp")
    otter = str(bin_dir / "otter")
    zip_path = root / "autograder.zip"
    gen = _run_timed(
        [
            otter,
            "generate",
            "-t",
            "tests",
            "-o",
            str(zip_path),
            "-r",
            "requirements.txt",
            "--no-environment",
            "--no-config",
        ],
        cwd=root,
        timeout=600,
        env=env,
    )
    if gen["rc"] != 0 or not zip_path.is_file():
        return {"grader": "otter", "error": "otter generate failed: " + gen["output"][-1500:]}
    per = []
    for sid, path in klass:
        d = root / "subs" / sid
        d.mkdir(parents=True)
        sub = d / f"{sid}.ipynb"
        shutil.copyfile(path, sub)
        r = _run_timed(
            [otter, "run", "--no-logo", "-a", str(zip_path), "-o", str(d), str(sub)], cwd=d, timeout=timeout, env=env
        )
        r["id"] = sid
        res = d / "results.json"
        r["score"] = None
        if res.is_file():
            try:
                data = json.loads(res.read_text())
                r["score"] = (
                    sum(t.get("score", 0) or 0 for t in data.get("tests", [])) if "tests" in data else data.get("score")
                )
            except ValueError:
                pass
        per.append(r)
        r.pop("output") if r["rc"] == 0 else None
        log(f"[otter] {sid}: {r['wall_s']:.1f} s rc={r['rc']}{' TIMEOUT' if r['timed_out'] else ''} score={r['score']}")
    return {
        "grader": "otter",
        "version": _version(bin_dir, "otter-grader"),
        "per_submission": per,
        "command": f"otter run -a autograder.zip -o <dir> <submission>.ipynb (one call per submission, "
        f"killed after {timeout:g} s)",
    }
