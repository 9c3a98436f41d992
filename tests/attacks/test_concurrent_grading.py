"""Two grade commands share the machine: a class of flooding notebooks in one leaves the other command's
scores exactly as in a quiet run (docs/security.md, "What a worker can share with whom").

Before workers had uids of their own, every warm worker of every grading run was host uid 65534, and
RLIMIT_NPROC counts per uid: a notebook holding 250 sleeping threads made the forks of a *different*
grade command's workers fail (`vfork: Resource temporarily unavailable`), and their grades were stored
as final.  The honest class here computes `ANSWER` in threads that each start a process, so a fork
that fails costs it the two points of `ANSWER`.
"""

from __future__ import annotations

import os
import sqlite3
import subprocess
import sys
import time
from pathlib import Path

import pytest

from autograder.execute.sandbox import Bubblewrap
from tests.nbfactory import edit

pytestmark = pytest.mark.serial  # a class that floods the host beside another grade command

HONEST = {
    "ANSWER = 42": (
        "import concurrent.futures, subprocess\n"
        "def _echo(s):\n"
        "    return int(subprocess.run(['echo', s], capture_output=True, text=True, check=True).stdout)\n"
        "with concurrent.futures.ThreadPoolExecutor(4) as pool:\n"
        "    ANSWER = sum(pool.map(_echo, ['40', '1', '1']))"
    )
}

FLOOD = (
    "import threading, time\n"
    "_stop = threading.Event()\n"
    "_held = []\n"
    "try:\n"
    "    while len(_held) < 400:\n"
    "        _t = threading.Thread(target=_stop.wait, daemon=True)\n"
    "        _t.start()\n"
    "        _held.append(_t)\n"
    "except RuntimeError:\n"
    "    pass\n"
    "time.sleep(10)"
)
HOLD = "time.sleep(10)"


def _cli(toy_kit: Path, subs: Path, out: Path) -> list[str]:
    return [
        sys.executable,
        "-m",
        "autograder",
        "--kit",
        str(toy_kit),
        "grade",
        "toy",
        str(subs),
        "--out",
        str(out),
        "--jobs",
        "2",
    ]


def _scores(out: Path) -> dict[str, tuple]:
    with sqlite3.connect(out / "gradebook.sqlite") as db:
        return {
            sid: (score, status)
            for sid, score, status in db.execute("SELECT submission_id, score, status FROM submissions")
        }


def _flooding(root: int) -> bool:
    """Whether a process of `root`'s tree holds 240 threads or more."""
    parents: dict[int, int] = {}
    threads: dict[int, int] = {}
    for name in os.listdir("/proc"):
        if name.isdigit():
            try:
                with open(f"/proc/{name}/status") as f:
                    fields = dict(line.split(":", 1) for line in f if ":" in line)
                parents[int(name)] = int(fields["PPid"])
                threads[int(name)] = int(fields["Threads"])
            except (OSError, KeyError, ValueError):
                continue
    for pid, n in threads.items():
        p = pid
        while n >= 240 and p > 1:
            if p == root:
                return True
            p = parents.get(p, 0)
    return False


def test_a_flooding_class_leaves_another_grade_commands_scores_alone(toy_kit, tmp_path):
    if not Bubblewrap.available():
        pytest.skip("bubblewrap is not available here")
    master = toy_kit / "solutions" / "toy.ipynb"
    honest = tmp_path / "honest"
    for i in range(3):
        edit(master, honest / f"honest{i}.ipynb", replace=HONEST)
    edit(master, honest / "master.ipynb")
    flood = tmp_path / "flood"
    for i in range(4):
        edit(master, flood / f"flood{i}.ipynb", insert={2: FLOOD, 3: HOLD, 4: HOLD})

    quiet = subprocess.run(_cli(toy_kit, honest, tmp_path / "quiet"), capture_output=True, text=True, timeout=900)
    assert quiet.returncode == 0, quiet.stderr[-2000:]
    expected = _scores(tmp_path / "quiet")
    assert expected == {**{f"honest{i}": (10.0, "graded") for i in range(3)}, "master": (10.0, "graded")}

    flooder = subprocess.Popen(
        _cli(toy_kit, flood, tmp_path / "flood_out"),
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
        start_new_session=True,
    )
    try:
        deadline = time.monotonic() + 600
        while not _flooding(flooder.pid) and flooder.poll() is None and time.monotonic() < deadline:
            time.sleep(0.2)
        assert _flooding(flooder.pid), "the flood never started"
        loud = subprocess.run(_cli(toy_kit, honest, tmp_path / "loud"), capture_output=True, text=True, timeout=900)
        overlapped = flooder.poll() is None  # the flood outlasted the whole second command
    finally:
        flooder.wait(timeout=900)
    assert loud.returncode == 0, loud.stderr[-2000:]
    assert overlapped, "the flooding class finished before the other command: nothing was tested"
    assert _scores(tmp_path / "loud") == expected
    flooded = _scores(tmp_path / "flood_out")
    assert len(flooded) == 4 and all(score == 10.0 for score, _ in flooded.values()), flooded
