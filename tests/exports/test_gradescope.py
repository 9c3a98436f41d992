"""Gradescope autograder.zip: its contents, and run_autograder in a simulated /autograder layout."""
import json
import stat
import zipfile

import pytest

from autograder.interop.gradescope import build_autograder_zip, simulate
from tests.nbfactory import edit


@pytest.fixture(scope="module")
def zip_path(toy_kit, tmp_path_factory):
    return build_autograder_zip(toy_kit, "toy", tmp_path_factory.mktemp("gs") / "autograder.zip", secret=b"s3cret")


def test_zip_contents(zip_path):
    with zipfile.ZipFile(zip_path) as zf:
        names = set(zf.namelist())
        modes = {i.filename: i.external_attr >> 16 for i in zf.infolist()}
        meta = json.loads(zf.read("gradescope.json"))
    for required in ("setup.sh", "run_autograder", "autograder/__init__.py", "autograder/execute/worker.py",
                     "assignments/toy/manifest.toml", "assignments/toy/probes.py",
                     "assignments/toy/hidden/test_double.py", "assignments/toy/public/test_double.py",
                     "solutions/toy.ipynb", "secret"):
        assert required in names, required
    assert not any("__pycache__" in n for n in names)
    assert modes["run_autograder"] & stat.S_IXUSR and modes["setup.sh"] & stat.S_IXUSR
    assert meta["assignment"] == "toy"


@pytest.mark.slow
def test_run_autograder_writes_valid_results(zip_path, toy_kit, tmp_path):
    master = toy_kit / "solutions" / "toy.ipynb"
    wrong = edit(master, tmp_path / "in" / "toy.ipynb", replace={"return x * 2": "return x * 3"})
    meta = {"created_at": "2026-10-01T12:00:00.000000-07:00", "users": [{"email": "a@b.c", "id": 1, "name": "A", "sid": "1"}]}
    res = simulate(zip_path, wrong, tmp_path / "autograder", metadata=meta, timeout=500)
    assert res["max_score"] == 10 and 0 < res["score"] < 10
    assert isinstance(res["execution_time"], float) and res["visibility"] == "visible"
    assert res["seed_source"] == "file"                      # the zip's course secret was used
    for t in res["tests"]:
        assert {"name", "score", "max_score", "output", "visibility", "tags", "number"} <= set(t)
        assert t.get("status") in ("passed", "failed", None)
    hidden_failed = [t for t in res["tests"] if "hidden" in t["tags"] and t["outcome"] == "failed"]
    assert hidden_failed and all(t["output"] in ("", "failed") for t in hidden_failed)   # summary policy


def test_run_autograder_without_a_notebook(zip_path, tmp_path):
    empty = tmp_path / "empty"
    empty.mkdir()
    (empty / "README.txt").write_text("oops")
    res = simulate(zip_path, empty, tmp_path / "autograder", timeout=120)
    assert res["score"] == 0 and "No notebook" in res["output"] and res["tests"] == []
