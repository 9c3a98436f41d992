"""A worker's disk is bounded in bytes and in files, and nothing it writes reaches the host.

Its work folder, /tmp and /dev/shm are folders of one tmpfs (`autograder/execute/disk.py`) of
`disk_mb` MiB and `files` inodes, in the worker's own mount namespace: a notebook that writes past
either gets ENOSPC in that cell, with a message that says which limit it hit, and the tmpfs dies
with the worker.  Tested under the warm (zygote-forked) and the cold (one bwrap per worker) sandbox.
"""

import os
import sys
from pathlib import Path

import pytest
import torch

from autograder.config.limits import Limits
from autograder.execute.runner import NotebookRunner
from autograder.execute.sandbox import Bubblewrap, SandboxUnavailable, WarmBubblewrap
from autograder.notebook.parse import Cell

LIMITS = Limits(disk_mb=8, files=300, file_mb=4, cell_timeout=20, submission_timeout=120, max_restarts=1)
MARK = "ag-disk-test-7c1d"  # in every file the notebooks write, to look for it on the host

BYTES_CWD = f"for i in range(100):\n    open('{MARK}-%d' % i, 'wb').write(b'x' * 2**20)"
BYTES_TMP = f"for i in range(100):\n    open('/tmp/{MARK}-%d' % i, 'wb').write(b'x' * 2**20)"
BYTES_SHM = f"for i in range(100):\n    open('/dev/shm/{MARK}-%d' % i, 'wb').write(b'x' * 2**20)"
INODES = f"import os\nfor i in range(10_000):\n    os.mkdir('/tmp/{MARK}-%d' % i)"
SPARSE = (
    f"f = open('{MARK}-sparse', 'wb')\nf.truncate(3 * 2**20)\nf.close()\n"  # sparse files cost nothing
    f"open('{MARK}-sparse', 'r+b').write(b'y' * (3 * 2**20))\n"  # until they are written
    f"open('/tmp/{MARK}-more', 'wb').write(b'z' * (3 * 2**20))\n"
    f"open('/dev/shm/{MARK}-more', 'wb').write(b'z' * (3 * 2**20))"
)


@pytest.fixture(scope="module", params=["warm", "cold"])
def isolation(request):
    if not Bubblewrap.available():
        pytest.skip("bubblewrap is not available here")
    try:
        iso = Bubblewrap() if request.param == "cold" else WarmBubblewrap()
    except SandboxUnavailable as e:
        pytest.skip(str(e))
    yield iso
    iso.close()


def _run(isolation, *sources: str, limits: Limits = LIMITS) -> list:
    cells = [Cell(index=i + 1, source=s) for i, s in enumerate(sources)]
    with NotebookRunner(cells, probes=None, limits=limits, isolation=isolation) as runner:
        runner.execute()
        assert runner.workdir is not None
        on_host = [p.name for p in runner.workdir.iterdir() if p.name != ".lock"]
        assert on_host == [], f"the notebook's files reached the host: {on_host}"
        records = runner.cell_records
        workdir = runner.workdir
    assert not workdir.exists()
    return records


def _host_has_mark() -> list[str]:
    found = []
    for top in {"/tmp", "/dev/shm", "/var/tmp", os.environ.get("TMPDIR", "/tmp")}:
        for root, dirs, files in os.walk(top):
            found += [os.path.join(root, n) for n in dirs + files if MARK in n]
    return found


@pytest.mark.parametrize(
    "source,where", [(BYTES_CWD, "cwd"), (BYTES_TMP, "/tmp"), (BYTES_SHM, "/dev/shm")], ids=["cwd", "tmp", "shm"]
)
def test_writing_more_than_disk_mb_fails_that_cell(isolation, source, where):
    first, after = _run(isolation, source, "print('next cell runs')")
    assert first.status == "error", (where, first)
    assert "the notebook wrote more than 8 MiB to disk" in first.error["message"], first.error
    assert "No space left on device" in first.error["message"]
    assert after.status == "ok"
    assert _host_has_mark() == []


def test_creating_more_than_files_fails_that_cell(isolation):
    (rec,) = _run(isolation, INODES)
    assert rec.status == "error"
    assert "the notebook created more than 300 files on disk" in rec.error["message"], rec.error
    assert _host_has_mark() == []


def test_work_folder_tmp_and_shm_share_one_quota(isolation):
    """3 MiB in each of the three places (a sparse file first: only written bytes count) is over 8 MiB."""
    (rec,) = _run(isolation, SPARSE)
    assert rec.status == "error" and "wrote more than 8 MiB" in rec.error["message"], rec.error
    assert rec.error["frames"][-1]["line"] == 6  # the third 3 MiB file, the one in /dev/shm


def test_a_notebook_within_its_quota_is_unaffected(isolation):
    ok = f"import os\nfor i in range(50):\n    open('{MARK}-%d' % i, 'wb').write(b'x' * 2**16)\nassert sum(n.startswith('{MARK}') for n in os.listdir('.')) == 50"
    (rec,) = _run(isolation, ok)
    assert rec.status == "ok", rec.error


def test_the_quota_cannot_be_lifted_from_inside(isolation):
    """No capability is left: the disk cannot be remounted bigger or unmounted, and no other
    place (the sandbox's /, /run, /dev) is writable."""
    code = (
        "import ctypes, os\nlibc = ctypes.CDLL(None, use_errno=True)\n"
        "status = dict(l.split(':\\t') for l in open('/proc/self/status').read().splitlines() if ':\\t' in l)\n"
        "assert all(int(status[k], 16) == 0 for k in ('CapEff', 'CapPrm', 'CapAmb')), status\n"
        "for target in (b'/tmp', os.getcwd().encode(), b'/dev/shm'):\n"
        "    assert libc.mount(None, target, None, 32, b'size=1g,nr_inodes=1000000') != 0  # MS_REMOUNT\n"
        "    assert libc.umount2(target, 2) != 0  # MNT_DETACH\n"
        "for path in ('/escape', '/run/escape', '/dev/escape'):\n"
        "    try:\n        open(path, 'wb')\n    except OSError:\n        pass\n"
        "    else:\n        raise AssertionError(path + ' is writable')\n"
        "assert os.statvfs('/tmp').f_blocks * os.statvfs('/tmp').f_frsize == 8 * 2**20"
    )
    (rec,) = _run(isolation, code)
    assert rec.status == "ok", rec.error


@pytest.mark.parametrize("kind", ["warm", "cold"])
def test_the_bwrap_that_was_checked_is_the_one_that_runs(kind, tmp_path, monkeypatch, sandbox):
    """A bubblewrap found on the grader's PATH (say /usr/local/bin) is the one every sandbox runs, although
    workers and zygotes get a minimal PATH: a GPU box once passed the check and then had no worker start."""
    from autograder.execute import sandbox as sandbox_module

    real = sandbox_module._bwrap()
    if real is None:
        pytest.skip("bubblewrap is not available here")
    bindir, marker = tmp_path / "local-bin", tmp_path / "ran"
    bindir.mkdir()
    (bindir / "bwrap").write_text(f'#!/bin/sh\necho run >> "{marker}"\nexec "{real}" "$@"\n')
    (bindir / "bwrap").chmod(0o755)
    monkeypatch.setenv("PATH", f"{bindir}:/usr/bin:/bin")
    sandbox_module._bwrap.cache_clear()
    try:
        iso = sandbox(kind)
        assert iso.bwrap == str(bindir / "bwrap")
        (rec,) = _run(iso, "x = 1")
        assert rec.status == "ok" and marker.read_text().count("run") >= 1
    finally:
        sandbox_module._bwrap.cache_clear()


def test_what_the_install_built_cannot_be_written(isolation):
    """site-packages, and what `make install` built beside it under the interpreter's prefix (tf02b's precompiled
    framework headers, which every kit build of a kernel reads), are read-only inside: no worker can change what
    another one imports or compiles."""
    built = sorted(Path(sys.prefix, "share", "autograder").rglob("*"))
    assert any(p.suffix == ".gch" for p in built), built  # `make install` built tf02b's header
    folders = [p for p in built if p.is_dir()] + [Path(torch.__file__).parent]
    targets = [str(p) for p in built if p.is_file()] + [torch.__file__] + [str(f / "ag-new-file") for f in folders]
    code = (
        f"for path in {targets!r}:\n"
        "    try:\n        open(path, 'ab').close()\n    except OSError:\n        continue\n"
        "    raise AssertionError(path + ' is writable')"
    )
    (rec,) = _run(isolation, code)
    assert rec.status == "ok", rec.error
