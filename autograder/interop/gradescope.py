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

Isolation: student code runs under bubblewrap when it works in the container
(`setup.sh` installs it), otherwise with rlimits only -- then student code runs as the
same user as the grader and could touch `/autograder/results`; `run_autograder` says so in
the results' `output`.  Set `AUTOGRADER_REQUIRE_SANDBOX=1` to refuse to grade instead.

The results follow Gradescope's schema exactly: its own keys at the top and in each test,
everything else of the kit's (status, versions, isolation, late penalty) under `extra_data`.
The late policy is the manifest's `[deadline]`, applied to the submission time Gradescope
writes in `submission_metadata.json`, exactly as the LMS exports apply it.
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
from autograder.report.escape import terminal

SETUP_SH = """#!/usr/bin/env bash
# Gradescope runs this once when it builds the autograder image (Ubuntu).
set -euxo pipefail
export DEBIAN_FRONTEND=noninteractive
apt-get update
apt-get install -y --no-install-recommends python3 python3-pip python3-venv bubblewrap
python3 -m venv /autograder/venv
/autograder/venv/bin/pip install --no-cache-dir --index-url https://download.pytorch.org/whl/cpu "torch{torch_spec}"
/autograder/venv/bin/pip install --no-cache-dir "numpy>=1.24" "nbformat>=5.9" "ipython>=8.0" "pytest>=7.4" \
    "tomli>=2; python_version < '3.11'" "tqdm>=4.60" "pandas>=2.0" "matplotlib>=3.7"  # pyproject's grader extra
# the grader package must be importable under `python -I` (how workers start): a .pth file, not PYTHONPATH
SITE=$(/autograder/venv/bin/python -c 'import sysconfig; print(sysconfig.get_paths()["purelib"])')
echo /autograder/source > "$SITE/torch-course-autograder.pth"
"""

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


def build_autograder_zip(kit: Path, assignment: str, out: Path, *, secret: bytes | None,
                         torch_spec: str | None = None, allow_public_seeds: bool = False) -> Path:
    """Write `out` (a zip to upload as the assignment's autograder); returns its path.

    Without `secret`, hidden inputs would derive from the kit's public default seed and anyone with
    the kit could precompute them: refused unless `allow_public_seeds` says the instructor knows."""
    from autograder.assignment import load_assignment

    if not secret and not allow_public_seeds:
        raise MissingSecret("no course secret: hidden test inputs would come from the kit's public default seed. "
                            "Pass --secret-file FILE (or set AUTOGRADER_SECRET), or --allow-public-seeds "
                            "to build it anyway")
    torch_spec = torch_spec or tested_torch_spec()
    a = load_assignment(assignment, kit)
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
        add_file(zf, "setup.sh", SETUP_SH.replace("{torch_spec}", torch_spec).encode(), executable=True)
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
        add_file(zf, "gradescope.json", json.dumps({"assignment": a.id, "version": a.version(),
                                                     "grader_version": autograder.__version__}).encode())
        if secret:
            add_file(zf, "secret", secret)
    os.replace(tmp, out)
    return out


def _choose_notebook(submission: Path, assignment: str) -> Path | None:
    found = [p for p in sorted(submission.rglob("*.ipynb"))
             if p.is_file() and ".ipynb_checkpoints" not in p.parts and "__MACOSX" not in p.parts]
    if not found:
        return None
    for p in found:
        if p.name == f"{assignment}.ipynb":
            return p
    return max(found, key=lambda p: p.stat().st_mtime)


def _failure(message: str, t0: float) -> dict:
    return {"score": 0.0, "execution_time": round(time.monotonic() - t0, 3), "output": message,
            "visibility": "visible", "stdout_visibility": "hidden", "tests": [],
            "extra_data": {"status": "crashed", "message": message}}


# Gradescope's results.json keys (https://gradescope-autograders.readthedocs.io, "Output format").
TOP_KEYS = frozenset({"score", "execution_time", "output", "output_format", "test_output_format",
                      "test_name_format", "visibility", "stdout_visibility", "extra_data", "tests", "leaderboard"})
TEST_KEYS = frozenset({"score", "max_score", "status", "name", "name_format", "number", "output",
                       "output_format", "tags", "visibility", "extra_data"})


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
    from autograder.score.late import LatePolicyError, parse_time

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


def apply_late(data: dict, manifest: Path, metadata: dict | None) -> dict:
    """The manifest's late policy on a results.json, the submitter's extension included (keyed by sid,
    email or Gradescope id); the raw score and the explanation are kept for the student to read."""
    from autograder.score.late import apply_late_policy, load_policy

    policy = load_policy(manifest)
    if policy is None or not metadata:
        return data
    when, ids = submission_identity(metadata)
    if when is None:
        return data
    student = next((i for i in ids if i in policy.extensions), ids[0] if ids else None)
    late = apply_late_policy(data["score"], data.get("max_score") or 0.0, when, policy, student_id=student)
    data = dict(data)
    data["score"] = late.score
    data["late"] = {"raw_score": late.raw_score, "penalty": late.penalty, "late": late.late,
                    "late_by_seconds": late.late_by.total_seconds(), "explanation": late.explanation}
    if late.explanation:
        data["output"] = f"{data.get('output', '')} · {late.explanation}".lstrip(" ·")
    return data


def _read_metadata(root: Path) -> dict | None:
    from autograder.intake.lms import read_metadata

    return read_metadata(root / "submission_metadata.json") or None


def run(root: Path) -> dict:
    """Grade /autograder/submission; write /autograder/results/results.json; return what was written."""
    from autograder.report.files import write_json

    t0 = time.monotonic()
    results_path = root / "results" / "results.json"
    try:
        from autograder.assignment import load_assignment
        from autograder.execute.sandbox import choose_isolation
        from autograder.judge.session import GradeOptions, close_references, grade_notebook

        kit = root / "source"
        meta = json.loads((kit / "gradescope.json").read_text(encoding="utf-8"))
        assignment = load_assignment(meta["assignment"], kit)
        notebook = _choose_notebook(root / "submission", assignment.id)
        if notebook is None:
            data = _failure(f"No notebook (.ipynb) found in your submission; please upload {assignment.id}.ipynb.", t0)
            data["extra_data"]["max_score"] = assignment.total_points
            write_json(results_path, data)
            return data
        require = os.environ.get("AUTOGRADER_REQUIRE_SANDBOX") == "1"
        isolation = choose_isolation(allow_weak=not require)
        options = GradeOptions(device="cpu", isolation=isolation,
                               cache_dir=Path(os.environ.get("AUTOGRADER_CACHE", kit / ".cache" / "reference")))
        try:
            result = grade_notebook(assignment, notebook, submission_id="submission", source=notebook.name,
                                    options=options)
        finally:
            close_references()
        data = apply_late(result.to_results_json(), assignment.root / "manifest.toml", _read_metadata(root))
        if not isolation.name.startswith("bubblewrap"):
            data["output"] += " · note: graded without a sandbox (bubblewrap unavailable in this container)"
        data = to_gradescope_schema(data)
    except Exception:  # noqa: BLE001 - Gradescope must always get a results.json
        print(traceback.format_exc(), file=sys.stderr)
        data = _failure("The autograder failed on this submission; your instructor has been told. "
                        "Please contact them.", t0)
    write_json(results_path, data)
    return data


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(prog="python -m autograder.interop.gradescope")
    p.add_argument("--root", type=Path, default=Path(os.environ.get("AUTOGRADER_ROOT", "/autograder")))
    args = p.parse_args(argv)
    data = run(args.root.resolve())
    print(terminal(data.get("output", "")))  # the summary line quotes the submission's status message
    return 0


def simulate(zip_path: Path, submission: Path, root: Path, *, python: str | None = None, timeout: float = 600,
             metadata: dict | None = None) -> dict:
    """Lay out `root` as Gradescope does (source/, submission/, results/), run run_autograder, return results.json."""
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
    env = {**os.environ, "AUTOGRADER_ROOT": str(root), "AUTOGRADER_PYTHON": python or sys.executable}
    env.pop("PYTHONPATH", None)
    subprocess.run(["bash", str(root / "run_autograder")], env=env, timeout=timeout, check=False,
                   capture_output=True, cwd=root)
    return json.loads((root / "results" / "results.json").read_text(encoding="utf-8"))


if __name__ == "__main__":
    raise SystemExit(main())
