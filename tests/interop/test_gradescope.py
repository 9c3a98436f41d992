"""Gradescope autograder.zip: its contents, and run_autograder in a simulated /autograder layout."""

import json
import shutil
import stat
import zipfile

import pytest
import torch

from autograder.config.deadline import load_policy
from autograder.interop.gradescope import (
    TEST_KEYS,
    TOP_KEYS,
    MissingSecret,
    apply_late,
    build_autograder_zip,
    simulate,
    to_gradescope_schema,
)
from autograder.probe.seeds import fingerprint
from tests.nbfactory import edit


@pytest.fixture(scope="module")
def late_kit(late_toy_kit):
    return late_toy_kit


@pytest.fixture(scope="module")
def zip_path(late_kit, tmp_path_factory):
    return build_autograder_zip(late_kit, "toy", tmp_path_factory.mktemp("gs") / "autograder.zip", secret=b"s3cret")


def test_no_secret_is_refused_unless_allowed(toy_kit, tmp_path):
    with pytest.raises(MissingSecret):
        build_autograder_zip(toy_kit, "toy", tmp_path / "a.zip", secret=None)
    assert not (tmp_path / "a.zip").exists()
    z = build_autograder_zip(toy_kit, "toy", tmp_path / "b.zip", secret=None, allow_public_seeds=True)
    assert "secret" not in zipfile.ZipFile(z).namelist()


def test_torch_pinned_to_the_tested_version(zip_path, toy_kit, tmp_path):
    setup = zipfile.ZipFile(zip_path).read("setup.sh").decode()
    version = torch.__version__.split("+")[0]
    assert f'"torch=={version}"' in setup
    z = build_autograder_zip(toy_kit, "toy", tmp_path / "c.zip", secret=b"x", torch_spec="==2.5.1")
    assert '"torch==2.5.1"' in zipfile.ZipFile(z).read("setup.sh").decode()


def test_schema_keeps_gradescope_keys_and_moves_the_rest_to_extra_data():
    data = {
        "score": 3.0,
        "max_score": 10,
        "output": "o",
        "visibility": "visible",
        "status": "graded",
        "seed_source": "file",
        "tests": [{"name": "t", "score": 1, "max_score": 1, "outcome": "passed", "status": "passed"}],
    }
    gs = to_gradescope_schema(data)
    assert set(gs) <= TOP_KEYS and gs["extra_data"] == {"max_score": 10, "status": "graded", "seed_source": "file"}
    assert set(gs["tests"][0]) <= TEST_KEYS and gs["tests"][0]["extra_data"] == {"outcome": "passed"}


@pytest.mark.parametrize(
    "created, who, expected",
    [
        ("2026-10-01T11:00:00+00:00", "a@b.c", 8.0),  # on time
        ("2026-10-02T13:00:00+00:00", "a@b.c", 6.0),  # 1 day 1 h late: 2 periods, 2 points
        ("2026-10-02T13:00:00+00:00", "ext@b.c", 8.0),  # within the 3-day extension
        ("2026-10-04T13:00:00+00:00", "ext@b.c", 7.0),  # 1 h past the extension: 1 period
    ],
)
def test_late_policy_from_submission_metadata(late_kit, created, who, expected):
    meta = {"created_at": created, "users": [{"email": who, "id": 7, "name": "A", "sid": ""}]}
    data = apply_late(
        {"score": 8.0, "max_score": 10, "output": "8/10"},
        load_policy(late_kit / "assignments" / "toy" / "manifest.toml"),
        meta,
    )
    assert data["score"] == expected
    assert data["late"]["raw_score"] == 8.0
    assert (data["late"]["penalty"] > 0) == (expected < 8.0)


def test_zip_contents(zip_path):
    with zipfile.ZipFile(zip_path) as zf:
        names = set(zf.namelist())
        modes = {i.filename: i.external_attr >> 16 for i in zf.infolist()}
        meta = json.loads(zf.read("gradescope.json"))
    for required in (
        "setup.sh",
        "run_autograder",
        "autograder/__init__.py",
        "autograder/execute/worker.py",
        "assignments/toy/manifest.toml",
        "assignments/toy/probes.py",
        "assignments/toy/hidden/test_double.py",
        "assignments/toy/public/test_double.py",
        "solutions/toy.ipynb",
        "secret",
    ):
        assert required in names, required
    assert not any("__pycache__" in n for n in names)
    assert modes["run_autograder"] & stat.S_IXUSR and modes["setup.sh"] & stat.S_IXUSR
    assert meta["assignment"] == "toy"


@pytest.mark.slow
def test_run_autograder_writes_valid_results(zip_path, toy_kit, tmp_path):
    master = toy_kit / "solutions" / "toy.ipynb"
    wrong = edit(master, tmp_path / "in" / "toy.ipynb", replace={"return x * 2": "return x * 3"})
    # 12 h 1 min late in Pacific time = 1 period: 10 % of the maximum (1 point) deducted
    meta = {
        "created_at": "2026-10-01T12:01:00.000000-07:00",
        "users": [{"email": "a@b.c", "id": 1, "name": "A", "sid": "1"}],
    }
    res = simulate(zip_path, wrong, tmp_path / "autograder", metadata=meta, timeout=500)
    extra = res["extra_data"]
    assert set(res) <= TOP_KEYS and all(set(t) <= TEST_KEYS for t in res["tests"])
    assert extra["max_score"] == 10 and 0 < extra["late"]["raw_score"] < 10
    assert res["score"] == extra["late"]["raw_score"] - 1 and "1 day's penalty" in res["output"]
    assert isinstance(res["execution_time"], float) and res["visibility"] == "visible"
    assert extra["secret_fingerprint"] == fingerprint(b"s3cret")  # the zip's course secret was used
    if shutil.which("bwrap"):  # the label says what really ran
        assert extra["isolation"].startswith("bubblewrap") and "without a sandbox" not in res["output"]
    for t in res["tests"]:
        assert {"name", "score", "max_score", "output", "visibility", "tags", "number"} <= set(t)
        assert t.get("status") in ("passed", "failed", None)
    hidden_failed = [t for t in res["tests"] if "hidden" in t["tags"] and t["extra_data"]["outcome"] == "failed"]
    assert hidden_failed and all(t["output"] in ("", "failed") for t in hidden_failed)  # summary policy


def test_run_autograder_without_a_notebook(zip_path, tmp_path):
    empty = tmp_path / "empty"
    empty.mkdir()
    (empty / "README.txt").write_text("oops")
    res = simulate(zip_path, empty, tmp_path / "autograder", timeout=120)
    assert res["score"] == 0 and "No notebook" in res["output"] and res["tests"] == []


@pytest.mark.parametrize(
    "assignment, needs", [("02b_kernels", {"triton"}), ("04_fit_api", {"pandas", "matplotlib"}), ("01_tensors", set())]
)
def test_setup_installs_what_the_assignment_imports_pinned(kit_root, tmp_path, assignment, needs):
    """02b_kernels' master scored 59/100 in Gradescope: its zip installed no triton."""
    import sys
    from importlib import metadata

    from autograder.config.assignment import load_assignment
    from autograder.notebook.imports import assignment_imports

    z = build_autograder_zip(kit_root, assignment, tmp_path / "a.zip", secret=b"s")
    setup = zipfile.ZipFile(z).read("setup.sh").decode()
    pins = dict(
        line.strip(' "\\').split("==")
        for line in setup.split("pip install --no-cache-dir ")[-1].splitlines()
        if "==" in line
    )
    for dist in needs | {"numpy", "pytest", "nbformat", "ipython"}:
        assert pins.get(dist) == metadata.version(dist), (dist, setup)
    assert set(assignment_imports(load_assignment(assignment, kit_root))) >= needs
    assert ("triton" in pins) == ("triton" in needs)
    assert f"python{sys.version_info.major}.{sys.version_info.minor} -m venv" in setup
    assert not any(">=" in line for line in setup.splitlines() if "pip install" in line)


COURSE = """
[deadline]
due = "2026-10-01T12:00:00+00:00"
penalty_percent = 10
period = "day"
[assignments.toy.deadline.extensions]
alice = 2
"""


def test_course_deadline_and_extensions_reach_gradescope(toy_kit, tmp_path):
    """Gradescope ignored course.toml: a submission two days late kept its full score; an extension keyed
    by login reaches the student through the email Gradescope knows them by."""
    from autograder.config.course import load_course
    from autograder.config.deadline import LatePolicy
    from autograder.intake.roster import Roster

    (tmp_path / "course.toml").write_text(COURSE)
    (tmp_path / "roster.csv").write_text("student_id,name,email,login_id\n77,Alice A,alice@uni.edu,alice\n")
    z = build_autograder_zip(
        toy_kit,
        "toy",
        tmp_path / "a.zip",
        secret=b"s",
        course=load_course(tmp_path / "course.toml"),
        roster=Roster.read_csv(tmp_path / "roster.csv"),
    )
    policy = LatePolicy.from_table(json.loads(zipfile.ZipFile(z).read("gradescope.json"))["deadline"])
    late = {"created_at": "2026-10-03T11:00:00+00:00", "users": [{"email": "bob@uni.edu", "id": 8, "sid": ""}]}
    assert apply_late({"score": 10.0, "max_score": 10, "output": ""}, policy, late)["score"] == 8.0
    alice = {**late, "users": [{"email": "alice@uni.edu", "id": 9, "sid": ""}]}
    assert apply_late({"score": 10.0, "max_score": 10, "output": ""}, policy, alice)["score"] == 10.0


@pytest.mark.slow
def test_master_scores_full_marks_in_a_gradescope_layout(kit_root, tmp_path, assignment="02b_kernels"):
    """02b_kernels' zip run as Gradescope runs it, on the master: full marks (it scored 59/100 there
    without triton; what setup.sh installs is tested above)."""
    from autograder.config.assignment import load_assignment

    a = load_assignment(assignment, kit_root)
    z = build_autograder_zip(kit_root, assignment, tmp_path / "autograder.zip", secret=b"s3cret")
    res = simulate(z, a.solution, tmp_path / "autograder", timeout=580)
    assert res["score"] == a.total_points, (
        res["output"],
        (tmp_path / "autograder" / "run_autograder.log").read_text()[-3000:],
    )


def test_each_submitter_has_a_variant_of_their_own(monkeypatch):
    """Hidden inputs per student reach Gradescope: keyed by the id its intake gives the submitter, the same on
    every resubmission; course.toml's `variants` (kept in gradescope.json) is honoured."""
    from autograder.config.secret import Secret
    from autograder.interop import gradescope

    def _variant(*args):
        return gradescope._variant(Secret(b"s3cret", "env"), *args)

    alice = {"users": [{"sid": "S1", "email": "a@x", "id": 1}], "created_at": "2026-10-01T10:00:00+00:00"}
    bob = {"users": [{"sid": "S2", "email": "b@x", "id": 2}]}
    assert _variant("toy", alice, "") == _variant("toy", {"users": [{"sid": "S1"}]}, "") != _variant("toy", bob, "")
    assert _variant("toy", alice, "").startswith("s") and _variant("toy", alice, "1") == ""
    assert _variant("toy", alice, "3") in ("v1", "v2", "v3")
