"""`autograder check-solutions` proves each master against its own manifest before a class is graded:
full marks for the master, 0 for the released notebook, and a `cell_timeout` that leaves a correct
solution several times slower than the master room (`limits.CELL_TIMEOUT_MARGIN` x its slowest cell)."""

import json
import shutil
import subprocess
import sys
from pathlib import Path

from autograder.config.limits import CELL_TIMEOUT_MARGIN

SPIN = "import time\n_t = time.process_time()\nwhile time.process_time() - _t < 0.4:\n    pass"


def _check(kit: Path) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-m", "autograder", "--kit", str(kit), "check-solutions", "toy"],
        capture_output=True,
        text=True,
        timeout=300,
    )


def test_a_cell_timeout_too_tight_for_the_master_fails_the_check(toy_kit, tmp_path):
    kit = tmp_path / "kit"
    shutil.copytree(toy_kit, kit)
    master = kit / "solutions" / "toy.ipynb"
    nb = json.loads(master.read_text())
    nb["cells"].insert(2, {"cell_type": "code", "metadata": {}, "execution_count": None, "outputs": [], "source": SPIN})
    master.write_text(json.dumps(nb))

    ok = _check(kit)  # 0.4 s of CPU against 5 s: room enough
    assert ok.returncode == 0, ok.stdout + ok.stderr
    assert ok.stdout.startswith("ok   toy: master 10/10")

    manifest = kit / "assignments" / "toy" / "manifest.toml"
    manifest.write_text(manifest.read_text().replace("cell_timeout = 5", "cell_timeout = 1"))
    tight = _check(kit)  # 0.4 s x 5 > 1 s: a correct but slower solution would time out
    assert tight.returncode == 1
    assert tight.stdout.startswith("FAIL toy: master 10/10")
    assert f"cell_timeout = 1 s is under {CELL_TIMEOUT_MARGIN}x the master's slowest cell" in tight.stdout


def test_assignments_checked_at_once_report_in_the_order_asked(toy_kit, tmp_path):
    """`--jobs 2` checks two assignments in judge processes at once: the same lines as one at a time, in the order
    the command named them, and the failing one fails the command."""
    kit = tmp_path / "kit"
    shutil.copytree(toy_kit, kit)
    shutil.copytree(kit / "assignments" / "toy", kit / "assignments" / "toy_tight")
    master = json.loads((kit / "solutions" / "toy.ipynb").read_text())
    master["cells"].insert(
        2, {"cell_type": "code", "metadata": {}, "execution_count": None, "outputs": [], "source": SPIN}
    )
    (kit / "solutions" / "toy_tight.ipynb").write_text(json.dumps(master))
    manifest = kit / "assignments" / "toy_tight" / "manifest.toml"
    manifest.write_text(manifest.read_text().replace("cell_timeout = 5", "cell_timeout = 1"))

    def lines(*jobs: str) -> tuple[int, list[str]]:
        r = subprocess.run(
            [sys.executable, "-m", "autograder", "--kit", str(kit), "check-solutions", "toy_tight", "toy", *jobs],
            capture_output=True,
            text=True,
            timeout=300,
        )
        heads = [line.split(";")[0] for line in r.stdout.splitlines() if not line.startswith(" ")]
        return r.returncode, heads

    at_once = lines("--jobs", "2")
    assert at_once == (
        1,
        [
            "FAIL toy_tight: master 10/10 (graded), student notebook 0/10, expected 10 and 0",
            "ok   toy: master 10/10 (graded), student notebook 0/10, expected 10 and 0",
        ],
    ), at_once
    assert lines() == at_once
