"""Every scratch folder the kit makes on the host: created, owned and pruned here.

A grader killed with SIGKILL runs no clean-up, and its scratch folders hold student
notebooks (intake copies) and sockets.  So each folder holds a `.lock` that its creating
process keeps `flock`ed for the folder's lifetime; the kernel drops the lock when that
process dies, however it dies.  The first scratch folder a process makes prunes every
kit folder whose lock is free: a live grader's folders are never touched, a dead one's go
at once.  The lock file appears only already locked (it is locked under a temporary name,
then renamed), so a pruner never sees a live folder unlocked.

Where they live: `tempfile.gettempdir()` (`$TMPDIR`, else `/tmp`), except socket folders (the
zygote's, the judges' forkserver's), always under `/tmp` (AF_UNIX paths must be short).  What
student code writes is never here: it goes to the sandbox's own tmpfs (`disk.py`), which dies with
the worker.
"""

from __future__ import annotations

import fcntl
import os
import shutil
import tempfile
import time
from pathlib import Path

# every prefix the kit uses: intake copies, workdirs, Dask task copies, zygote sockets, the judges'
# forkserver socket (multiprocessing's temporary folder, `judge.pool`), and the per-process zygote folders
# of earlier versions (still pruned where an old run left them)
PREFIXES = ("ag-intake-", "ag-work-", "ag-task-", "ag-z-", "ag-mp-", "ag-zygote-")
SOCKET_PARENT = "/tmp" if os.path.isdir("/tmp") else tempfile.gettempdir()
_SETUP_GRACE = 60.0  # seconds a folder without a lock may be one still being set up
_pruned_in: int | None = None  # the pid that pruned already (a forked child prunes nothing again)


class Scratch:
    """A folder this process owns until `close()` (or its death); usable as a context manager."""

    def __init__(self, prefix: str, parent: str | None = None) -> None:
        assert prefix in PREFIXES, prefix
        global _pruned_in
        if _pruned_in != os.getpid():
            _pruned_in = os.getpid()
            prune()
        self.path = Path(tempfile.mkdtemp(prefix=prefix, dir=parent))
        self.pid = os.getpid()
        tmp = self.path / ".lock.new"
        self._fd: int | None = os.open(tmp, os.O_CREAT | os.O_EXCL | os.O_RDWR | os.O_CLOEXEC, 0o600)
        fcntl.flock(self._fd, fcntl.LOCK_EX)
        os.rename(tmp, self.path / ".lock")

    def close(self) -> None:
        if self._fd is not None:
            shutil.rmtree(self.path, ignore_errors=True)
            os.close(self._fd)
            self._fd = None

    def __enter__(self) -> Path:
        return self.path

    def __exit__(self, *exc: object) -> None:
        self.close()


def prune() -> list[str]:
    """Remove kit scratch folders no live process owns; returns what was removed."""
    removed = []
    parents = dict.fromkeys([tempfile.gettempdir(), SOCKET_PARENT])
    now = time.time()
    for parent in parents:
        try:
            names = [n for n in os.listdir(parent) if n.startswith(PREFIXES)]
        except OSError:
            continue
        for name in names:
            path = os.path.join(parent, name)
            try:
                fd = os.open(os.path.join(path, ".lock"), os.O_RDWR | os.O_CLOEXEC | os.O_NOFOLLOW)
            except FileNotFoundError:
                try:
                    if (
                        os.path.isdir(path)
                        and not os.path.islink(path)
                        and now - os.lstat(path).st_mtime > _SETUP_GRACE
                    ):
                        shutil.rmtree(path, ignore_errors=True)  # its owner died while setting it up
                        removed.append(path)
                except OSError:
                    pass
                continue
            except OSError:
                continue  # not ours to judge (another user's, not a folder)
            try:
                fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
            except OSError:
                os.close(fd)
                continue  # its owner is alive
            try:
                shutil.rmtree(path, ignore_errors=True)  # holding the lock: no other pruner races us
                removed.append(path)
            finally:
                os.close(fd)
    return removed


_held: dict[Path, Scratch] = {}


def make(prefix: str, parent: str | None = None) -> Path:
    """A scratch folder held until `remove(path)` (for owners that keep only its path), or until
    this process ends: one its owner never removed (a runner kept for the process's lifetime,
    such as the reference's) goes at exit, also in a pool process, which leaves through
    `os._exit` and runs only multiprocessing's finalizers."""
    if not _held:
        import atexit
        from multiprocessing import util

        atexit.register(_remove_held)
        util.Finalize(None, _remove_held, exitpriority=100)
    s = Scratch(prefix, parent)
    _held[s.path] = s
    return s.path


def _remove_held() -> None:
    for path, s in list(_held.items()):
        if s.pid == os.getpid():  # not a parent's, inherited by fork: it is still in use there
            remove(path)


def remove(path: Path) -> None:
    s = _held.pop(Path(path), None)
    if s is not None:
        s.close()
