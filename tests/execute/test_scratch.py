"""Scratch folders: a live owner's are never pruned, a dead owner's (kill -9) are pruned at once."""

import os
import signal
import subprocess
import sys
import time

from autograder.execute import scratch

HOLD = (
    "import sys\nfrom autograder.execute.scratch import Scratch\n"
    "s = Scratch(sys.argv[1])\nprint(s.path, flush=True)\nsys.stdin.read()"
)


def _holder(prefix: str) -> tuple[subprocess.Popen, str]:
    p = subprocess.Popen([sys.executable, "-c", HOLD, prefix], stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
    return p, p.stdout.readline().strip()


def test_prune_keeps_live_owners_and_removes_dead_ones(tmp_path, monkeypatch):
    monkeypatch.setenv("TMPDIR", str(tmp_path))
    monkeypatch.setattr("tempfile.tempdir", None)
    alive, kept = _holder("ag-intake-")
    killed, gone = _holder("ag-work-")
    os.kill(killed.pid, signal.SIGKILL)
    killed.wait()
    young = tmp_path / "ag-task-young"  # no lock yet: being set up
    young.mkdir()
    stale = tmp_path / "ag-task-stale"  # no lock, long ago: its owner died while setting it up
    stale.mkdir()
    os.utime(stale, (time.time() - 3600, time.time() - 3600))
    other = tmp_path / "not-ours"
    other.mkdir()
    try:
        removed = scratch.prune()
        assert os.path.isdir(kept) and young.is_dir() and other.is_dir()
        assert not os.path.exists(gone) and not stale.exists()
        assert {gone, str(stale)} <= set(removed)
    finally:
        alive.communicate("")
    assert scratch.prune() and not os.path.exists(kept)  # its owner ended without closing it


def test_own_folders_survive_our_own_prune_and_go_on_remove(tmp_path, monkeypatch):
    monkeypatch.setattr("tempfile.tempdir", str(tmp_path))
    path = scratch.make("ag-work-")
    scratch.prune()
    assert path.is_dir() and (path / ".lock").is_file()
    scratch.remove(path)
    assert not path.exists()
