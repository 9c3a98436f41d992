"""The sandbox's disk: one tmpfs, bounded in bytes and in files, for everything a worker can write.

`RLIMIT_FSIZE` caps one file; without more, a notebook can write gigabytes, or hundreds of
thousands of small files, in its work folder, `/tmp` or `/dev/shm` before a cell deadline.
So a worker's writable places are folders of *one* tmpfs mounted with `size=` and
`nr_inodes=` (the manifest's `disk_mb` and `files`): a write past either fails with ENOSPC,
in that notebook only.  The tmpfs lives in the worker's own mount namespace, so it vanishes
with the worker, whatever kills it or its grader: nothing the notebook wrote is ever on the
host's disk.  Its pages are RAM, charged to the worker's memory cgroup (`memory_mb`).

Used by both bubblewrap levels: the warm zygote's intermediate process (root) calls
`mount_disk`; a cold sandbox runs `python -m autograder.execute.disk ... -- WORKER ARGV`, which
bubblewrap starts with CAP_SYS_ADMIN (as root: with CAP_SETUID/SETGID too, no user namespace; otherwise
in the sandbox's user namespace only): it mounts, makes bubblewrap's own writable tmpfs (`/`, `/dev`,
`/run`) read-only, becomes the worker's own uid (`identity.py`, as root), installs the seccomp filter of
`syscalls.py` (no user namespace, in which the notebook could mount a tmpfs of its own), drops
every capability and execs the worker.
"""

from __future__ import annotations

import ctypes
import json
import os
import sys

from autograder.execute import identity, syscalls
from autograder.execute.syscalls import check

CLONE_NEWNS = 0x00020000
MS_RDONLY, MS_NOSUID, MS_NODEV, MS_REMOUNT = 1, 2, 4, 32
MS_BIND, MS_REC, MS_PRIVATE = 4096, 16384, 1 << 18
# statvfs f_flag bits that are also mount flags (and, once locked, must be kept on a remount)
_KEPT_FLAGS = 1 | 2 | 4 | 8 | 16 | 64 | 1024 | 2048 | 4096
_PRIVATE = ("/tmp", "/dev/shm")  # covered by the disk's folders, besides the work folder
_LAYOUT = ".ag-disk"

_libc = ctypes.CDLL(None, use_errno=True)


def mount(src: str | None, target: str, fstype: str | None, flags: int, data: str | None = None) -> None:
    enc = lambda s: s.encode() if s is not None else None  # noqa: E731
    check(_libc.mount(enc(src), enc(target), enc(fstype), flags, enc(data)), f"mount {target}")


def _bind_fd(fd: int, target: str, flags: int = 0) -> None:
    mount(f"/proc/self/fd/{fd}", target, None, MS_BIND | MS_REC)
    if flags:
        mount(None, target, None, MS_BIND | MS_REMOUNT | flags)


def mount_disk(work: str, size_bytes: int, files: int, keep: list[str], shown: dict[str, str] | None = None) -> None:
    """In a mount namespace of our own: `work`, /tmp and /dev/shm become folders of one tmpfs of
    `size_bytes` and `files` inodes (the few folders made here count).  `keep`: read-only paths
    (the Python environment, the grader) that live under /tmp, e.g. a kit checked out there;
    they are bound again on top.  `shown`: files the worker sees, read-only, at these paths
    (its own /etc/passwd and /etc/group, `identity.accounts`), written by us on the same disk."""
    covered = [d for d in _PRIVATE if os.path.isdir(d)]
    held: list[tuple[str, int]] = []
    for p in sorted(keep):  # a folder sorts before what it holds, which comes back with it (read-only)
        if (
            any(p.startswith(d + "/") for d in covered)
            and os.path.exists(p)
            and not any(p.startswith(q + "/") for q, _ in held)
        ):
            held.append((p, os.open(p, os.O_PATH | os.O_CLOEXEC)))
    mount("tmpfs", "/tmp", "tmpfs", MS_NOSUID | MS_NODEV, f"size={size_bytes},nr_inodes={files},mode=0755")
    os.mkdir(f"/tmp/{_LAYOUT}", 0o755)
    parts = {}
    for name in ("tmp", "shm", "work"):
        path = f"/tmp/{_LAYOUT}/{name}"
        os.mkdir(path)
        os.chmod(path, 0o777 if name == "work" else 0o1777)  # the sandbox's only user writes there
        parts[name] = os.open(path, os.O_PATH | os.O_CLOEXEC)
    files_shown = []
    for n, (target, text) in enumerate((shown or {}).items()):  # on the disk's root, which the binds below hide
        path = f"/tmp/{_LAYOUT}/shown{n}"
        with open(path, "w", encoding="utf-8") as f:
            f.write(text)
        os.chmod(path, 0o644)
        files_shown.append((target, os.open(path, os.O_PATH | os.O_CLOEXEC)))
    if "/dev/shm" in covered:
        _bind_fd(parts["shm"], "/dev/shm")
    _bind_fd(parts["tmp"], "/tmp")  # hides the disk's root, and the folders above
    os.makedirs(work, exist_ok=True)
    _bind_fd(parts["work"], work)
    for fd in parts.values():
        os.close(fd)
    for target, fd in files_shown:
        _bind_fd(fd, target, MS_RDONLY | MS_NOSUID | MS_NODEV)
        os.close(fd)
    for path, fd in held:
        if os.path.isdir(f"/proc/self/fd/{fd}"):
            os.makedirs(path, exist_ok=True)
        else:
            os.makedirs(os.path.dirname(path), exist_ok=True)
            open(path, "a").close()
        _bind_fd(fd, path, MS_RDONLY | MS_NOSUID | MS_NODEV)
        os.close(fd)


def _read_only(path: str) -> None:
    """Make one mount read-only (keeping the flags it has: locked ones cannot be dropped)."""
    mount(None, path, None, MS_BIND | MS_REMOUNT | MS_RDONLY | (os.statvfs(path).f_flag & _KEPT_FLAGS))


class _CapHeader(ctypes.Structure):
    _fields_ = [("version", ctypes.c_uint32), ("pid", ctypes.c_int)]


def _drop_capabilities() -> None:
    data = (ctypes.c_uint32 * 6)()  # effective, permitted, inheritable for both 32-bit halves: none
    check(_libc.capset(ctypes.byref(_CapHeader(0x20080522, 0)), data), "capset")  # _LINUX_CAPABILITY_VERSION_3


def main() -> None:
    """Cold sandbox entry: `disk.py SIZE_BYTES FILES WORK KEEP_JSON UID LEASE_FD -- ARGV...`, run by
    bubblewrap.  UID: the worker's own host uid (`identity.lease`), which this process (root, no user
    namespace) becomes; LEASE_FD: its lock, held by bubblewrap, not passed on to the worker.  Both empty in
    a user namespace, where bubblewrap made us the sandbox's nobody already."""
    size, files, work, keep = int(sys.argv[1]), int(sys.argv[2]), sys.argv[3], json.loads(sys.argv[4])
    uid = int(sys.argv[5]) if sys.argv[5] else None
    if sys.argv[6]:
        os.set_inheritable(int(sys.argv[6]), False)  # the uid's lease: bubblewrap holds it, the worker does not
    argv = sys.argv[sys.argv.index("--") + 1 :]
    check(_libc.unshare(CLONE_NEWNS), "unshare")
    mount(None, "/", None, MS_REC | MS_PRIVATE)
    mount_disk(work, size, files, keep, identity.accounts(uid, uid) if uid is not None else None)
    for path in ("/", "/dev", "/run"):  # bubblewrap's own tmpfs, writable by the sandbox's uid
        if os.path.isdir(path):
            _read_only(path)
    os.chdir(work)
    if uid is not None:
        identity.become(uid, uid)
    syscalls.restrict()
    _drop_capabilities()
    os.execv(argv[0], argv)


if __name__ == "__main__":
    main()
