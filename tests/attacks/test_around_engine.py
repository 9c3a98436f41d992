"""Attacks on the paths around the grading engine: who a file is, `validate`, and the Gradescope zip.

* Identity comes only from what the LMS wrote: a student names their own file, never whose it is.  Each
  layout (Moodle folders and flat, Canvas, nbgrader, Gradescope, a plain folder) is tried with a file
  named to claim a classmate.
* `autograder validate` runs a student's notebook in the sandboxed worker, with no secret in its
  environment, and decides from outside it: reading the course secret, writing outside its folder and
  patching the checker in the notebook change nothing.
* The Gradescope autograder refuses to grade without a sandbox unless the instructor opted in, and even
  then the worker cannot read the course secret or the master notebook.
"""

from __future__ import annotations

import json
import zipfile
from pathlib import Path

import nbformat

from autograder.intake.downloads import unpack

T0 = (2026, 10, 1, 20, 0, 0)
T1 = (2026, 10, 2, 9, 30, 0)  # later: a spoofing file uploaded after the victim's


def nb_bytes(tag: str) -> bytes:
    return nbformat.writes(nbformat.v4.new_notebook(cells=[nbformat.v4.new_code_cell(f"TAG = {tag!r}")])).encode()


def make_zip(path: Path, members: list[tuple[str, bytes, tuple]]) -> Path:
    with zipfile.ZipFile(path, "w") as zf:
        for name, data, when in members:
            zf.writestr(zipfile.ZipInfo(name, date_time=when), data)
    return path


def graded(batch) -> dict[str, str]:
    """{lms or student id: the TAG of the notebook graded for them} for every gradable entry."""
    out = {}
    for e in batch.entries:
        if not e.submission.problem:
            key = e.identity.lms_user_id or e.identity.student_id
            out[key] = nbformat.read(e.submission.path, as_version=4).cells[0].source
    return out


# ------------------------------------------------------------------------------------------- Moodle


def test_moodle_flat_file_name_claiming_another_participant(tmp_path):
    """Participant 1002 uploads `x_1001_assignsubmission_file_01_tensors.ipynb` after 1001 submitted: the
    greedy parse gave the file to 1001, whose real work was 'superseded (not graded)'."""
    z = make_zip(
        tmp_path / "moodle.zip",
        [
            ("Alice Victim_1001_assignsubmission_file_01_tensors.ipynb", nb_bytes("alice"), T0),
            (
                "Mallory Spoof_1002_assignsubmission_file_x_1001_assignsubmission_file_01_tensors.ipynb",
                nb_bytes("mallory"),
                T1,
            ),
        ],
    )
    batch = unpack(z, tmp_path / "s", fmt="moodle")
    assert graded(batch) == {"1001": "TAG = 'alice'", "1002": "TAG = 'mallory'"}
    assert batch.superseded == []
    assert {e.identity.lms_user_id: e.identity.name for e in batch.entries} == {
        "1001": "Alice Victim",
        "1002": "Mallory Spoof",
    }


def test_moodle_folder_the_file_name_inside_is_never_read(tmp_path):
    z = make_zip(
        tmp_path / "moodle.zip",
        [
            ("Alice Victim_1001_assignsubmission_file/01_tensors.ipynb", nb_bytes("alice"), T0),
            (
                "Mallory Spoof_1002_assignsubmission_file/Alice Victim_1001_assignsubmission_file_01_tensors.ipynb",
                nb_bytes("mallory"),
                T1,
            ),
            # a sub-folder the student made inside their own upload area
            (
                "Mallory Spoof_1002_assignsubmission_file/Alice Victim_1001_assignsubmission_file/old.ipynb",
                nb_bytes("mallory old"),
                T0,
            ),
        ],
    )
    batch = unpack(z, tmp_path / "s", fmt="moodle")
    assert graded(batch) == {"1001": "TAG = 'alice'", "1002": "TAG = 'mallory'"}
    assert len(batch.superseded) == 1 and "old.ipynb" in batch.superseded[0]


def test_moodle_one_participant_under_two_names_is_ambiguous_and_names_both(tmp_path):
    """Moodle writes one name per participant: two names for 1001 is not Moodle's doing; neither file is
    given to anyone, both are invalid and say who claims them."""
    z = make_zip(
        tmp_path / "moodle.zip",
        [
            ("Alice Victim_1001_assignsubmission_file_/01_tensors.ipynb", nb_bytes("alice"), T0),
            ("Eve Other_1001_assignsubmission_file_01_tensors.ipynb", nb_bytes("eve"), T1),
        ],
    )
    batch = unpack(z, tmp_path / "s", fmt="moodle")
    assert graded(batch) == {} and batch.superseded == []
    assert len(batch.entries) == 2
    for e in batch.entries:
        assert "ambiguous" in e.submission.problem
        assert "Alice Victim (participant 1001)" in e.submission.problem
        assert "Eve Other (participant 1001)" in e.submission.problem
        assert e.identity.lms_user_id == "" and "1001" not in e.identity.student_id  # nobody's
    assert "ambiguous (graded invalid)" in "\n".join(batch.report())


# ------------------------------------------------------------------------------------------- Canvas


def test_canvas_file_name_claiming_another_user(tmp_path):
    """The Canvas prefix is `name_[LATE_]userid_submissionid_`; what follows is the student's file name."""
    z = make_zip(
        tmp_path / "canvas.zip",
        [
            ("victimalice_23456_900001_hw1.ipynb", nb_bytes("alice"), T0),
            ("spoofmallory_12345_900050_victimalice_23456_900099_hw1-9.ipynb", nb_bytes("mallory"), T1),
            ("spoofmallory_12345_900051_victimalice_LATE_23456_900100_hw1.ipynb", nb_bytes("mallory 2"), T1),
        ],
    )
    batch = unpack(z, tmp_path / "s", fmt="canvas")
    got = graded(batch)
    assert got["23456"] == "TAG = 'alice'" and set(got) == {"23456", "12345"}
    who = {e.identity.lms_user_id: e.identity for e in batch.entries}
    assert who["23456"].late is False and who["23456"].name == "victimalice"


def test_canvas_one_user_under_two_names_is_ambiguous(tmp_path):
    z = make_zip(
        tmp_path / "canvas.zip",
        [
            ("victimalice_23456_900001_hw1.ipynb", nb_bytes("alice"), T0),
            ("someoneelse_23456_900002_hw1.ipynb", nb_bytes("eve"), T1),
        ],
    )
    batch = unpack(z, tmp_path / "s", fmt="canvas")
    assert graded(batch) == {} and batch.superseded == []
    assert all(
        "victimalice (Canvas user 23456)" in e.submission.problem
        and "someoneelse (Canvas user 23456)" in e.submission.problem
        for e in batch.entries
    )


# ------------------------------------------------------------------------------------------- nbgrader


def test_nbgrader_identity_is_the_folder_nbgrader_made(tmp_path):
    submitted = tmp_path / "course" / "submitted"
    (submitted / "alice" / "ps1").mkdir(parents=True)
    (submitted / "alice" / "ps1" / "ps1.ipynb").write_bytes(nb_bytes("alice"))
    (submitted / "mallory" / "ps1").mkdir(parents=True)
    (submitted / "mallory" / "ps1" / "alice.ipynb").write_bytes(nb_bytes("mallory"))
    (submitted / "mallory" / "ps1" / "timestamp.txt").write_text("2026-10-01 11:00:00 UTC")
    # a file beside the notebook that looks like another LMS's metadata is nobody's identity
    (submitted / "mallory" / "ps1" / "submission_metadata.json").write_text(
        json.dumps({"users": [{"sid": "alice", "email": "alice@x", "id": 1}]})
    )
    batch = unpack(tmp_path / "course", tmp_path / "s", fmt="nbgrader", assignment="ps1")
    assert graded(batch) == {"alice": "TAG = 'alice'", "mallory": "TAG = 'mallory'"}


# ------------------------------------------------------------------------------------------- Gradescope


def test_gradescope_identity_only_from_the_metadata_gradescope_wrote(tmp_path):
    sub = tmp_path / "autograder" / "submission"
    sub.mkdir(parents=True)
    (sub / "hw1.ipynb").write_bytes(nb_bytes("mallory"))
    # the student's own upload holds a metadata file claiming alice: never read
    (sub / "submission_metadata.json").write_text(json.dumps({"users": [{"sid": "ALICE", "id": 1}]}))
    (tmp_path / "autograder" / "submission_metadata.json").write_text(
        json.dumps({"created_at": "2026-10-01T10:00:00+00:00", "users": [{"sid": "MALLORY", "id": 2, "email": "m@x"}]})
    )
    (e,) = unpack(sub, tmp_path / "s", fmt="gradescope").entries
    assert e.identity.sis_id == "MALLORY" and e.identity.student_id == "MALLORY"


# ------------------------------------------------------------------------------------------- plain folder


def test_folder_a_notebook_and_a_folder_of_one_name_are_ambiguous(tmp_path):
    """`alice.ipynb` (mailed by someone) beside the folder `alice/`: which is alice's is not in the layout."""
    d = tmp_path / "class"
    (d / "alice").mkdir(parents=True)
    (d / "alice" / "hw.ipynb").write_bytes(nb_bytes("alice"))
    (d / "alice.ipynb").write_bytes(nb_bytes("someone"))
    (d / "bob.ipynb").write_bytes(nb_bytes("bob"))
    batch = unpack(d, tmp_path / "s", fmt="folder")
    assert graded(batch) == {"bob": "TAG = 'bob'"} and batch.superseded == []
    problems = [e.submission.problem for e in batch.entries if e.submission.problem]
    assert len(problems) == 2 and all("the folder alice/" in p and "the notebook alice.ipynb" in p for p in problems)


# ------------------------------------------------------------------------------------------- validate

import os  # noqa: E402
import subprocess  # noqa: E402
import sys  # noqa: E402

import pytest  # noqa: E402

from autograder.execute.sandbox import Bubblewrap  # noqa: E402
from autograder.student import public_checks as checks  # noqa: E402

ROOT = Path(__file__).resolve().parents[2]
A = "01_tensors"
SECRET = "course-secret-4b1d-do-not-leak"


def _master_with(tmp_path: Path, *cells: str, at: str | None = None) -> Path:
    """The 01_tensors master as a student hands it in, with `cells` inserted before the cell holding `at`
    (default: at the end)."""
    nb = nbformat.read(ROOT / "solutions" / f"{A}.ipynb", as_version=4)
    nb.metadata["autograder"] = {"assignment": A, "version": checks.version(ROOT / "assignments" / A)}
    where = next(i for i, c in enumerate(nb.cells) if at in c.source) if at else len(nb.cells)
    for source in reversed(cells):
        nb.cells.insert(where, nbformat.v4.new_code_cell(source))
    path = tmp_path / "student" / f"{A}.ipynb"
    path.parent.mkdir(parents=True, exist_ok=True)
    nbformat.write(nb, path)
    return path


def _validate(path: Path) -> tuple[int, str]:
    from autograder.student.validate import validate

    lines: list[str] = []
    return validate(path, out=lines.append), "\n".join(lines)


@pytest.fixture
def secret_env(monkeypatch, tmp_path):
    """The instructor's environment: the course secret in a variable and in a file."""
    (tmp_path / "secret").write_text(SECRET)
    monkeypatch.setenv("AUTOGRADER_SECRET", SECRET)
    monkeypatch.setenv("AUTOGRADER_SECRET_FILE", str(tmp_path / "secret"))
    monkeypatch.setenv("TA_PRIVATE_TOKEN", SECRET)


@pytest.mark.slow
def test_validate_runs_the_notebook_sandboxed_without_the_callers_secret(tmp_path, secret_env):
    """A notebook a TA validated read AUTOGRADER_SECRET and wrote a file outside its folder."""
    assert Bubblewrap.available(), "these attacks need bubblewrap"
    outside = tmp_path / "outside"
    outside.mkdir()
    path = _master_with(
        tmp_path,
        "import os, pathlib\n"
        "found = {k: v for k, v in os.environ.items() if 'SECRET' in k or 'TOKEN' in k}\n"
        f"for target in ({str(outside / 'leak.txt')!r}, {str(tmp_path / 'leak.txt')!r}, "
        f"{str(ROOT / 'leak-from-validate.txt')!r}):\n"
        "    try:\n"
        "        pathlib.Path(target).write_text(repr(found))\n"
        "    except OSError:\n"
        "        pass\n"
        f"try:\n    file_secret = open({str(tmp_path / 'secret')!r}).read()\n"
        "except OSError:\n    file_secret = 'unreadable'\n"
        "raise ValueError(f'env={found} file={file_secret}')",
    )
    code, report = _validate(path)
    assert SECRET not in report, report
    assert "ValueError: env={} file=unreadable" in report, report
    assert not (outside / "leak.txt").exists() and not (tmp_path / "leak.txt").exists()
    assert not (ROOT / "leak-from-validate.txt").exists()
    assert "WITHOUT a sandbox" not in report and "sandboxed worker" in report


@pytest.mark.slow
def test_validate_without_bubblewrap_says_so_and_still_passes_no_secret(tmp_path, secret_env, monkeypatch):
    from autograder.execute.sandbox import RlimitsOnly
    from autograder.student import validate as v

    monkeypatch.setattr(v, "_isolation", lambda: (RlimitsOnly(), False))
    path = _master_with(tmp_path, "import os\nraise ValueError(str(sorted(k for k in os.environ if 'SECRET' in k)))")
    code, report = _validate(path)
    assert report.startswith("NOTE: bubblewrap is not available here, so this notebook runs WITHOUT a sandbox")
    assert "ValueError: []" in report and SECRET not in report


PATCH_CHECKER = '''
import json, builtins
import autograder.student.selfcheck as sc
import autograder.student.validate as v
passing = [{"name": "forged", "outcome": "passed", "message": "", "hint": ""}]
sc.Checker.results = lambda self, exercise, namespace=None: passing
sc.Checker.report = lambda self, namespace: json.dumps({"exercises": {e: passing for e in self.exercises()}})
sc.answered = sc.passed = lambda results: True
v.validate = lambda *a, **k: 0
print("AUTOGRADER-VALIDATE-REPORT:" + json.dumps({"exercises": {"dtypes": passing}}))
print("Ready: all 10 exercises answered, every public check passes")
'''


@pytest.mark.slow
def test_validate_decides_outside_the_notebook_a_patched_checker_changes_nothing(tmp_path):
    """A blank notebook whose cell patched Checker.results made validate say "Ready" and exit 0."""
    from autograder.student.release import release

    blank = release(ROOT, A, tmp_path / "released")[0]
    nb = nbformat.read(blank, as_version=4)
    nb.cells.insert(1, nbformat.v4.new_code_cell(PATCH_CHECKER))
    nb.cells.append(nbformat.v4.new_code_cell(PATCH_CHECKER))
    nbformat.write(nb, blank)
    code, report = _validate(blank)
    assert code == 1, report
    assert "Ready" not in report.replace("Not ready", "") and "forged" not in report
    assert "✘ dtypes: not answered yet." in report


@pytest.mark.slow
def test_validate_stops_a_hanging_cell_as_the_grader_would_and_names_it(tmp_path):
    """`while True: pass` kept validate silent for 200 s (600 s per cell); the grader stops it after
    cell_timeout (2 s) of CPU.  Run as students do, in a terminal, with a bound the old one missed."""
    path = _master_with(tmp_path, "while True:\n    pass", at='check("views")')
    cmd = [sys.executable, "-m", "autograder", "validate", str(path)]
    env = {**{k: v for k, v in os.environ.items() if not k.startswith("AUTOGRADER_")}, "PYTHONPATH": str(ROOT)}
    r = subprocess.run(cmd, capture_output=True, text=True, timeout=120, cwd=tmp_path, env=env)
    assert r.returncode == 1, r.stdout + r.stderr
    assert "(while True:): STOPPED: cell did not finish within its time limit (2 s of CPU time" in r.stdout
    assert "the grader would stop cell" in r.stdout
    assert "✔ views: all public checks pass" in r.stdout  # the rest is graded without that cell
    lines = r.stdout.splitlines()
    assert sum(ln.startswith("  cell ") for ln in lines) >= 20  # progress: a line per cell


# ------------------------------------------------------------------------------------------- Gradescope

import shutil  # noqa: E402
import sysconfig  # noqa: E402
import tempfile  # noqa: E402

from autograder.interop.gradescope import build_autograder_zip, protect, simulate  # noqa: E402

GS_SECRET = b"gradescope-course-secret-7f3e"
NO_BWRAP = {"PATH": "/nonexistent"}  # bubblewrap cannot be found: as in a container where it cannot run

STEAL = '''
import json, os, pathlib
root = pathlib.Path({root!r})
found = {{"uid": os.getuid(), "env": {{k: v for k, v in os.environ.items() if "SECRET" in k}}}}
for rel in ("source/secret", "source/solutions/toy.ipynb", "source/assignments/toy/hidden/test_double.py",
            "source/gradescope.json", "submission_metadata.json", "source/.cache"):
    p = root / rel
    try:
        found[rel] = sorted(os.listdir(p))[:3] if p.is_dir() else p.read_text()[:300]
    except OSError as e:
        found[rel] = "denied"
try:
    (root / "results" / "results.json").write_text('{{"score": 100}}')
    found["results"] = "written"
except OSError:
    found["results"] = "denied"
pathlib.Path({drop!r}).write_text(json.dumps(found))
'''


def _gradescope_root() -> Path:
    """A Gradescope-like root outside pytest's folders (0700, where no other user could enter)."""
    return Path(tempfile.mkdtemp(prefix="ag-gs-", dir="/tmp"))


def _attack_submission(toy_kit: Path, folder: Path, root: Path, drop: Path) -> Path:
    nb = nbformat.read(toy_kit / "solutions" / "toy.ipynb", as_version=4)
    nb.cells.append(nbformat.v4.new_code_cell(STEAL.format(root=str(root), drop=str(drop))))
    folder.mkdir(parents=True)
    nbformat.write(nb, folder / "toy.ipynb")
    return folder


def _python_another_user_can_run(request) -> str | None:
    """An interpreter uid 65534 can start with this environment's packages: this one, or (where this one
    lives in a folder only root may enter, as under /root/.pyenv) a venv of the system's Python of the same
    version that reads this environment's site-packages."""

    def runs(python: str) -> bool:
        try:
            return (
                subprocess.run(
                    [python, "-I", "-c", "import torch, autograder"],
                    capture_output=True,
                    timeout=120,
                    user=65534,
                    group=65534,
                    extra_groups=[],
                ).returncode
                == 0
            )
        except OSError:  # not even started: a folder on its way is closed to that user
            return False

    if runs(sys.executable):
        return sys.executable
    system = shutil.which(f"python{sys.version_info.major}.{sys.version_info.minor}", path="/usr/bin:/usr/local/bin")
    if not system:
        return None
    venv = Path(tempfile.mkdtemp(prefix="ag-gs-py-", dir="/tmp"))
    request.addfinalizer(lambda: shutil.rmtree(venv, ignore_errors=True))
    venv.chmod(0o755)
    subprocess.run([system, "-m", "venv", "--without-pip", str(venv)], check=True, timeout=120)
    site = subprocess.run(
        [str(venv / "bin" / "python"), "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"],
        capture_output=True,
        text=True,
        check=True,
    ).stdout.strip()
    Path(site, "ag-test.pth").write_text(f"{sysconfig.get_paths()['purelib']}\n{ROOT}\n")
    return str(venv / "bin" / "python") if runs(str(venv / "bin" / "python")) else None


def test_gradescope_without_bubblewrap_is_refused_by_default(toy_kit, tmp_path):
    """It graded unsandboxed ("graded without a sandbox") while the zip held the secret and the master."""
    z = build_autograder_zip(toy_kit, "toy", tmp_path / "autograder.zip", secret=GS_SECRET)
    root = _gradescope_root()
    try:
        drop = root.parent / f"{root.name}-drop.json"
        sub = _attack_submission(toy_kit, tmp_path / "sub", root, drop)
        res = simulate(z, sub, root, env=NO_BWRAP, timeout=300)
        assert res["score"] == 0 and res["tests"] == [] and "not graded" in res["output"], res
        assert res["extra_data"]["status"] == "not graded"
        assert not drop.exists()  # the notebook never ran
        assert "--allow-weak-isolation" in (root / "run_autograder.log").read_text()  # the instructor is told how
    finally:
        shutil.rmtree(root, ignore_errors=True)


def test_protect_leaves_a_worker_only_the_grader_package_and_probes(toy_kit, tmp_path):
    """The layout `protect` leaves, tried with a plain program run as the worker's uid."""
    z = build_autograder_zip(toy_kit, "toy", tmp_path / "autograder.zip", secret=GS_SECRET)
    root = _gradescope_root()
    try:
        (root / "source").mkdir()
        zipfile.ZipFile(z).extractall(root / "source")
        (root / "submission_metadata.json").write_text("{}")
        protect(root, "toy")

        def cat(rel: str) -> int:
            return subprocess.run(
                ["/bin/cat", str(root / rel)], capture_output=True, user=65534, group=65534, extra_groups=[]
            ).returncode

        for secret in (
            "source/secret",
            "source/solutions/toy.ipynb",
            "source/assignments/toy/hidden/test_double.py",
            "source/assignments/toy/manifest.toml",
            "source/gradescope.json",
            "submission_metadata.json",
        ):
            assert cat(secret) != 0, secret
        for shared in (
            "source/autograder/__init__.py",
            "source/autograder/execute/worker.py",
            "source/assignments/toy/probes.py",
        ):
            assert cat(shared) == 0, shared
        assert subprocess.run(["/bin/ls", str(root / "source")], capture_output=True, user=65534).returncode != 0
    finally:
        shutil.rmtree(root, ignore_errors=True)


@pytest.mark.slow
def test_gradescope_weak_isolation_opt_in_keeps_secret_and_master_out_of_reach(toy_kit, tmp_path, request):
    python = _python_another_user_can_run(request)
    if python is None:
        pytest.skip("no Python here that another user may start with this environment's packages")
    z = build_autograder_zip(toy_kit, "toy", tmp_path / "autograder.zip", secret=GS_SECRET, allow_weak_isolation=True)
    root = _gradescope_root()
    drops = Path(tempfile.mkdtemp(prefix="ag-gs-drop-", dir="/tmp"))
    drops.chmod(0o1777)
    try:
        drop = drops / "found.json"
        sub = _attack_submission(toy_kit, tmp_path / "sub", root, drop)
        res = simulate(z, sub, root, env=NO_BWRAP, timeout=500, python=python)
        log = (root / "run_autograder.log").read_text()
        assert res["score"] == 10 and "graded without a sandbox" in res["output"], (res, log)
        found = json.loads(drop.read_text())
        assert found["uid"] == 65534 and found["env"] == {}
        for rel in (
            "source/secret",
            "source/solutions/toy.ipynb",
            "source/assignments/toy/hidden/test_double.py",
            "source/gradescope.json",
            "submission_metadata.json",
            "source/.cache",
            "results",
        ):
            assert found[rel] == "denied", (rel, found)
        assert GS_SECRET.decode() not in json.dumps(res) + drop.read_text()
        assert res["extra_data"]["secret_fingerprint"] == __import__("autograder.probe.seeds").probe.seeds.fingerprint(
            GS_SECRET
        )
    finally:
        shutil.rmtree(root, ignore_errors=True)
        shutil.rmtree(drops, ignore_errors=True)


def test_a_link_in_an_upload_is_never_followed(toy_kit, tmp_path):
    """An upload (Gradescope keeps a zip's links) or an nbgrader exchange folder holding a link to the
    master: it would be graded as the student's notebook, full marks."""
    from autograder.interop.gradescope import _choose_notebook

    master = toy_kit / "solutions" / "toy.ipynb"
    sub = tmp_path / "autograder" / "submission"
    (sub / "deep").mkdir(parents=True)
    (sub / "toy.ipynb").symlink_to(master)
    (sub / "deep" / "up").symlink_to(toy_kit / "solutions", target_is_directory=True)
    (sub / "mine.ipynb").write_bytes(nb_bytes("mine"))
    assert _choose_notebook(sub, "toy") == sub / "mine.ipynb"
    (tmp_path / "autograder" / "submission_metadata.json").write_text("{}")
    batch = unpack(sub, tmp_path / "s", fmt="gradescope")
    assert [e.submission.path for e in batch.entries] == [(sub / "mine.ipynb").resolve()]
    submitted = tmp_path / "course" / "submitted" / "mallory" / "toy"
    submitted.mkdir(parents=True)
    (submitted / "toy.ipynb").symlink_to(master)
    assert unpack(tmp_path / "course", tmp_path / "s2", fmt="nbgrader", assignment="toy").entries == []
