"""otter-grader interop: the exported master passes `otter assign` (which runs its tests on the solution)."""
import os
import subprocess
import sys
from pathlib import Path

import pytest

pytest.importorskip("otter")

from autograder.interop.otter import otter_master, write_otter_master  # noqa: E402

BIN = Path(sys.executable).parent


def test_master_structure(toy_kit):
    raw = [c.source.splitlines()[0] for c in otter_master(toy_kit, "toy").cells if c.cell_type == "raw"]
    assert raw[0] == "# ASSIGNMENT CONFIG" and raw.count("# BEGIN QUESTION") == 3 and raw.count("# END TESTS") == 3


@pytest.mark.slow
def test_otter_assign_succeeds_and_tests_pass_on_reference(toy_kit, tmp_path):
    master = write_otter_master(toy_kit, "toy", tmp_path / "otter")
    env = {**os.environ, "PATH": f"{BIN}{os.pathsep}{os.environ.get('PATH', '')}"}
    r = subprocess.run([str(BIN / "otter"), "assign", master.name, "dist"], cwd=master.parent, env=env,
                       capture_output=True, text=True, timeout=500)
    log = r.stdout + r.stderr
    assert r.returncode == 0, log[-3000:]
    assert "Failed example" not in log and "Traceback" not in log      # otter ran the tests on the solution
    student = (master.parent / "dist" / "student" / "toy.ipynb").read_text()
    assert "return x * 2" not in student
    assert list((master.parent / "dist" / "autograder").glob("toy-autograder_*.zip"))
