"""Gradescope: build an `autograder.zip`, and the entry point its `run_autograder` calls.

The zip unpacks into `/autograder/source` and holds `setup.sh`, `run_autograder`, the
grader package (`autograder/`), the assignment (`assignments/<id>/`: manifest, probes,
public and hidden tests), the reference (`solutions/<id>.ipynb`) and `gradescope.json`
(which assignment, built from which version).  Gradescope copies `run_autograder` to
`/autograder/run_autograder` and runs it; it grades the notebook in
`/autograder/submission` and writes `/autograder/results/results.json` (Gradescope's
schema, which `SubmissionResult.to_results_json` already follows).

The root is `/autograder` unless `$AUTOGRADER_ROOT` says otherwise (tests use a temporary
directory), and the Python is `$AUTOGRADER_PYTHON` or `python3`.

Isolation: student code runs under bubblewrap (`setup.sh` installs it).  Where bubblewrap cannot
run in the container, grading is refused (the submission gets a result saying it was not graded,
not a score) unless the zip was built with `--allow-weak-isolation`, the instructor's written
acceptance of the risk.  Even then the worker is a plain process of another user (`nobody`, uid
65534; the master's worker 65533), and before any notebook runs everything of the zip but the grader
package and `probes.py` is made readable by root alone: the course secret, the master notebook, the
hidden tests, the reference answers, `gradescope.json` and Gradescope's metadata (`protect`).  The
results' `output` says the submission was graded without a sandbox.

Packages: `setup.sh` installs, pinned to the versions this kit was tested with, the grader's runtime
and exactly the third-party modules the assignment imports (master notebook, probes, tests): `triton`
for 02b_kernels, `pandas` and `matplotlib` for 04_fit_api (`requirements`), and TensorFlow with Keras
for an assignment whose manifest says `framework = "tensorflow"` (its workers import both before any
notebook runs, whatever the notebook imports), into a virtualenv of the same Python minor version as the
machine that built the zip (the pins are for it).

Before the student's notebook, the master is graded through the reference (as `grade` does): it fills
the reference answers and proves the master scores full marks in this container; if it does not
(a package missing, a broken install), the submission is not graded and the output says why.

The results follow Gradescope's schema exactly: its own keys at the top and in each test,
everything else of the kit's (status, versions, isolation, late penalty) under `extra_data`.
The late policy is the one every export applies (`config.late.assignment_policy`: the manifest's
`[deadline]` with course.toml's deadline and extensions over it), resolved when the zip is built and
kept in `gradescope.json`; an extension keyed by any id the roster holds for a student is kept under
each of their ids, so the sid, email or Gradescope id in `submission_metadata.json` finds it.  It is
applied to the submission time Gradescope writes there, exactly as the LMS exports apply it.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import stat
import sys
import time
import traceback
import zipfile
from datetime import datetime
from pathlib import Path

import autograder
from autograder.config.assignment import load_assignment
from autograder.config.compat import tomllib
from autograder.config.course import parse_variants
from autograder.config.deadline import LatePolicyError, parse_time
from autograder.config.files import write_json
from autograder.config.secret import Secret, find_secret
from autograder.execute.sandbox import RlimitsOnly
from autograder.grades.late import apply_late_policy
from autograder.intake.downloads import gradescope_student, read_metadata
from autograder.notebook.imports import assignment_imports
from autograder.probe.seeds import Seeds
from autograder.report.escape import terminal

SETUP_SH = """#!/usr/bin/env bash
# Gradescope runs this once when it builds the autograder image (Ubuntu; {python} must be among its
# packages: Ubuntu 22.04 has python3.11, 24.04 python3.12).  The versions are those the kit was tested with.
set -euxo pipefail
export DEBIAN_FRONTEND=noninteractive
apt-get update
apt-get install -y --no-install-recommends {python} {python}-venv bubblewrap
{python} -m venv /autograder/venv
/autograder/venv/bin/pip install --no-cache-dir --index-url https://download.pytorch.org/whl/cpu "torch{torch_spec}"
# the grader's runtime, and what {assignment} imports
/autograder/venv/bin/pip install --no-cache-dir {requirements}
# the grader package must be importable under `python -I` (how workers start): a .pth file, not PYTHONPATH
SITE=$(/autograder/venv/bin/python -c 'import sysconfig; print(sysconfig.get_paths()["purelib"])')
echo /autograder/source > "$SITE/torch-course-autograder.pth"
"""
# What grading itself imports in the container (worker and judge), besides torch; the `grader` extra of
# pyproject.toml (tqdm, pandas, matplotlib) is what book-style notebooks may import and grading promises.
GRADER_RUNTIME = ("numpy", "nbformat", "ipython", "pytest", "tqdm", "pandas", "matplotlib")
WEAK_OPT_IN = "allow_weak_isolation"  # gradescope.json: the instructor accepted grading without a sandbox
WORKER_UID, REFERENCE_UID = 65534, 65533  # the student's and the master's worker, without a sandbox

RUN_AUTOGRADER = """#!/usr/bin/env bash
# Gradescope runs this (copied to /autograder/run_autograder) once per submission.
set -u
ROOT="${AUTOGRADER_ROOT:-/autograder}"
PY="${AUTOGRADER_PYTHON:-}"
if [ -z "$PY" ]; then
  if [ -x "$ROOT/venv/bin/python" ]; then PY="$ROOT/venv/bin/python"; else PY=python3; fi
fi
cd "$ROOT"
if [ -f "$ROOT/source/secret" ]; then export AUTOGRADER_SECRET_FILE="$ROOT/source/secret"; fi
# setup.sh made the grader importable (a .pth file); workers start with `python -I`, which ignores PYTHONPATH
exec "$PY" -m autograder.interop.gradescope --root "$ROOT"
"""


def tested_torch_spec() -> str:
    """`==X.Y.Z` of the torch this kit runs with: the version its tests passed on (local tags dropped)."""
    import torch

    return "==" + torch.__version__.split("+")[0]


class MissingSecret(ValueError):
    """A Gradescope zip without a course secret would seed hidden tests from a public default."""


class CannotPin(ValueError):
    """The assignment imports a module that is not installed here, so its version cannot be pinned."""


def requirements(assignment) -> list[str]:
    """`name==version` for the grader's runtime and every third-party module the assignment imports,
    at the versions installed here (the ones the kit's tests passed with); torch is pinned apart."""
    from importlib import metadata

    owners = metadata.packages_distributions()
    dists = set(GRADER_RUNTIME) | ({"tomli"} if sys.version_info < (3, 11) else set())

    # TensorFlow's workers import Keras and ml_dtypes (pinned below 0.7 by the `tensorflow` extra: 0.55 s of CPU
    # more at each start) before any notebook runs
    framework = {"tensorflow", "keras", "ml_dtypes"} if assignment.framework.name == "tensorflow" else set()
    for module in sorted((set(assignment_imports(assignment)) | framework) - {"autograder", "torch"}):
        found = owners.get(module)
        if not found:
            raise CannotPin(
                f"{assignment.id} imports {module!r}, which is not installed here: install it (the "
                "version the assignment is tested with) so the Gradescope zip can pin it"
            )
        dists.add(found[0])
    pins = []
    for dist in sorted(dists - {"torch", "torch-course-autograder"}, key=str.lower):
        try:
            pins.append(f"{dist}=={metadata.version(dist)}")
        except metadata.PackageNotFoundError:
            raise CannotPin(f"{dist} is not installed here, so its version cannot be pinned") from None
    return pins


def _deadline(assignment, course, roster) -> dict | None:
    """The late policy's table (manifest, then course.toml), JSON-ready, with each extension also kept
    under every id the roster holds for its student (Gradescope knows students by sid, email, id)."""

    manifest = tomllib.loads((assignment.root / "manifest.toml").read_text(encoding="utf-8")).get("deadline")
    table = course.deadline(assignment.id, manifest) if course is not None else manifest
    if not table:
        return None
    table = {k: (v.isoformat() if hasattr(v, "isoformat") else v) for k, v in table.items()}
    extensions = {
        str(k): (v.isoformat() if hasattr(v, "isoformat") else v) for k, v in (table.get("extensions") or {}).items()
    }
    for key, value in list(extensions.items()):
        who = roster.find(key) if roster is not None else None
        for other in who.ids() if who is not None else ():
            extensions.setdefault(other, value)
    if extensions:
        table["extensions"] = extensions
    return table


def build_autograder_zip(
    kit: Path,
    assignment: str,
    out: Path,
    *,
    secret: bytes | None,
    torch_spec: str | None = None,
    allow_public_seeds: bool = False,
    allow_weak_isolation: bool = False,
    course=None,
    roster=None,
) -> Path:
    """Write `out` (a zip to upload as the assignment's autograder); returns its path.

    Without `secret`, hidden inputs would derive from the kit's public default seed and anyone with
    the kit could precompute them: refused unless `allow_public_seeds` says the instructor knows.
    `allow_weak_isolation`: grade where bubblewrap cannot run (see the module's docstring).  `course`
    (`course.Course`) and `roster` (`intake.roster.Roster`): the deadline and extensions to apply."""

    if not secret and not allow_public_seeds:
        raise MissingSecret(
            "no course secret: hidden test inputs would come from the kit's public default seed. "
            "Pass --secret-file FILE (or set AUTOGRADER_SECRET), or --allow-public-seeds "
            "to build it anyway"
        )
    torch_spec = torch_spec or tested_torch_spec()
    a = load_assignment(assignment, kit)
    setup = (
        SETUP_SH.replace("{torch_spec}", torch_spec)
        .replace("{assignment}", a.id)
        .replace("{python}", f"python{sys.version_info.major}.{sys.version_info.minor}")
        .replace("{requirements}", " \\\n    ".join(f'"{r}"' for r in requirements(a)))
    )

    variants = course.variants() if course is not None else None  # a bad course setting is refused here
    settings = {
        "assignment": a.id,
        "version": a.version(),
        "grader_version": autograder.__version__,
        "deadline": _deadline(a, course, roster),
        WEAK_OPT_IN: allow_weak_isolation,
        "variants": "" if variants is None else str(variants),
    }
    pkg = Path(autograder.__file__).resolve().parent
    out.parent.mkdir(parents=True, exist_ok=True)
    tmp = out.with_name(f".{out.name}.tmp")

    def add_file(zf: zipfile.ZipFile, arc: str, data: bytes, executable: bool = False) -> None:
        info = zipfile.ZipInfo(arc, date_time=(2020, 1, 1, 0, 0, 0))
        info.external_attr = ((0o755 if executable else 0o644) | stat.S_IFREG) << 16
        info.compress_type = zipfile.ZIP_DEFLATED
        zf.writestr(info, data)

    def add_tree(zf: zipfile.ZipFile, root: Path, arc_root: str) -> None:
        for p in sorted(root.rglob("*")):
            if p.is_file() and "__pycache__" not in p.parts and p.suffix not in (".pyc", ".pyo"):
                add_file(zf, f"{arc_root}/{p.relative_to(root).as_posix()}", p.read_bytes())

    with zipfile.ZipFile(tmp, "w") as zf:
        add_file(zf, "setup.sh", setup.encode(), executable=True)
        add_file(zf, "run_autograder", RUN_AUTOGRADER.encode(), executable=True)
        add_tree(zf, pkg, "autograder")
        add_file(zf, f"assignments/{a.id}/manifest.toml", (a.root / "manifest.toml").read_bytes())
        add_file(zf, f"assignments/{a.id}/probes.py", a.probes.read_bytes())
        for folder in (a.public_dir, a.hidden_dir):
            if folder.is_dir():
                add_tree(zf, folder, f"assignments/{a.id}/{folder.name}")
        for extra in ("conftest.py", "data"):
            p = a.root / extra
            if p.is_file():
                add_file(zf, f"assignments/{a.id}/{extra}", p.read_bytes())
            elif p.is_dir():
                add_tree(zf, p, f"assignments/{a.id}/{extra}")
        add_file(zf, f"solutions/{a.id}.ipynb", a.solution.read_bytes())
        add_file(zf, "gradescope.json", json.dumps(settings).encode())
        if secret:
            add_file(zf, "secret", secret)
    os.replace(tmp, out)
    return out


def _choose_notebook(submission: Path, assignment: str) -> Path | None:
    """The notebook to grade: `<assignment>.ipynb`, else the newest.  A link is never followed: an upload
    may hold one (zips keep them), pointing at the master in `source/`."""
    inside = submission.resolve()
    found = [
        p
        for p in sorted(submission.rglob("*.ipynb"))
        if p.is_file()
        and not p.is_symlink()
        and inside in p.resolve().parents
        and ".ipynb_checkpoints" not in p.parts
        and "__MACOSX" not in p.parts
    ]
    if not found:
        return None
    for p in found:
        if p.name == f"{assignment}.ipynb":
            return p
    return max(found, key=lambda p: p.stat().st_mtime)


def _failure(message: str, t0: float) -> dict:
    return {
        "score": 0.0,
        "execution_time": round(time.monotonic() - t0, 3),
        "output": message,
        "visibility": "visible",
        "stdout_visibility": "hidden",
        "tests": [],
        "extra_data": {"status": "crashed", "message": message},
    }


# Gradescope's results.json keys (https://gradescope-autograders.readthedocs.io, "Output format").
TOP_KEYS = frozenset(
    {
        "score",
        "execution_time",
        "output",
        "output_format",
        "test_output_format",
        "test_name_format",
        "visibility",
        "stdout_visibility",
        "extra_data",
        "tests",
        "leaderboard",
    }
)
TEST_KEYS = frozenset(
    {
        "score",
        "max_score",
        "status",
        "name",
        "name_format",
        "number",
        "output",
        "output_format",
        "tags",
        "visibility",
        "extra_data",
    }
)


def to_gradescope_schema(data: dict) -> dict:
    """Gradescope's keys where Gradescope reads them; every other key of the kit under `extra_data`."""
    out = {k: v for k, v in data.items() if k in TOP_KEYS}
    out["extra_data"] = {**data.get("extra_data", {}), **{k: v for k, v in data.items() if k not in TOP_KEYS}}
    out["tests"] = []
    for t in data.get("tests", []):
        entry = {k: v for k, v in t.items() if k in TEST_KEYS}
        extra = {k: v for k, v in t.items() if k not in TEST_KEYS}
        if extra:
            entry["extra_data"] = {**t.get("extra_data", {}), **extra}
        out["tests"].append(entry)
    return out


def submission_identity(metadata: dict) -> tuple[datetime | None, list[str]]:
    """The submission time and the submitter's ids (sid, email, Gradescope id) from submission_metadata.json."""

    try:
        when = parse_time(metadata["created_at"]) if metadata.get("created_at") else None
    except LatePolicyError:
        when = None
    ids: list[str] = []
    users = metadata.get("users")
    for user in users if type(users) is list else []:
        if isinstance(user, dict):
            ids += [str(user[k]) for k in ("sid", "email", "id") if user.get(k) not in (None, "")]
    return when, ids


def apply_late(data: dict, policy, metadata: dict | None) -> dict:
    """The late policy (`config.late.LatePolicy`, or None) on a results.json, the submitter's extension
    included (keyed by any of their sid, email or Gradescope id); the raw score and the explanation
    are kept for the student to read."""

    if policy is None or not metadata:
        return data
    when, ids = submission_identity(metadata)
    if when is None:
        return data
    late = apply_late_policy(data["score"], data.get("max_score") or 0.0, when, policy, student_id=ids)
    data = dict(data)
    data["score"] = late.score
    data["late"] = {
        "raw_score": late.raw_score,
        "penalty": late.penalty,
        "late": late.late,
        "late_by_seconds": late.late_by.total_seconds(),
        "explanation": late.explanation,
    }
    if late.explanation:
        data["output"] = f"{data.get('output', '')} · {late.explanation}".lstrip(" ·")
    return data


def _read_metadata(root: Path) -> dict | None:
    return read_metadata(root / "submission_metadata.json") or None


class OtherUser:
    """No sandbox: the worker is a plain process with rlimits (`RlimitsOnly`), run as another user than the
    grader (root), so files only root may read stay out of its reach (`protect`).  Made by `weak_isolation`."""


def weak_isolation(uid: int):
    """`RlimitsOnly` whose workers drop to `uid` (and its group, no others) before the worker starts."""

    class _OtherUser(RlimitsOnly, OtherUser):
        name = "rlimits-other-user"

        def new_workdir(self) -> Path:
            workdir = super().new_workdir()
            os.chown(workdir, uid, uid)
            return workdir

        def spawn(self, workdir, probes, limits, env, wire_limits):
            from autograder.execute import interpreter
            from autograder.execute.process import WorkerProcess

            return WorkerProcess.launch(
                argv_prefix=[interpreter.executable(), "-I", "-c", _DROP, str(uid)],
                workdir=workdir,
                env=env,
                output_cap=limits.output_kb * 1024,
                limits=wire_limits,
            )

    return _OtherUser()


# become `uid` (group too, no supplementary groups), then the worker: `python -I -c _DROP UID PYTHON ARGS...`
_DROP = (
    "import os, sys; u = int(sys.argv[1]); os.setgroups([]); os.setresgid(u, u, u); os.setresuid(u, u, u); "
    "os.execv(sys.argv[2], sys.argv[2:])"
)


def protect(root: Path, assignment: str) -> None:
    """Make everything of the Gradescope layout readable by root alone, except what a worker must read
    (the grader package, the assignment's `probes.py`) and the folders on the way to it (enter, not list):
    the course secret, the master, the hidden tests, the reference cache, the settings and the metadata."""
    keep = [root / "source" / "autograder", root / "source" / "assignments" / assignment / "probes.py"]
    ways = {q for k in keep for q in k.parents if q == root or root in q.parents}
    for path in [root, *sorted(root.rglob("*"))]:
        if path.is_symlink() or path == root / "venv" or root / "venv" in path.parents:
            continue
        shared = any(path == k or k in path.parents for k in keep)
        if path.is_dir():
            path.chmod(0o755 if shared else 0o711 if path in ways else 0o700)
        else:
            path.chmod(0o644 if shared else 0o600)


def run(root: Path) -> dict:
    """Grade /autograder/submission; write /autograder/results/results.json; return what was written."""

    t0 = time.monotonic()
    results_path = root / "results" / "results.json"
    try:
        from autograder.config.assignment import load_assignment
        from autograder.config.deadline import LatePolicy, load_policy
        from autograder.execute.sandbox import SandboxUnavailable, choose_isolation
        from autograder.judge.gate import MasterFailed, check_master
        from autograder.judge.session import GradeOptions, close_references, grade_notebook, release_reference_workers

        kit = root / "source"
        meta = json.loads((kit / "gradescope.json").read_text(encoding="utf-8"))
        assignment = load_assignment(meta["assignment"], kit)
        notebook = _choose_notebook(root / "submission", assignment.id)
        if notebook is None:
            data = _failure(f"No notebook (.ipynb) found in your submission; please upload {assignment.id}.ipynb.", t0)
            data["extra_data"]["max_score"] = assignment.total_points
            write_json(results_path, data)
            return data
        cache = Path(os.environ.get("AUTOGRADER_CACHE", kit / ".cache" / "reference"))
        cache.mkdir(parents=True, exist_ok=True)
        try:
            isolation = reference_isolation = choose_isolation(allow_weak=False)
        except SandboxUnavailable as e:
            if not meta.get(WEAK_OPT_IN):
                print(
                    f"autograder: {e}. Grading without a sandbox is refused: rebuild the zip with "
                    "`autograder gradescope ... --allow-weak-isolation` to accept it (docs/interop.md).",
                    file=sys.stderr,
                )
                return _refuse("no sandbox can run in this container", t0, results_path)
            if os.geteuid() != 0:
                print(
                    "autograder: grading without a sandbox needs root, to run student code as another user "
                    "than the one that can read the course secret and the master",
                    file=sys.stderr,
                )
                return _refuse("no sandbox can run in this container", t0, results_path)
            protect(root, assignment.id)
            isolation, reference_isolation = weak_isolation(WORKER_UID), weak_isolation(REFERENCE_UID)
        metadata = _read_metadata(root)
        secret = find_secret()  # the run script names the zip's secret file (AUTOGRADER_SECRET_FILE)
        variant = _variant(secret, assignment.id, metadata, meta.get("variants", ""))
        try:
            # the master first, through the reference, in a worker of its own (another uid without a sandbox):
            # it fills the answers the student's tests compare with, then stops before the student's code runs
            reference = grade_notebook(
                assignment,
                assignment.solution,
                submission_id="__reference__",
                options=GradeOptions(device="cpu", isolation=reference_isolation, cache_dir=cache, secret=secret),
                as_reference=True,
                variant=variant,
            )
            release_reference_workers()
            try:
                check_master(reference)  # the gate a class is graded behind
            except MasterFailed as e:
                print(f"autograder: {str(e)[:3000]}", file=sys.stderr)
                return _refuse("the master notebook does not score full marks in this container", t0, results_path)
            # the same kind of isolation (reference_for's key): misses are answered by the master's worker above
            result = grade_notebook(
                assignment,
                notebook,
                submission_id="submission",
                source=notebook.name,
                options=GradeOptions(device="cpu", isolation=isolation, cache_dir=cache, secret=secret),
                variant=variant,
            )
        finally:
            close_references()
        policy = (
            LatePolicy.from_table(meta["deadline"])
            if "deadline" in meta
            else load_policy(assignment.root / "manifest.toml")
        )
        data = apply_late(result.to_results_json(), policy, metadata)
        if isinstance(isolation, OtherUser):
            data["output"] += (
                " · note: graded without a sandbox (bubblewrap cannot run in this container; the instructor allowed it)"
            )
        data = to_gradescope_schema(data)
    except Exception:  # noqa: BLE001 - Gradescope must always get a results.json
        print(traceback.format_exc(), file=sys.stderr)
        data = _failure(
            "The autograder failed on this submission; your instructor has been told. Please contact them.", t0
        )
    write_json(results_path, data)
    return data


def _variant(secret: Secret, assignment: str, metadata: dict | None, variants: str) -> str:
    """The submitter's variant of the hidden inputs (course.toml's `variants`, kept in gradescope.json), keyed
    by the student id the Gradescope intake gives them: the same inputs on every resubmission."""

    users = (metadata or {}).get("users")
    user = users[0] if type(users) is list and users and type(users[0]) is dict else {}
    return Seeds.for_course(secret, assignment).variant_of(
        gradescope_student(user), parse_variants(variants) if variants else None
    )


def _refuse(why: str, t0: float, results_path: Path) -> dict:
    """Not graded, for a reason of the grader's (never a score the student earned): said so to the student."""

    data = _failure(
        f"Your submission was not graded: {why}. This is not your fault and your instructor "
        "has been told; you do not need to resubmit.",
        t0,
    )
    data["extra_data"]["status"] = "not graded"
    write_json(results_path, data)
    return data


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(prog="python -m autograder.interop.gradescope")
    p.add_argument("--root", type=Path, default=Path(os.environ.get("AUTOGRADER_ROOT", "/autograder")))
    args = p.parse_args(argv)
    data = run(args.root.resolve())
    print(terminal(data.get("output", "")))  # the summary line quotes the submission's status message
    return 0


def simulate(
    zip_path: Path,
    submission: Path,
    root: Path,
    *,
    python: str | None = None,
    timeout: float = 600,
    metadata: dict | None = None,
    env: dict[str, str] | None = None,
) -> dict:
    """Lay out `root` as Gradescope does (source/, submission/, results/), run run_autograder, return
    results.json.  `env`: variables to set for run_autograder (e.g. a PATH without bubblewrap)."""
    import subprocess

    if root.exists():
        shutil.rmtree(root)
    (root / "source").mkdir(parents=True)
    (root / "submission").mkdir()
    (root / "results").mkdir()
    with zipfile.ZipFile(zip_path) as zf:
        zf.extractall(root / "source")
    shutil.copy2(root / "source" / "run_autograder", root / "run_autograder")
    (root / "run_autograder").chmod(0o755)
    if submission.is_dir():
        shutil.copytree(submission, root / "submission", dirs_exist_ok=True)
    else:
        shutil.copy2(submission, root / "submission" / submission.name)
    if metadata is not None:
        (root / "submission_metadata.json").write_text(json.dumps(metadata), encoding="utf-8")
    env = {**os.environ, "AUTOGRADER_ROOT": str(root), "AUTOGRADER_PYTHON": python or sys.executable, **(env or {})}
    env.pop("PYTHONPATH", None)
    done = subprocess.run(
        ["/bin/bash", str(root / "run_autograder")],
        env=env,
        timeout=timeout,
        check=False,
        capture_output=True,
        cwd=root,
    )
    (root / "run_autograder.log").write_bytes(done.stdout + done.stderr)  # what Gradescope shows the instructor
    return json.loads((root / "results" / "results.json").read_text(encoding="utf-8"))


if __name__ == "__main__":
    raise SystemExit(main())
