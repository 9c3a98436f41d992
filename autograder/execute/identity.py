"""Who a worker is: a host uid and gid of its own, leased for its lifetime, and "nobody" in its own eyes.

The kernel keeps state per user: the process count `RLIMIT_NPROC` checks, keyrings (which outlive every
process of their user), inotify instances and watches, pipe buffers, epoll watches, pending signals, POSIX
message queue bytes.  Workers that share a uid share all of it: a notebook holding 250 sleeping threads
made a neighbour's `cc` fail to fork.  So, where the grader runs as root, every worker runs as a uid no
other worker, grading run or account on the host has at the same time: one of `SLOTS` uids from `BASE`
(a range no distribution or container tool hands out), with the same number as its gid.

A lease is a file named after the uid in a host-wide folder, `flock`ed.  The trusted process that
leases a uid hands the locked descriptor to the sandbox's own trusted processes (the zygote's
intermediate process, which outlives every process of its worker's PID namespace; bubblewrap, cold) and
keeps no copy once the worker runs: the uid is held exactly as long as any process of the worker can
live, and the kernel drops the lock when the last of them dies, however it dies (a killed grader's
workers die with it).  A lease file is only taken, and removed, while locked, and a taker checks that
the file it locked is still the one the name points to, so two workers never hold the same uid; files
nobody holds are removed when given back, or by the next lease.

Inside the sandbox that uid is called `nobody` (group `nogroup`) in the worker's own `/etc/passwd` and
`/etc/group` (`accounts`): libraries look their user up (torch's compile cache names a folder after it).
Without root (a cold sandbox in a user namespace) there is no uid to lease: the worker is uid 65534 in its
namespace, the grader's uid outside; the seccomp filter and namespaces still close every channel, but the
per-user counters are the grader user's (docs/security.md).
"""

from __future__ import annotations

import errno
import fcntl
import os
from pathlib import Path

BASE = 0x70000000  # 1879048192: "unused" in systemd's map of uid ranges (above container ranges, below 2^31)
SLOTS = 65536
NOBODY = 65534
_HOME = "/submission"


def _folder() -> Path:
    """One folder for every grader on the host (not under $TMPDIR, which two graders may set apart)."""
    return Path("/run/autograder-uids" if os.path.isdir("/run") else "/tmp/autograder-uids")


def available() -> bool:
    """Whether this process can give workers uids of their own: root, with the range mapped to it."""
    if os.geteuid() != 0:
        return False
    try:
        with open("/proc/self/uid_map") as f:
            ranges = [tuple(map(int, line.split())) for line in f]
    except OSError:
        return False
    return any(inside <= BASE and BASE + SLOTS <= inside + count for inside, _, count in ranges)


class Lease:
    """One uid, held until `release()` by this process, and by whoever it handed `fd` to."""

    def __init__(self, uid: int, fd: int, path: Path) -> None:
        self.uid = self.gid = uid
        self.fd: int | None = fd
        self._path = path

    def handed_over(self) -> None:
        """The sandbox holds the lock now: close our descriptor (the uid is not free until its holders die)."""
        if self.fd is not None:
            os.close(self.fd)
            self.fd = None

    def release(self) -> None:
        """Give the uid back (once the worker is killed): the file goes now if nobody holds it any more,
        else at a later lease."""
        self.handed_over()
        _settle(self._path)

    def __repr__(self) -> str:
        return f"Lease(uid={self.uid})"


_unsettled: set[Path] = set()  # given back while a sandbox process still held them


def _remove_if_free(path: Path) -> bool:
    fd = _lock(path)
    if fd is None:
        return False
    try:
        os.unlink(path)  # ours: we hold its lock, and takers check that they locked the named file
    except OSError:
        pass
    os.close(fd)
    return True


def settle() -> None:
    """Remove the files of uids given back while a sandbox process still held them, where it no longer does."""
    for path in list(_unsettled):
        _settle(path)


def _settle(path: Path) -> None:
    if _remove_if_free(path):
        _unsettled.discard(path)
    else:
        _unsettled.add(path)


def _lock(path: Path) -> int | None:
    """A descriptor of `path`, locked, and still the file `path` names; None if another process holds it."""
    try:
        fd = os.open(path, os.O_CREAT | os.O_RDWR | os.O_CLOEXEC | os.O_NOFOLLOW, 0o600)
    except OSError:
        return None
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        st = os.fstat(fd)
        named = os.stat(path, follow_symlinks=False)
        if (st.st_dev, st.st_ino) == (named.st_dev, named.st_ino):
            return fd
    except OSError:
        pass
    os.close(fd)  # held by another process, or removed (and perhaps taken again) meanwhile
    return None


_pruned_in: int | None = None


def prune() -> int:
    """Remove the lease files nobody holds (left by graders that were killed); returns how many."""
    folder, removed = _folder(), 0
    try:
        names = os.listdir(folder)
    except OSError:
        return 0
    for name in names:
        if name.isdigit() and _remove_if_free(folder / name):
            removed += 1
    return removed


def lease() -> Lease:
    """A uid of the range that no other worker on the host holds; raises OSError when none is free."""
    global _pruned_in
    folder = _folder()
    folder.mkdir(mode=0o700, parents=True, exist_ok=True)
    if _pruned_in != os.getpid():
        _pruned_in = os.getpid()
        prune()
    settle()
    start = int.from_bytes(os.urandom(4), "little") % SLOTS  # graders (forked alike) rarely try the same first
    for i in range(SLOTS):
        uid = BASE + (start + i) % SLOTS
        fd = _lock(folder / str(uid))
        if fd is not None:
            return Lease(uid, fd, folder / str(uid))
    raise OSError(errno.EAGAIN, f"all {SLOTS} worker uids are in use")


def accounts(uid: int, gid: int) -> dict[str, str]:
    """The sandbox's /etc/passwd and /etc/group: root, and the worker's uid as nobody (no host account)."""
    return {
        "/etc/passwd": f"root:x:0:0:root:/root:/usr/sbin/nologin\n"
        f"nobody:x:{uid}:{gid}:sandboxed notebook:{_HOME}:/usr/sbin/nologin\n",
        "/etc/group": f"root:x:0:\nnogroup:x:{gid}:\n",
    }


def become(uid: int, gid: int) -> None:
    """Switch this (root) process to the worker's uid and gid for good: from uid 0 to another, the kernel
    clears every capability.  Only a leased uid, or nobody, is accepted (the caller is trusted; this is
    a last check)."""
    if not (BASE <= uid < BASE + SLOTS or uid == NOBODY) or gid != uid:
        raise ValueError(f"not a worker uid: {uid}/{gid}")
    os.setgroups([])
    os.setresgid(gid, gid, gid)
    os.setresuid(uid, uid, uid)
