"""Attacks on what workers share: per-user kernel state, IPC, the next run (docs/security.md, "What a worker
can share with whom").

Workers used to run as one host uid (65534) for every grading run on the machine, so everything the kernel
keeps per user was shared by all of them, and some of it outlived them.  Each test here is a hostile
notebook against the real sandbox (warm: forked from the zygote, as every `--jobs` judge's workers are;
cold where the level changes what is shared), and what it did before:

* `thread_flood`: 250 sleeping threads made a neighbour's `cc` fail to fork (RLIMIT_NPROC counted the
  shared uid): its kernel exercise failed.  Now each worker has its own uid and `pids` cgroup.
* `keyring`: `add_key` stored a value in the shared uid's keyring, which outlives every worker; the next
  run read it back.  Now the keyring calls are refused (`syscalls.py`).
* `inotify`: one worker took the uid's 128 inotify instances; a neighbour's `inotify_init` failed.
* `io_uring`, AIO: allowed; now refused.
* SysV and POSIX IPC, POSIX shared memory, abstract Unix sockets, FIFOs: each worker has IPC and network
  namespaces and a `/tmp` and `/dev/shm` of its own; these held before too, and are guarded here.
"""

from __future__ import annotations

import time

import pytest

from autograder.config.limits import Limits
from autograder.execute import identity
from autograder.execute.runner import NotebookRunner
from autograder.notebook.parse import Cell

pytestmark = pytest.mark.serial  # host-wide state (uids, IPC, keys, per-user counts) looked at while workers live

LIMITS = Limits(cell_timeout=30, submission_timeout=240, max_restarts=1)  # processes: the default 256

FLOOD = """
import threading, time
stop = threading.Event()
threads = []
try:
    while len(threads) < 400:  # as many as it may: its own 256 processes stop it
        t = threading.Thread(target=stop.wait, daemon=True)
        t.start()
        threads.append(t)
except RuntimeError:
    pass  # the most it could start: every one of them held
print("FLOODED", len(threads), flush=True)
"""

COMPILE = r"""
import ctypes, os, subprocess, tempfile
src = os.path.join(tempfile.mkdtemp(), "k.c")
with open(src, "w") as f:
    f.write("int axpy(int a, int x, int y) { return a * x + y; }\n")
r = subprocess.run(["cc", "-O2", "-shared", "-fPIC", "-o", src[:-1] + "so", src], capture_output=True, text=True)
assert r.returncode == 0, r.stderr
print("KERNEL", ctypes.CDLL(src[:-1] + "so").axpy(3, 4, 5), flush=True)
"""


def _runner(isolation, *sources: str) -> NotebookRunner:
    return NotebookRunner(
        [Cell(index=i + 1, source=s) for i, s in enumerate(sources)], probes=None, limits=LIMITS, isolation=isolation
    )


def _outcome(runner: NotebookRunner) -> list[tuple]:
    return [(c.status, (c.error or {}).get("message")) for c in runner.cell_records]


def _printed(runner: NotebookRunner, wanted: str) -> str:
    """What the runner's live worker printed so far, once `wanted` is in it (its output is drained by a
    thread: wait a moment for it)."""
    deadline = time.monotonic() + 10
    while True:
        text = runner.stdout + (runner.worker.stdout.text() if runner.worker is not None else "")
        if wanted in text or time.monotonic() > deadline:
            return text
        time.sleep(0.05)


def _threads_of(pid: int) -> int:
    with open(f"/proc/{pid}/status") as f:
        return int(next(line.split()[1] for line in f if line.startswith("Threads:")))


@pytest.mark.parametrize("kind", ["warm", "cold"])
def test_a_thread_flood_does_not_stop_a_neighbours_compiler(sandbox, kind):
    """A notebook holding all the sleeping threads it may (its 256 processes) while a correct neighbour compiles a
    C kernel and loads it with ctypes, as `02b_kernels` does under `--jobs 2`: the neighbour's cells end as
    in a quiet run.  Before: `vfork: Resource temporarily unavailable` in the neighbour (one uid, one
    RLIMIT_NPROC count for both), and its exercise failed."""
    iso = sandbox(kind)
    with _runner(iso, COMPILE) as quiet:
        quiet.execute()
        expected = _outcome(quiet)
    assert expected == [("ok", None)] and "KERNEL 17" in quiet.stdout, quiet.cell_records
    with _runner(iso, FLOOD) as flood:
        flood.execute()  # the worker stays, its threads held, until the runner closes
        held = int(_printed(flood, "FLOODED").split("FLOODED")[1].split()[0])
        assert held >= 240, held
        assert _threads_of(flood.worker.pid if kind == "warm" else _worker_pid(flood)) >= 240
        with _runner(iso, COMPILE) as neighbour:
            neighbour.execute()
            assert _outcome(neighbour) == expected, neighbour.cell_records
            assert "KERNEL 17" in _printed(neighbour, "KERNEL")


def _worker_pid(runner: NotebookRunner) -> int:
    """A cold worker's pid: the process with the most threads under its bubblewrap."""
    from autograder.execute.process import _tree

    return max(_tree(runner.worker.pid), key=_threads_of)


KEY_STORE = """
import ctypes
libc = ctypes.CDLL(None, use_errno=True)
KEY_SPEC_USER_KEYRING, KEY_SPEC_SESSION_KEYRING = -4, -3
for ring in (KEY_SPEC_USER_KEYRING, KEY_SPEC_SESSION_KEYRING):
    k = libc.syscall(SYS_add_key, b"user", b"ag-solution", b"def double(x): return x * 2", 27, ring)
    print("ADD", ring, k, ctypes.get_errno(), flush=True)
"""

KEY_FIND = """
import ctypes
libc = ctypes.CDLL(None, use_errno=True)
found = []
for ring in (-4, -3, -5, -6):  # user, session, user session, the user's keyring by request_key
    k = libc.syscall(SYS_request_key, b"user", b"ag-solution", None, ring)
    print("FIND", ring, k, ctypes.get_errno(), flush=True)
    if k > 0:
        buf = ctypes.create_string_buffer(256)
        n = libc.syscall(SYS_keyctl, 11, k, buf, 256)  # KEYCTL_READ
        found.append(buf.raw[:max(n, 0)])
print("FOUND", found, flush=True)
"""


def _with_numbers(code: str) -> str:
    import os

    from autograder.execute import syscalls

    nr = syscalls._ARCHES[os.uname().machine][1]
    return "".join(f"SYS_{n} = {nr[n]}\n" for n in ("add_key", "request_key", "keyctl")) + code


@pytest.mark.parametrize("kind", ["warm", "cold"])
def test_a_key_stored_in_one_run_is_not_found_in_the_next(sandbox, kind):
    """One run stores the solution in the kernel's keyrings (`add_key`, user and session); a later run, in a
    new sandbox, looks for it (`request_key`, `keyctl`).  Before: a user's keyring outlives every process of
    the user (and a cold sandbox's session keyring was the grader's), so the blank notebook of a later run
    read the solution back and scored full marks.  Now every keyring call is refused."""
    import os

    if os.uname().machine not in ("x86_64", "aarch64"):
        pytest.skip("no seccomp filter on this machine")
    with _runner(sandbox(kind), _with_numbers(KEY_STORE)) as first:
        first.execute()
    assert [c.status for c in first.cell_records] == ["ok"], first.cell_records
    assert first.stdout.count("ADD") == 2 and all(
        line.split()[2:] == ["-1", "1"] for line in first.stdout.splitlines() if line.startswith("ADD")
    )
    with _runner(sandbox(kind), _with_numbers(KEY_FIND)) as later:
        later.execute()
    assert [c.status for c in later.cell_records] == ["ok"], later.cell_records
    assert "FOUND []" in later.stdout and "double" not in later.stdout
    assert all(line.split()[2:] == ["-1", "1"] for line in later.stdout.splitlines() if line.startswith("FIND"))


HOLD_CHANNELS = r"""
import ctypes, os, socket
libc = ctypes.CDLL(None, use_errno=True)
KEY = 0x41475f37
shm = libc.shmget(KEY, 4096, 0o1666)          # IPC_CREAT | 0666
msq = libc.msgget(KEY, 0o1666)
sem = libc.semget(KEY, 1, 0o1666)
mq = libc.mq_open(b"/ag-channel", os.O_CREAT | os.O_RDWR, 0o666, None)
with open("/dev/shm/ag-channel", "w") as f:
    f.write("42")
os.mkfifo("/tmp/ag-fifo")
abstract = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
abstract.bind("\0ag-channel")
abstract.listen(1)
dgram = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
dgram.bind("\0ag-dgram")
print("HELD", shm >= 0, msq >= 0, sem >= 0, mq >= 0, flush=True)
"""

FIND_CHANNELS = r"""
import ctypes, os, socket
libc = ctypes.CDLL(None, use_errno=True)
KEY = 0x41475f37
found = {"shm": libc.shmget(KEY, 0, 0), "msg": libc.msgget(KEY, 0), "sem": libc.semget(KEY, 0, 0),
         "mq": libc.mq_open(b"/ag-channel", os.O_RDWR, 0, None),
         "posix_shm": os.path.exists("/dev/shm/ag-channel"), "fifo": os.path.exists("/tmp/ag-fifo")}
for name, kind in (("ag-channel", socket.SOCK_STREAM), ("ag-dgram", socket.SOCK_DGRAM)):
    s = socket.socket(socket.AF_UNIX, kind)
    try:
        s.connect("\0" + name)
        found[name] = True
    except OSError:
        found[name] = False
print("FOUND", sorted(k for k, v in found.items() if v is True or (type(v) is int and v >= 0)), flush=True)
"""


@pytest.mark.parametrize("kind", ["warm", "cold"])
def test_no_ipc_or_abstract_socket_between_two_live_workers(sandbox, kind):
    """One worker creates SysV shared memory, a message queue and a semaphore set, a POSIX message queue,
    POSIX shared memory, a FIFO and two abstract Unix sockets, and stays alive; a second worker, at the
    same time, finds none of them (IPC and network namespaces, its own /tmp and /dev/shm)."""
    iso = sandbox(kind)
    with _runner(iso, HOLD_CHANNELS) as holder:
        holder.execute()
        assert "HELD True True True True" in _printed(holder, "HELD"), holder.cell_records
        with _runner(iso, HOLD_CHANNELS.replace("HELD", "ALSO"), FIND_CHANNELS) as other:
            other.execute()  # creating its own of the same names works too: nothing is taken
            assert "ALSO True True True True" in _printed(other, "ALSO"), other.cell_records
        with _runner(iso, FIND_CHANNELS) as seeker:
            seeker.execute()
            assert "FOUND []" in _printed(seeker, "FOUND"), seeker.cell_records


INOTIFY_TAKE = """
import ctypes
libc = ctypes.CDLL(None, use_errno=True)
fds = [libc.inotify_init1(0) for _ in range(200)]
print("TOOK", sum(fd >= 0 for fd in fds), flush=True)
"""
INOTIFY_NEED = """
import ctypes
libc = ctypes.CDLL(None, use_errno=True)
fd = libc.inotify_init1(0)
print("MINE", fd >= 0, ctypes.get_errno() if fd < 0 else 0, flush=True)
"""


def test_one_worker_cannot_take_a_neighbours_per_user_counts(sandbox):
    """Per-user counts beyond processes: a worker that takes every inotify instance its user may have
    (128 per user by default) leaves a neighbour its own.  Before: one uid, so the neighbour got EMFILE."""
    with open("/proc/sys/fs/inotify/max_user_instances") as f:
        if int(f.read()) > 180:
            pytest.skip("this host allows more inotify instances per user than a worker may open files")
    iso = sandbox("warm")
    with _runner(iso, INOTIFY_TAKE) as taker:
        taker.execute()
        took = int(_printed(taker, "TOOK").split("TOOK")[1].split()[0])
        assert took >= 100, took
        with _runner(iso, INOTIFY_NEED) as neighbour:
            neighbour.execute()
            assert "MINE True 0" in _printed(neighbour, "MINE")


REFUSED = r"""
import ctypes, os
libc = ctypes.CDLL(None, use_errno=True)
params = (ctypes.c_uint32 * 30)()
out = {}
for name, args in (("io_uring_setup", (8, params)), ("io_setup", (8, ctypes.byref(ctypes.c_ulong(0)))),
                   ("add_key", (b"user", b"x", b"y", 1, -4)), ("keyctl", (0, -4, 0)),
                   ("request_key", (b"user", b"x", None, -4)), ("userfaultfd", (0,)), ("bpf", (0, None, 0)),
                   ("perf_event_open", (None, 0, -1, -1, 0)), ("fanotify_init", (0, 0))):
    r = libc.syscall(NR[name], *args)
    out[name] = (r, ctypes.get_errno())
print("REFUSED", sorted(k for k, (r, e) in out.items() if r == -1 and e == 1), flush=True)
print("ALL", out, flush=True)
"""


@pytest.mark.parametrize("kind", ["warm", "cold"])
def test_io_uring_aio_keyrings_and_kernel_tracing_are_refused(sandbox, kind):
    """`io_uring` (allowed before), Linux AIO (its event count is host-wide), the keyring calls, and what
    Docker's profile refuses a container without capabilities (`userfaultfd`, `bpf`, `perf_event_open`,
    `fanotify_init`): EPERM from the seccomp allowlist, in both sandboxes."""
    import os

    from autograder.execute import syscalls

    if os.uname().machine not in syscalls._ARCHES:
        pytest.skip("no seccomp filter on this machine")
    nr = syscalls._ARCHES[os.uname().machine][1]
    with _runner(sandbox(kind), f"NR = {nr!r}\n" + REFUSED) as runner:
        runner.execute()
    assert [c.status for c in runner.cell_records] == ["ok"], runner.cell_records
    names = [
        "add_key",
        "bpf",
        "fanotify_init",
        "io_setup",
        "io_uring_setup",
        "keyctl",
        "perf_event_open",
        "request_key",
        "userfaultfd",
    ]
    assert f"REFUSED {names}" in runner.stdout, runner.stdout


def test_two_live_workers_never_share_a_uid(sandbox):
    """Every worker of every isolation on the host runs as a uid of its own from the leased range, named
    nobody inside; two isolations (two grading runs) at the same time included."""
    if not identity.available():
        pytest.skip("workers get uids of their own only where the grader runs as root")
    code = "import os, pwd\nprint('UID', os.getuid(), os.getgid(), pwd.getpwuid(os.getuid()).pw_name, flush=True)\n"
    runners = [_runner(iso, code) for iso in (sandbox("warm"), sandbox("warm"), sandbox("cold")) for _ in range(2)]
    try:
        for r in runners:
            r.execute()
        seen = [_printed(r, "UID").split("UID")[1].split() for r in runners]
    finally:
        for r in runners:
            r.close()
    uids = [int(u) for u, _, _ in seen]
    assert len(set(uids)) == len(uids), uids
    assert all(
        identity.BASE <= u < identity.BASE + identity.SLOTS and g == str(u) and name == "nobody"
        for u, (_, g, name) in zip(uids, seen)
    )


def test_a_uid_is_held_while_its_worker_lives_and_free_after(sandbox):
    """The lease of a worker's uid is held by the sandbox (not by the grader) while the worker lives, and
    free once it is killed; no other lease gets it meanwhile."""
    if not identity.available():
        pytest.skip("workers get uids of their own only where the grader runs as root")
    import fcntl
    import os

    iso = sandbox("warm")
    with _runner(iso, "x = 1") as runner:
        runner.execute()
        lease = runner.worker.lease
        path = identity._folder() / str(lease.uid)
        assert lease.fd is None and path.exists()  # handed over: the grader keeps no descriptor of it
        fd = os.open(path, os.O_RDONLY)
        try:
            with pytest.raises(BlockingIOError):
                fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        finally:
            os.close(fd)
        others = [identity.lease() for _ in range(50)]
        assert lease.uid not in {o.uid for o in others}
        for o in others:
            o.release()
    deadline = time.monotonic() + 5
    while path.exists() and time.monotonic() < deadline:
        identity.settle()
        time.sleep(0.05)
    assert not path.exists()


def test_leases_from_racing_processes_are_distinct():
    """Processes leasing at the same time never hold the same uid: four processes lease 100 uids each,
    giving back every other one as they go (a file removed while another taker opens it), and hold the
    rest until all are done; every uid held at that moment is distinct."""
    if not identity.available():
        pytest.skip("uids can be leased only by root")
    import multiprocessing as mp

    ctx = mp.get_context("fork")
    barrier, queue = ctx.Barrier(4), ctx.Queue()
    procs = [ctx.Process(target=_lease_and_hold, args=(barrier, queue)) for _ in range(4)]
    for p in procs:
        p.start()
    held = [u for _ in procs for u in queue.get(timeout=60)]
    for p in procs:
        p.join(timeout=60)
    assert len(held) == 4 * 50 and len(set(held)) == len(held)


def _lease_and_hold(barrier, queue) -> None:
    kept = []
    for i in range(100):
        lease = identity.lease()
        if i % 2:
            lease.release()
        else:
            kept.append(lease)
    barrier.wait(timeout=60)  # every process holds its 50 now
    queue.put([le.uid for le in kept])
    barrier.wait(timeout=60)
    for le in kept:
        le.release()
