"""A warm fork server for student workers, itself running inside bubblewrap.

Importing torch costs about 2 s of CPU; forking a process that has already imported it
costs milliseconds.  The zygote imports torch (and the usual course libraries) once, runs the
assignment's `warm_up()` hook if its probes.py has one (`_warm_up`), never runs student code, and
forks one worker per request, for every trusted process of a grading
run (the process that started it, over a socketpair; the `--jobs` judge processes, over an
owner-only Unix socket that no worker can see).  Each worker, before any student code
runs, gets a sandbox of its own *inside* the zygote's bubblewrap sandbox:

1. new mount, PID, network, IPC and UTS namespaces (`unshare`);
2. its own disk (`disk.py`): one tmpfs, bounded in bytes and files, for `/submission` (its
   work folder), `/tmp` and `/dev/shm`; no host folder is shared, so siblings are invisible;
3. a fork, so the student process is PID 1 of its namespace with a fresh `/proc` that shows
   only its own processes (it cannot see or signal other workers, or the zygote);
4. all capabilities dropped by switching to a host uid/gid of its own (`identity.py`: leased by the
   trusted side for this worker alone, named nobody in its own `/etc/passwd`), `no_new_privs`, and the
   seccomp allowlist (`syscalls.py`).

The trusted side learns the worker's host PID from SCM_CREDENTIALS on the worker's socket
(the kernel translates it), so it can put it in cgroups and kill it; the intermediate
process reports the worker's exit status on the same socket when it dies.

This needs the zygote to hold CAP_SYS_ADMIN and CAP_SETUID/SETGID in the initial user
namespace, i.e. the grader runs as root (a GPU box, a CI runner, a container).  Elsewhere
the kit starts a cold bubblewrap sandbox per worker instead.
"""

from __future__ import annotations

import array
import ast
import ctypes
import gc
import json
import os
import selectors
import signal
import socket
import struct
import sys
import time
from typing import Any

from autograder.execute import disk, identity, nvidia, syscalls
from autograder.execute.leave import leave

CLONE_NEWNS, CLONE_NEWUTS, CLONE_NEWIPC = 0x00020000, 0x04000000, 0x08000000
CLONE_NEWPID, CLONE_NEWNET = 0x20000000, 0x40000000
MS_NOSUID, MS_NODEV, MS_NOEXEC = 2, 4, 8
PR_SET_PDEATHSIG, PR_SET_NO_NEW_PRIVS = 1, 38
SUBMISSION = "/submission"

_libc = ctypes.CDLL(None, use_errno=True)


def _die_with_parent() -> None:
    _libc.prctl(PR_SET_PDEATHSIG, signal.SIGKILL, 0, 0, 0)


def _enter_sandbox(disk_bytes: int, disk_files: int, keep: list[str], uid: int) -> None:
    """Steps 1-2 (in the intermediate process): namespaces, a private bounded disk (`disk.py`)
    whose work folder is `/submission`, and the worker's own /etc/passwd naming its uid nobody.
    No host folder is shared: siblings are invisible."""
    disk.check(_libc.unshare(CLONE_NEWNS | CLONE_NEWPID | CLONE_NEWNET | CLONE_NEWIPC | CLONE_NEWUTS), "unshare")
    disk.mount(None, "/", None, disk.MS_REC | disk.MS_PRIVATE)
    disk.mount_disk(SUBMISSION, disk_bytes, disk_files, keep, identity.accounts(uid, uid))


def _become_student(uid: int) -> None:
    """Steps 3-4 (in the worker, PID 1 of its namespace): fresh /proc, its own uid, no privileges, the
    seccomp filter (last: it refuses `mount`)."""
    disk.mount("proc", "/proc", "proc", MS_NOSUID | MS_NODEV | MS_NOEXEC)
    os.chdir(SUBMISSION)
    identity.become(uid, uid)  # from uid 0 to non-zero: every capability is dropped
    disk.check(_libc.prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0), "no_new_privs")
    syscalls.restrict()


def _send_credentials(sock: socket.socket) -> None:
    creds = struct.pack("3i", os.getpid(), os.getuid(), os.getgid())
    sock.sendmsg([b"H"], [(socket.SOL_SOCKET, socket.SCM_CREDENTIALS, creds)])


def _close_other_fds(keep: set[int]) -> None:
    for fd in map(int, os.listdir("/proc/self/fd")):
        if fd > 2 and fd not in keep:
            try:
                os.close(fd)
            except OSError:
                pass


def _spawn(
    env: dict[str, str],
    disk_bytes: int,
    disk_files: int,
    keep: list[str],
    uid: int,
    chan: int,
    out: int,
    err: int,
    lease: int,
) -> int:
    """Fork the intermediate; it sandboxes itself, forks the worker, reports the worker's exit.  It holds
    `lease` (the locked descriptor of the worker's uid, `identity.py`) until it exits: after the worker,
    PID 1 of its namespace, and so after every process of the worker."""
    pid = os.fork()
    if pid:
        return pid
    try:
        _die_with_parent()
        signal.signal(signal.SIGCHLD, signal.SIG_DFL)
        _close_other_fds({chan, out, err, lease})
        _enter_sandbox(disk_bytes, disk_files, keep, uid)
        worker = os.fork()
        if worker == 0:
            _die_with_parent()
            os.dup2(out, 1)
            os.dup2(err, 2)
            devnull = os.open("/dev/null", os.O_RDONLY)
            os.dup2(devnull, 0)
            for fd in (out, err, devnull, lease):
                os.close(fd)
            _become_student(uid)
            os.environ.clear()
            os.environ.update(env)
            sock = socket.socket(fileno=chan)
            _send_credentials(sock)
            from autograder.execute.worker import finish, serve

            serve(sock.makefile("rb", buffering=0), sock.makefile("wb"))
            finish()
        os.close(out)
        os.close(err)
        _, status = os.waitpid(worker, 0)
        from autograder.execute import wire

        report = (
            {"event": "exit", "signal": os.WTERMSIG(status)}
            if os.WIFSIGNALED(status)
            else {"event": "exit", "code": os.WEXITSTATUS(status)}
        )
        try:
            os.write(chan, wire.encode(report))
        except OSError:
            pass
        os._exit(0)
    except BaseException:  # noqa: BLE001 - report set-up failures, never return into the zygote
        try:
            import traceback

            from autograder.execute import wire

            os.write(chan, wire.encode({"event": "exit", "code": 70, "error": traceback.format_exc()[-1500:]}))
        finally:
            os._exit(70)


def _reap(*_: object) -> None:
    while True:
        try:
            pid, _status = os.waitpid(-1, os.WNOHANG)
        except ChildProcessError:
            return
        if pid == 0:
            return


def _handle(conn: socket.socket, keep: list[str]) -> bool:
    """One request on `conn`; False when the peer has gone."""
    fds = array.array("i")
    msg, ancdata, _, _ = conn.recvmsg(4096, socket.CMSG_SPACE(4 * fds.itemsize))
    if not msg:
        return False
    for level, kind, data in ancdata:
        if level == socket.SOL_SOCKET and kind == socket.SCM_RIGHTS:
            fds.frombytes(data[: len(data) - (len(data) % fds.itemsize)])
    try:
        req = json.loads(msg)
        if len(fds) != 4:
            raise ValueError("bad request")
        pid = _spawn(dict(req["env"]), int(req["disk_bytes"]), int(req["disk_files"]), keep, int(req["uid"]), *fds)
        conn.sendall(json.dumps({"pid": pid}).encode() + b"\n")
    except Exception as exc:  # noqa: BLE001
        conn.sendall(json.dumps({"error": repr(exc)}).encode() + b"\n")
    finally:
        for fd in fds:
            os.close(fd)
    return True


def serve_forever(control: socket.socket, listener: socket.socket, keep: list[str]) -> None:
    """Requests: one JSON line `{"env": ..., "disk_bytes": ..., "disk_files": ..., "uid": ...}` with 4 fds (channel, stdout, stderr, uid lease) attached,
    on the control socket of the grader that started us or on a connection to `listener` (owner-only,
    so only the grader's other trusted processes reach it).  Ends when the starting grader goes."""
    signal.signal(signal.SIGCHLD, _reap)
    sel = selectors.DefaultSelector()
    sel.register(control, selectors.EVENT_READ)
    sel.register(listener, selectors.EVENT_READ)
    control.sendall(b"ready\n")
    while True:
        for key, _ in sel.select():
            sock = key.fileobj
            assert isinstance(sock, socket.socket)  # only sockets are registered
            if sock is listener:
                conn, _ = listener.accept()
                conn.setblocking(True)
                conn.sendall(b"ready\n")
                sel.register(conn, selectors.EVENT_READ)
                continue
            try:
                alive = _handle(sock, keep)
            except OSError:
                alive = False
            if not alive:
                if sock is control:
                    return
                sel.unregister(sock)
                sock.close()


def _warm_up(probes: str) -> None:
    """Run the assignment's `warm_up()` (a function in its probes.py), if it defines one.

    Some first uses cost every fresh process the same seconds (torch.compile's first trace, ~1.4 s
    of lazy set-up); paid here once, every worker inherits them by fork.  The hook is trusted course
    code and runs before any student code.  What it leaves must not change a worker's results:
    torch.compile's caches and counters are cleared after it, and it may leave no thread behind
    (a thread does not survive fork, and a lock it held would stay held in every worker) and must not
    initialize CUDA (forked workers could not use the GPU; `main` makes `torch.cuda.is_available()`
    ask NVML here, which does not initialize it)."""
    if not probes:
        return
    with open(probes, encoding="utf-8") as f:
        source = f.read()
    tree = ast.parse(source, probes)
    if not any(isinstance(node, ast.FunctionDef) and node.name == "warm_up" for node in tree.body):
        return  # probes.py is not even run here without a hook
    threads = _thread_count()
    namespace: dict[str, Any] = {"__name__": "probes_warm_up", "__file__": probes}
    exec(compile(tree, probes, "exec", dont_inherit=True), namespace)
    namespace["warm_up"]()
    import torch

    if torch.cuda.is_initialized():
        raise RuntimeError(f"{probes}: warm_up() initialized CUDA; a worker forked after that cannot use the GPU")
    if "torch._dynamo" in sys.modules:
        import torch._dynamo
        from torch._dynamo.utils import counters

        torch._dynamo.reset()
        counters.clear()
    tqdm = sys.modules.get("tqdm.std")  # torch.fx opens a (disabled) tqdm bar; tqdm starts a monitor thread
    if tqdm is not None and tqdm.tqdm.monitor is not None:
        tqdm.tqdm.monitor.exit()
        tqdm.tqdm.monitor = None
    deadline = time.monotonic() + 2.0
    while _thread_count() > threads and time.monotonic() < deadline:
        time.sleep(0.01)  # a thread just joined (tqdm's monitor) is listed until the kernel has reaped it
    if _thread_count() > threads:
        raise RuntimeError(
            f"{probes}: warm_up() left {_thread_count() - threads} thread(s) running; a fork server must not"
        )


def _import_tensorflow() -> None:
    """A TensorFlow assignment's zygote imports TensorFlow and Keras once (~4 s of CPU) for all its workers.
    The import must leave no thread and no TF context behind: each worker sets TF's thread pools and
    logical devices before its context exists (`worker.start_tensorflow`), and a thread does not survive
    fork (a lock it held would stay held in every worker)."""
    from autograder.execute.worker import import_tensorflow

    threads = _thread_count()
    import_tensorflow()
    from tensorflow.python.eager import context

    made = context.context_safe()
    if made is not None and getattr(made, "_initialized", False):
        raise RuntimeError("importing TensorFlow initialized its context; its workers could not configure it")
    if _thread_count() > threads:
        raise RuntimeError(
            f"importing TensorFlow left {_thread_count() - threads} thread(s) running; a fork server must not"
        )


def _freeze() -> None:
    """Move everything the imports made out of the collector's reach, then collect as usual.  A worker's
    full collection would otherwise walk the zygote's objects (770,000 with TensorFlow and Keras) and
    write to each one's header: 0.4 s of CPU and 134 MB of the zygote's pages copied into that worker,
    each time; frozen, 3 ms and 3 MB.  Nothing frozen is ever freed: what the imports left unreachable
    (10,000 objects, no resident memory to give back) stays in the zygote, shared by its workers."""
    gc.freeze()
    gc.enable()


def _thread_count() -> int:
    return len(os.listdir("/proc/self/task"))


def main() -> None:
    control_fd, listen_fd = int(sys.argv[1]), int(sys.argv[2])
    keep = json.loads(sys.argv[3])
    probes = sys.argv[4]
    _die_with_parent()
    os.environ.setdefault("MPLBACKEND", "Agg")
    os.environ["PYTORCH_NVML_BASED_CUDA_CHECK"] = "1"  # here only: workers get their own environment
    nvidia.choose_triton_mode()
    gc.disable()  # until the fork server serves (`_freeze`): collecting while the imports grow cost 0.9 s of CPU
    # What students import, imported once here, shared copy-on-write by every worker.
    import numpy  # noqa: F401
    import torch
    import torch.nn  # noqa: F401
    import torch.nn.functional  # noqa: F401
    import torch.optim  # noqa: F401
    import torch.utils.data  # noqa: F401

    # what the assignment's master and probes import besides (`sandbox._preloaded`), as they name it: pyplot's
    # font list is built once here, not in every worker
    for module in json.loads(sys.argv[5]) if len(sys.argv) > 5 else []:
        try:
            __import__(module)
        except Exception:  # noqa: BLE001 - not installed here: a worker that imports it reports that
            pass
    import autograder.execute.worker  # noqa: F401

    torch.set_num_threads(1)
    if os.environ.get("AUTOGRADER_FRAMEWORK") == autograder.execute.worker.TENSORFLOW:
        _import_tensorflow()  # and not torch's compiler: no TensorFlow worker configures or runs it (1.4 s of CPU)
    else:
        torch.use_deterministic_algorithms(True, warn_only=True)  # imports torch._inductor once, here
        torch.optim.SGD([torch.zeros(1, requires_grad=True)], lr=0.1)  # and torch._dynamo (first optimizer)
    _warm_up(probes)
    if probes:
        try:
            autograder.execute.worker.precompile_probes(probes)
        except (OSError, SyntaxError, ValueError):
            pass  # each worker compiles it again and reports what is wrong with it
    _freeze()
    serve_forever(socket.socket(fileno=control_fd), socket.socket(fileno=listen_fd), keep)
    leave(0)  # its grader has gone: without Python's teardown of torch (1-2 s of CPU), as the grade command


if __name__ == "__main__":
    main()
