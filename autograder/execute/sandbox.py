"""How a worker comes to be, and how it is isolated.

Three levels, best first (`choose_isolation` picks):

* `WarmBubblewrap` (Linux, grader running as root): a zygote with torch imported runs in
  bubblewrap; each worker is forked from it and put in namespaces of its own (see
  `zygote.py`).  Milliseconds per worker instead of seconds.
* `Bubblewrap` (Linux): one cold bubblewrap sandbox per worker, in fresh PID, network, IPC, UTS
  and cgroup namespaces (and a user namespace unless the grader runs as root), all capabilities
  dropped.
* `RlimitsOnly`: a separate process with rlimits and its own process group, nothing more.
  Refused unless the instructor accepts weaker isolation; results record the level used.

Nothing is shared between workers (docs/security.md, "What a worker can share"): where the grader runs
as root, each bubblewrap worker runs as a host uid of its own (`identity.py`: leased for its
lifetime, so no two workers on the host, of any grading run, have the same one at once, and named
nobody in its own `/etc/passwd`); without root it is uid 65534 of its own user namespace.  The seccomp
allowlist (`syscalls.py`) closes the kernel's keyrings, AIO and the calls Docker refuses; the IPC and
network namespaces close SysV and POSIX IPC and abstract Unix sockets.

In the two bubblewrap levels the worker sees `/usr`, `/lib`, `/bin`, the Python
environment, the grader package and the assignment's `probes.py`, all read-only, plus its
own `/etc/passwd` and `/etc/group` (two accounts: root and nobody, the worker; none of the host's), and its
own disk: its work folder, `/tmp` and `/dev/shm` on one tmpfs bounded in bytes and files
(`disk.py`), gone with the worker; no host folder is writable inside (under rlimits the
worker writes to a host folder, bounded only per file).  Hidden tests, `solutions/`,
results, the gradebook and other submissions are not there.  Workers die with the trusted
process.  Where the host lets us create cgroups, each worker also gets a process-count cap
(`pids`: fork and thread bombs; RLIMIT_NPROC, a count per uid, only where there are no cgroups) and a
memory cap.
"""

from __future__ import annotations

import array
import functools
import glob
import json
import os
import select
import shutil
import socket
import subprocess
import sys
import threading
import time
import uuid
from pathlib import Path
from typing import TYPE_CHECKING

import autograder
from autograder.config.assignment import framework_of, master_of
from autograder.config.limits import Limits
from autograder.execute import identity, interpreter, nvidia, scratch

if TYPE_CHECKING:  # imported where a worker is spawned: they import torch, which the zygote is told to
    from autograder.execute import wire  # import first (`prestart`), so the grader's import overlaps it
    from autograder.execute.process import WorkerProcess


class SandboxUnavailable(RuntimeError):
    pass


class Isolation:
    name = "none"

    def __init__(self) -> None:
        self._busy_cgroups: list[Path] = []  # of killed workers, not yet taken apart (`release`)
        self._busy_lock = threading.Lock()

    def __getstate__(self) -> dict:
        """Sent to a judge process: without this process's workers' cgroups (each removes its own)."""
        return {k: v for k, v in self.__dict__.items() if k not in ("_busy_cgroups", "_busy_lock")}

    def __setstate__(self, state: dict) -> None:
        self.__dict__.update(state)
        Isolation.__init__(self)

    def new_workdir(self) -> Path:
        """A host folder for one submission (the cwd of a process-level worker; under bubblewrap
        only a name: the worker writes to its own tmpfs, `disk.py`).  Pruned if we are killed."""
        return scratch.make("ag-work-")

    def remove_workdir(self, workdir: Path) -> None:
        scratch.remove(workdir)

    def spawn(
        self, workdir: Path, probes: Path | None, limits: Limits, env: dict[str, str], wire_limits: wire.Limits
    ) -> WorkerProcess:
        raise NotImplementedError

    def prestart(self, probes: Path | None, limits: Limits) -> None:
        """Start what workers for `probes` are made from, without waiting (nothing, unless warm)."""

    def sees_gpu(self) -> bool:
        """Whether workers see an NVIDIA GPU: then CUDA works in them and Triton compiles kernels for it
        (the worker runs Triton's CPU interpreter where it sees none)."""
        return nvidia.visible()

    def rlimits(self, limits: Limits) -> dict[str, int]:
        """The rlimits the worker sets on itself under this isolation."""
        return limits.rlimits(gpu=self.sees_gpu())

    def release(self, worker: WorkerProcess) -> None:
        """Free what `spawn` set up for this (killed) worker.  Its cgroups can only go once the kernel has
        taken its processes apart: the ones that cannot go yet are tried again at the next release and
        waited for at `close`, not slept on here after every submission.  Its uid is given back: free for
        another worker once the sandbox's own processes, which hold it, are gone (`identity.py`)."""
        with self._busy_lock:
            self._busy_cgroups = _Cgroups.remove([*self._busy_cgroups, *getattr(worker, "cgroups", [])], wait=False)
        lease = getattr(worker, "lease", None)
        if lease is not None:
            lease.release()

    def close(self) -> None:
        """Stop long-lived helpers (zygotes); remove the cgroups of the last workers, and the lease files of
        their uids."""
        with self._busy_lock:
            self._busy_cgroups = _Cgroups.remove(self._busy_cgroups, wait=True)
        identity.settle()


class RlimitsOnly(Isolation):
    """Separate process, rlimits, own process group; no filesystem or network isolation."""

    name = "rlimits"

    def spawn(
        self, workdir: Path, probes: Path | None, limits: Limits, env: dict[str, str], wire_limits: wire.Limits
    ) -> WorkerProcess:
        from autograder.execute.process import WorkerProcess

        return WorkerProcess.launch(
            argv_prefix=[],
            workdir=workdir,
            env={**env, **framework_of(probes).env()},
            output_cap=limits.output_kb * 1024,
            limits=wire_limits,
        )


_CGROUP_ROOT = Path(os.environ.get("AUTOGRADER_CGROUP_ROOT", "/sys/fs/cgroup"))


class _Cgroups:
    """Per-worker cgroups (v1 `pids` + `memory`, or v2), where the host lets us create them."""

    @staticmethod
    @functools.cache
    def layout() -> str | None:
        if (_CGROUP_ROOT / "pids" / "cgroup.procs").exists() and os.access(_CGROUP_ROOT / "pids", os.W_OK):
            return "v1"
        if (_CGROUP_ROOT / "cgroup.subtree_control").exists() and os.access(_CGROUP_ROOT, os.W_OK):
            return "v2"
        return None

    @classmethod
    def create(cls, limits: Limits) -> list[Path]:
        """Make the groups; returns their folders (empty when unsupported).  Where the host lets us make them
        but the worker's `pids` group cannot be made, raises OSError: a worker bounded by nothing is not
        started (the runner retries it as the host's fault)."""
        name = uuid.uuid4().hex
        made: list[Path] = []
        try:
            if cls.layout() == "v1":
                pids = _CGROUP_ROOT / "pids" / "autograder" / name
                pids.mkdir(parents=True)
                (pids / "pids.max").write_text(str(limits.processes))
                made.append(pids)
                mem = _CGROUP_ROOT / "memory" / "autograder" / name
                try:
                    mem.mkdir(parents=True)
                    (mem / "memory.limit_in_bytes").write_text(str(limits.memory_mb * 2**20))
                    made.append(mem)
                except OSError:
                    pass
            elif cls.layout() == "v2":
                g = _CGROUP_ROOT / "autograder" / name
                g.mkdir(parents=True)
                (g / "pids.max").write_text(str(limits.processes))
                (g / "memory.max").write_text(str(limits.memory_mb * 2**20))
                made.append(g)
        except OSError:
            cls.remove(made, wait=False)
            raise
        return made

    @classmethod
    def prune(cls, older_than: float = 600.0) -> None:
        """Remove empty groups left by a grader that was killed (a live group is never empty)."""
        roots = {
            "v1": [_CGROUP_ROOT / "pids" / "autograder", _CGROUP_ROOT / "memory" / "autograder"],
            "v2": [_CGROUP_ROOT / "autograder"],
        }.get(cls.layout() or "", [])
        now = time.time()
        for root in roots:
            for g in root.glob("*") if root.is_dir() else []:
                try:
                    if g.is_dir() and now - g.stat().st_mtime > older_than:
                        g.rmdir()
                except OSError:
                    pass

    @staticmethod
    def join(groups: list[Path], pid: int) -> None:
        for g in groups:
            (g / "cgroup.procs").write_text(str(pid))

    @staticmethod
    def remove(groups: list[Path], wait: bool = True) -> list[Path]:
        """Remove the groups; returns those still in use (`wait`: for up to 2 s each, as the namespace's
        processes are reaped)."""
        busy = []
        for g in groups:
            for _ in range(100 if wait else 1):
                try:
                    g.rmdir()
                    break
                except FileNotFoundError:
                    break
                except OSError:
                    if wait:
                        time.sleep(0.02)
            else:
                busy.append(g)
        return busy


_ETC = Path(__file__).resolve().parent / "etc"  # the sandbox's /etc/passwd and /etc/group (a worker with a
# uid of its own gets its own, `identity.accounts`, bound on top)
# the namespaces of a sandbox started by root: no user namespace (its workers get host uids of their own)
_NAMESPACES_AS_ROOT = ["--unshare-pid", "--unshare-net", "--unshare-ipc", "--unshare-uts", "--unshare-cgroup-try"]


@functools.cache
def _bwrap() -> str | None:
    """The absolute path of a bubblewrap that can create namespaces here, or None.  Sandboxes run this
    very file: workers get a minimal PATH, which may miss where the check found it (/usr/local/bin)."""
    bwrap = shutil.which("bwrap")
    if not bwrap:
        return None
    bwrap = os.path.abspath(bwrap)
    try:
        ok = (
            subprocess.run(
                [bwrap, "--unshare-all", "--ro-bind", "/", "/", "true"], capture_output=True, timeout=20
            ).returncode
            == 0
        )
    except (OSError, subprocess.TimeoutExpired):
        ok = False
    return bwrap if ok else None


# imported by every zygote before these, or (TensorFlow, Keras) by a TensorFlow assignment's, quietly
_FRAMEWORKS = {"numpy", "torch", "tensorflow", "keras"}  # their submodules too: the zygote imports them in its order
_ALWAYS_IMPORTED = {"autograder", *_FRAMEWORKS}


def _preloaded(probes: Path | None) -> list[str]:
    """The other modules the assignment's master notebook and probes import (pandas, matplotlib.pyplot,
    triton...), named as they import them, for its zygote to import once: read on this side, as the master
    never enters a sandbox.  Named whole: with `matplotlib` alone, each worker of 04_fit_api built pyplot's font
    list again (0.33 s of CPU a worker).  The kit's own modules a notebook or probes import too
    (`autograder.student.selfcheck`, `autograder.probe.meta_device`: 10-20 ms a worker).  Only these: pandas and
    matplotlib, once imported by every zygote, took ~0.6 s of CPU before the first worker of every class, and only
    04_fit_api's notebooks use them; a student who imports another module pays for it in their own worker, as in
    Jupyter."""
    if probes is None:
        return []
    from autograder.notebook.imports import worker_imports

    return [
        m
        for m in worker_imports(master_of(probes), probes)
        if m not in _ALWAYS_IMPORTED and m.split(".")[0] not in _FRAMEWORKS
    ]


def _readonly_paths(probes: Path | None) -> list[str]:
    paths = {
        "/usr",
        "/bin",
        "/lib",
        "/lib64",
        "/lib32",
        "/sbin",
        "/etc/ld.so.cache",
        "/etc/alternatives",
        "/etc/localtime",
        sys.prefix,
        sys.base_prefix,
        sys.exec_prefix,
        str(Path(os.path.realpath(sys.executable)).parents[1]),
        *interpreter.import_folders(),
        str(Path(autograder.__file__).resolve().parent),
    }
    if probes is not None:
        paths.add(str(probes.resolve()))
    return sorted(p for p in paths if os.path.exists(p))


class Bubblewrap(Isolation):
    name = "bubblewrap"

    def __init__(self, *, gpu: bool = False) -> None:
        super().__init__()
        bwrap = _bwrap()
        if bwrap is None:
            raise SandboxUnavailable("bubblewrap (bwrap) is not installed or cannot create namespaces here")
        self.bwrap = bwrap
        self.gpu = gpu
        _Cgroups.prune()

    @staticmethod
    def available() -> bool:
        return _bwrap() is not None

    def _binds(self, probes: Path | None) -> list[str]:
        argv = ["--proc", "/proc", "--dev", "/dev", "--tmpfs", "/tmp", "--tmpfs", "/run"]
        paths = _readonly_paths(probes)
        # bwrap makes missing parent folders 0700; a worker running as a real unprivileged uid
        # (warm mode) must be able to walk through them
        parents = sorted(
            {str(q) for p in paths for q in Path(p).parents if str(q) != "/"} - set(paths), key=lambda q: q.count("/")
        )
        for q in parents:
            argv += ["--perms", "0755", "--dir", q]
        for p in paths:
            argv += ["--ro-bind", p, p]
        # who the sandbox's uids are (no host account is shown): libraries ask, e.g. torch's compile
        # cache names its folder with getpass.getuser(), which fails for a uid /etc/passwd lacks
        for name in ("passwd", "group"):
            argv += ["--ro-bind", str(_ETC / name), f"/etc/{name}"]
        if self.gpu:
            for dev in sorted(glob.glob("/dev/nvidia*")):
                argv += ["--dev-bind", dev, dev]
        return argv

    def sees_gpu(self) -> bool:
        return self.gpu and super().sees_gpu()  # /dev/nvidia* is bound only for GPU grading

    def rlimits(self, limits: Limits) -> dict[str, int]:
        # Processes are capped by the worker's own pids cgroup, where the host lets us make one: RLIMIT_NPROC
        # counts per uid, all of the uid's processes on the host.  Without cgroups it is the fallback, a cap
        # of the worker alone where it has a uid of its own (root), else of the grader's user as a whole.
        caps = limits.rlimits(gpu=self.sees_gpu())
        if _Cgroups.layout():
            caps.pop("processes", None)
        return caps

    def spawn(
        self, workdir: Path, probes: Path | None, limits: Limits, env: dict[str, str], wire_limits: wire.Limits
    ) -> WorkerProcess:
        # As root: no user namespace; `disk.py` mounts the worker's bounded disk (at `workdir`, /tmp,
        # /dev/shm) and becomes the worker's own leased uid, which drops every capability.  Otherwise:
        # CAP_SYS_ADMIN in the sandbox's user namespace only, where bubblewrap made us nobody already.
        lease = identity.lease() if identity.available() else None
        if lease is not None:
            who = [*_NAMESPACES_AS_ROOT, "--cap-drop", "ALL", "--cap-add", "CAP_SETUID", "--cap-add", "CAP_SETGID"]
        else:
            who = ["--unshare-all", "--uid", str(identity.NOBODY), "--gid", str(identity.NOBODY), "--cap-drop", "ALL"]
        argv = [
            self.bwrap,
            "--die-with-parent",
            *who,
            "--new-session",
            "--cap-add",
            "CAP_SYS_ADMIN",
            "--hostname",
            "grader",
            *self._binds(probes),
            "--dir",
            str(workdir),
            *interpreter.module_argv("autograder.execute.disk"),
            str(limits.disk_mb * 2**20),
            str(limits.files),
            str(workdir),
            json.dumps(_readonly_paths(probes)),
            *((str(lease.uid), str(lease.fd)) if lease else ("", "")),
            "--",
        ]
        try:
            groups = _Cgroups.create(limits)
        except OSError:
            if lease is not None:
                lease.release()
            raise
        if groups:
            # join the cgroups *before* bwrap forks anything, then become bwrap
            joins = " && ".join(f'echo $$ > "{g}/cgroup.procs"' for g in groups)
            argv = ["/bin/sh", "-c", f'{joins} && exec "$@"', "autograder-sandbox", *argv]
        from autograder.execute.process import WorkerProcess

        try:
            worker = WorkerProcess.launch(
                argv_prefix=argv,
                workdir=workdir,
                env={**env, **framework_of(probes).env()},
                pass_fds=(lease.fd,) if lease and lease.fd is not None else (),
                output_cap=limits.output_kb * 1024,
                limits=wire_limits,
            )
        except OSError:
            _Cgroups.remove(groups, wait=False)
            if lease is not None:
                lease.release()
            raise
        if lease is not None:
            lease.handed_over()  # bubblewrap holds it: the uid is ours while any process of the sandbox lives
        worker.cgroups = groups
        worker.lease = lease  # type: ignore[attr-defined]
        return worker


class _Zygote:
    """Trusted-side client of one zygote (one per probes file, i.e. per assignment).

    The process that starts a zygote talks to it over a socketpair; other trusted processes of
    the same run (the `--jobs` judge processes) connect to its listening socket instead of
    starting zygotes of their own: one torch start-up, and one copy of its memory, per class.
    """

    def __init__(self, argv: list[str], env: dict[str, str], timeout: float, probes: Path | None) -> None:
        ours, theirs = socket.socketpair()
        # In a folder of its own (mode 0700, under /tmp: socket paths must be short), outside
        # anything a worker sees (workers get a private /tmp); pruned if this process is killed.
        self._home = scratch.Scratch("ag-z-", scratch.SOCKET_PARENT)
        self.address = str(self._home.path / "zygote.sock")
        listener = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        listener.bind(self.address)
        os.chmod(self.address, 0o600)
        listener.listen(64)
        fds = (theirs.fileno(), listener.fileno())
        try:
            self.proc: subprocess.Popen | None = subprocess.Popen(
                [
                    *argv,
                    *interpreter.module_argv("autograder.execute.zygote"),
                    *map(str, fds),
                    json.dumps(_readonly_paths(probes)),
                    str(probes.resolve()) if probes else "",
                    json.dumps(_preloaded(probes)),
                ],
                pass_fds=fds,
                stdin=subprocess.DEVNULL,
                stdout=subprocess.DEVNULL,
                stderr=subprocess.PIPE,
                env=env,
                start_new_session=True,
            )
        finally:
            theirs.close()
            listener.close()
        self.control = ours
        self.control.settimeout(timeout)
        self.lock = threading.Lock()
        self.broken = False
        self._greeted = False  # the zygote imports torch meanwhile: `ready()` waits for it, once

    def ready(self) -> "_Zygote":
        """Wait until the zygote has started (torch imported); raises SandboxUnavailable if it did not."""
        with self.lock:
            if self._greeted:
                return self
            try:
                if self._line() != b"ready":
                    raise OSError("no greeting")
            except OSError as e:
                self.broken = True
                assert self.proc is not None
                self.proc.kill()
                self._home.close()
                err = self.proc.stderr.read().decode(errors="replace")[-1500:] if self.proc.stderr else ""
                raise SandboxUnavailable(f"the warm worker zygote did not start ({e}): {err}") from None
            self._greeted = True
        return self

    @classmethod
    def connect(cls, address: str, timeout: float) -> "_Zygote":
        """A client of a zygote another process of this run started (raises OSError if it is gone)."""
        self = cls.__new__(cls)
        self.address, self.proc, self.lock, self.broken, self._greeted = address, None, threading.Lock(), False, True
        self.control = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        self.control.settimeout(timeout)
        try:
            self.control.connect(address)
            if self._line() != b"ready":
                raise OSError("no greeting")
        except OSError:
            self.control.close()
            raise
        return self

    def alive(self) -> bool:
        return not self.broken and (self.proc is None or self.proc.poll() is None)

    def _line(self) -> bytes:
        buf = b""
        while not buf.endswith(b"\n"):
            chunk = self.control.recv(1)
            if not chunk:
                raise OSError("zygote closed its control socket")
            buf += chunk
        return buf.strip()

    def fork(
        self, env: dict[str, str], limits: Limits, timeout: float, lease: identity.Lease
    ) -> tuple[socket.socket, int, int, int]:
        """Ask for one worker, to run as the leased uid (its lock goes along, held by the worker's intermediate
        process); returns (channel, stdout fd, stderr fd, host pid)."""
        ours, theirs = socket.socketpair()
        ours.setsockopt(socket.SOL_SOCKET, socket.SO_PASSCRED, 1)
        out_r, out_w = os.pipe()
        err_r, err_w = os.pipe()
        req = json.dumps(
            {"env": env, "disk_bytes": limits.disk_mb * 2**20, "disk_files": limits.files, "uid": lease.uid}
        ).encode()
        try:
            with self.lock:
                assert lease.fd is not None  # held until the worker ends
                fds = array.array("i", [theirs.fileno(), out_w, err_w, lease.fd]).tobytes()
                try:
                    self.control.sendmsg([req], [(socket.SOL_SOCKET, socket.SCM_RIGHTS, fds)])
                    reply = json.loads(self._line())
                except OSError:
                    self.broken = True  # the next spawn starts or finds another zygote
                    raise
        finally:
            theirs.close()
            os.close(out_w)
            os.close(err_w)
        if "error" in reply:
            for fd in (out_r, err_r):
                os.close(fd)
            raise OSError(f"zygote could not fork: {reply['error']}")
        ours.settimeout(timeout)
        try:
            msg, anc, _, _ = ours.recvmsg(1, socket.CMSG_SPACE(12))
        finally:
            ours.settimeout(None)
        pid = next(
            (
                int.from_bytes(d[:4], sys.byteorder, signed=True)
                for lvl, kind, d in anc
                if lvl == socket.SOL_SOCKET and kind == socket.SCM_CREDENTIALS
            ),
            0,
        )
        if msg != b"H" or pid <= 0:
            for fd in (out_r, err_r):
                os.close(fd)
            raise OSError("the forked worker did not identify itself")
        return ours, out_r, err_r, pid

    def close(self) -> None:
        try:
            self.control.close()
        finally:
            if self.proc is not None:
                if self.proc.poll() is None:
                    os.killpg(self.proc.pid, 9)
                self.proc.wait()
                self._home.close()


class _Standby:
    """One worker forked ahead of need, in a thread, while the worker handed out last runs a submission:
    the next spawn of the same kind (same probes, limits and environment) takes it instead of waiting
    for two forks of the zygote and the cgroup moves (0.04-0.05 s, an RCU grace period per move).  It
    holds no submission's data: it was forked from the zygote, like any worker, and waits for its
    `start` message.  A spare of another kind, or one that died waiting, is killed and never used."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._key: object = None
        self._thread: threading.Thread | None = None
        self._made: list[WorkerProcess] = []  # what the thread made (nothing if the fork failed)

    def take(self, key: object, release) -> WorkerProcess | None:
        """The spare if it is of this kind and alive (None otherwise: the caller forks one itself)."""
        kind, thread, made = self._swap(None, None, [])
        if thread is None:
            return None
        thread.join()
        for worker in made:
            if kind == key and _idle(worker):
                return worker
            worker.kill()
            release(worker)
        return None

    def prepare(self, key: object, fork, release) -> None:
        """Start forking the next spare; a spare already there (another thread's, say) is given up."""
        made: list[WorkerProcess] = []

        def run() -> None:
            try:
                made.append(fork())
            except Exception:  # noqa: BLE001 - the spawn that wants it forks again and reports the failure
                pass

        thread = threading.Thread(target=run, name="standby-worker", daemon=True)
        old = self._swap(key, thread, made)
        thread.start()
        self._give_up(old, release)

    def discard(self, release) -> None:
        """Kill the spare (when the isolation closes)."""
        self._give_up(self._swap(None, None, []), release)

    def _swap(self, key: object, thread: threading.Thread | None, made: list) -> tuple:
        """Put a new spare (or none) in place, atomically; returns the one it replaces."""
        with self._lock:
            old = (self._key, self._thread, self._made)
            self._key, self._thread, self._made = key, thread, made
        return old

    @staticmethod
    def _give_up(spare: tuple, release) -> None:
        _, thread, made = spare
        if thread is not None:
            thread.join()
        for worker in made:
            worker.kill()
            release(worker)


def _idle(worker: WorkerProcess) -> bool:
    """A spare that has sent nothing: a live one waits for its `start` message; a dead one's channel has
    its end of file, or the zygote's report of its exit, to read."""
    try:
        readable, _, _ = select.select([worker.channel], [], [], 0)
    except (OSError, ValueError):
        return False
    return not readable


class WarmBubblewrap(Bubblewrap):
    """Workers forked from a torch-loaded zygote that runs inside bubblewrap (root only)."""

    name = "bubblewrap-warm"

    def __init__(self, *, gpu: bool = False) -> None:
        super().__init__(gpu=gpu)
        if os.geteuid() != 0:
            raise SandboxUnavailable("warm workers need the grader to run as root")
        if not identity.available():
            raise SandboxUnavailable(
                f"warm workers need uids {identity.BASE}-{identity.BASE + identity.SLOTS - 1} "
                "(a root whose user namespace maps them)"
            )
        self._zygotes: dict[str, _Zygote] = {}
        self._offered: dict[str, str] = {}  # probes -> address of a zygote another process started
        self._lock = threading.Lock()
        self._cold = False  # set when the zygote cannot start here: fall back to cold sandboxes
        self._standby = _Standby()

    def __reduce__(self) -> tuple:
        # Sent to a judge process (pool or Dask task): resolve to that process's own instance,
        # which borrows this process's running zygotes where it can (not on another host).
        return (_warm_for_process, (self.gpu, self._share()))

    def _share(self) -> dict[str, str]:
        with self._lock:
            return {} if self._cold else {k: z.address for k, z in self._zygotes.items() if z.alive()}

    def borrow(self, zygotes: dict[str, str]) -> None:
        """Use zygotes another process of this run started (by their socket addresses)."""
        with self._lock:
            for key, address in zygotes.items():
                if key not in self._zygotes:
                    self._offered[key] = address

    def _zygote(self, probes: Path | None, limits: Limits) -> _Zygote:
        key = str(probes)
        with self._lock:
            z = self._zygotes.get(key)
            timeout = max(3 * limits.startup_timeout, 300)
            if (z is None or not z.alive()) and key in self._offered:
                try:
                    z = self._zygotes[key] = _Zygote.connect(self._offered.pop(key), timeout)
                except OSError:
                    z = None
            if z is None or not z.alive():
                # no host folder is writable inside: workers get their own tmpfs (disk.py)
                argv = [
                    self.bwrap,
                    "--die-with-parent",
                    *_NAMESPACES_AS_ROOT,
                    "--new-session",
                    "--cap-drop",
                    "ALL",
                    "--cap-add",
                    "CAP_SYS_ADMIN",
                    "--cap-add",
                    "CAP_SETUID",
                    "--cap-add",
                    "CAP_SETGID",
                    "--hostname",
                    "grader",
                    *self._binds(probes),
                    "--dir",
                    "/submission",
                ]
                env = {
                    "PATH": "/usr/bin:/bin",
                    "LANG": "C.UTF-8",
                    "MPLBACKEND": "Agg",
                    "HOME": "/tmp",
                    "OMP_NUM_THREADS": "1",
                    "MKL_NUM_THREADS": "1",
                    "PYTHONDONTWRITEBYTECODE": "1",
                    **framework_of(probes).env(),
                    "KERAS_HOME": "/tmp/.keras",
                }  # each worker's own /tmp
                # one start-up serves a whole class: give it more room than a single worker gets
                z = _Zygote(argv, env, timeout=timeout, probes=probes)
                self._zygotes[key] = z
            return z

    def prestart(self, probes: Path | None, limits: Limits) -> None:
        """Start the zygote for `probes` without waiting for it: its torch import then overlaps with
        whatever the caller imports meanwhile (the grade command's own torch, ~2-5 s)."""
        if not self._cold:
            try:
                self._zygote(probes, limits)
            except (SandboxUnavailable, OSError):
                pass  # the first spawn tries again and reports it

    def spawn(
        self, workdir: Path, probes: Path | None, limits: Limits, env: dict[str, str], wire_limits: wire.Limits
    ) -> WorkerProcess:
        if not self._cold:
            try:
                zygote = self._zygote(probes, limits).ready()
            except SandboxUnavailable as e:
                print(f"WARNING: {e}; falling back to one cold sandbox per worker", file=sys.stderr)
                self._cold = True
        if self._cold:
            return super().spawn(workdir, probes, limits, env, wire_limits)
        env = {**env, "HOME": "/submission", "TMPDIR": "/tmp", **framework_of(probes).env()}

        def fork() -> WorkerProcess:
            return self._fork(zygote, env, limits, wire_limits)

        key = (str(probes), limits, tuple(sorted(env.items())), wire_limits)
        worker = self._standby.take(key, self.release)
        if worker is None:
            worker = fork()
        self._standby.prepare(key, fork, self.release)
        return worker

    def _fork(self, zygote: _Zygote, env: dict[str, str], limits: Limits, wire_limits: wire.Limits) -> WorkerProcess:
        """One worker from the zygote, as a uid of its own (`identity.lease`), in cgroups of its own."""
        from autograder.execute.process import WorkerProcess

        lease = identity.lease()
        groups: list[Path] = []
        try:
            groups = _Cgroups.create(limits)
            channel, out_r, err_r, pid = zygote.fork(env, limits, limits.startup_timeout, lease)
        except BaseException:
            _Cgroups.remove(groups, wait=False)
            lease.release()
            raise
        lease.handed_over()  # the zygote's intermediate process holds it for as long as the worker can live
        worker = WorkerProcess(
            channel=channel,
            stdout_fd=out_r,
            stderr_fd=err_r,
            pid=pid,
            output_cap=limits.output_kb * 1024,
            limits=wire_limits,
        )
        worker.cgroups = groups
        worker.lease = lease  # type: ignore[attr-defined]
        try:
            _Cgroups.join(groups, pid)  # before its `start` message: no student code has run yet
        except OSError:
            worker.kill()
            self.release(worker)
            raise
        return worker

    def close(self) -> None:
        self._standby.discard(self.release)
        with self._lock:
            for z in self._zygotes.values():
                z.close()
            self._zygotes.clear()
        super().close()


_PROCESS_WARM: dict[bool, WarmBubblewrap] = {}


def close_at_exit(isolation: Isolation) -> None:
    """Stop its zygotes and remove its scratch when this process ends, also as a pool worker
    (multiprocessing children leave through os._exit: only its finalizers run, not atexit)."""
    import atexit
    from multiprocessing import util

    atexit.register(isolation.close)
    util.Finalize(None, isolation.close, exitpriority=100)


def _warm_for_process(gpu: bool, shared: dict[str, str] | None = None) -> WarmBubblewrap:
    if gpu not in _PROCESS_WARM:
        _PROCESS_WARM[gpu] = WarmBubblewrap(gpu=gpu)
        close_at_exit(_PROCESS_WARM[gpu])
    if shared:
        _PROCESS_WARM[gpu].borrow(shared)
    return _PROCESS_WARM[gpu]


def choose_isolation(allow_weak: bool, gpu: bool = False, warm: bool = True) -> Isolation:
    """The strongest isolation that works here; rlimits only if the instructor accepted that."""
    if Bubblewrap.available():
        if warm and identity.available():
            return _warm_for_process(gpu)
        return Bubblewrap(gpu=gpu)
    if allow_weak:
        print(
            "WARNING: bubblewrap is not available: student code runs WITHOUT a sandbox (rlimits only). "
            "It can read files and use the network as this user. Results record isolation='rlimits'.",
            file=sys.stderr,
        )
        return RlimitsOnly()
    raise SandboxUnavailable(
        "bubblewrap is not available, so student code cannot be sandboxed. Install it (Debian/Ubuntu: "
        "apt-get install bubblewrap) or pass --allow-weak-isolation to grade with rlimits only."
    )
