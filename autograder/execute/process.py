"""Trusted-side handle on one student worker process.

It owns the worker's channel (a Unix socket), enforces every wall-clock deadline with
`select` (a worker stuck in a C call cannot block us), drains stdout/stderr in threads
keeping only a capped prefix (an output flood costs the student's time, never our
memory), and kills the worker: its whole process group when we started it, or its PID
namespace (it is PID 1 there) when a zygote forked it.
"""

from __future__ import annotations

import os
import re
import select
import signal
import socket
import subprocess
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable, Sequence

from autograder.execute import interpreter, messages, wire

_CLOCK_TICKS = os.sysconf("SC_CLK_TCK")
STOP_GRACE = 0.5  # seconds a finished worker has to close its output before it is killed (`stop`)


class WorkerTimeout(Exception):
    """The worker did not answer before the deadline (it has been killed)."""


class WorkerDied(Exception):
    """The worker exited or broke the protocol (it has been killed)."""


# From a line's start, every segment ended by a carriage return that a newline does not follow.
_REWRITTEN = re.compile(rb"(?m)^(?:[^\r\n]*\r(?!\n))+")


@dataclass
class CappedStream:
    """Keeps the first `cap` bytes of a stream and counts the rest.

    A carriage return not followed by a newline rewrites its line, as on a terminal: a progress bar
    (tqdm, a torchkeras-style loop) keeps its last state on one line instead of filling the cap with
    redraws and pushing the output that follows it out.  Linear in the chunk, whatever it holds.
    """

    cap: int
    data: bytearray = field(default_factory=bytearray)
    dropped: int = 0
    pending_cr: bool = False  # the last chunk ended in "\r": a rewrite or a "\r\n", the next byte says

    def feed(self, chunk: bytes) -> None:
        if self.pending_cr:
            chunk, self.pending_cr = b"\r" + chunk, False
        if chunk.endswith(b"\r"):
            chunk, self.pending_cr = chunk[:-1], True
        if b"\r" in chunk:
            if _REWRITTEN.match(chunk):  # rewrites the line that an earlier chunk began
                del self.data[self.data.rfind(b"\n") + 1 :]
            chunk = _REWRITTEN.sub(b"", chunk)
        room = self.cap - len(self.data)
        if room > 0:
            self.data += chunk[:room]
        self.dropped += max(0, len(chunk) - max(room, 0))

    def text(self) -> str:
        s = self.data.decode("utf-8", "replace")
        return s + (f"\n[... {self.dropped} more bytes of output dropped]" if self.dropped else "")


def _drain(fd: int, sink: CappedStream) -> None:
    try:
        while chunk := os.read(fd, 65536):
            sink.feed(chunk)
    except OSError:
        pass
    finally:
        os.close(fd)


def _pidfd_open(pid: int) -> int | None:
    """A pidfd for `pid` (Linux 5.3+), or None where there is none: the worker is then killed by pid."""
    try:
        return os.pidfd_open(pid)
    except (AttributeError, OSError):
        return None


def _fields(stat: bytes) -> list[bytes]:
    """The fields of a /proc/PID/stat line after the command name (state, ppid, ...)."""
    return stat.rsplit(b")", 1)[1].split()


def _stat(pid: int | str) -> list[bytes]:
    with open(f"/proc/{pid}/stat", "rb") as f:
        return _fields(f.read())


def cpu_clock(pid: int) -> int:
    """The clock id of `pid`'s process CPU clock (its scheduler clock, every thread, exited ones included), as glibc's
    `clock_getcpuclockid` makes it: `time.clock_gettime` reads it to the nanosecond."""
    return ((~pid) << 3) | 2


def _cpu_seconds(pid: int, read_stat: Callable[[], list[bytes]]) -> float:
    """The CPU seconds `pid` has used (every thread of it, exited ones included) and its children that it has
    waited for.  Its own to the nanosecond, from its process CPU clock; clock ticks of its stat file (`read_stat`)
    where the clock cannot be read, and for the waited-for children, which the clock does not count.  Ticks alone
    are 10 ms steps: a costed call of 0.1 s read between two of them was up to 10 % off, and a rule decided by a
    ratio of such readings (02's "f evaluated once") needed calls ten times the step to stay clear of its
    threshold.  The clock is read before the stat file: a stat file that still reads shows that the pid was not
    yet another process's when the clock was read."""
    try:
        ran: float | None = time.clock_gettime(cpu_clock(pid))
    except OSError:
        ran = None
    utime, stime, cutime, cstime = (int(x) for x in read_stat()[11:15])
    return (ran if ran is not None else (utime + stime) / _CLOCK_TICKS) + (cutime + cstime) / _CLOCK_TICKS


def _cpu_of(pid: int) -> float:
    try:
        return _cpu_seconds(pid, lambda: _stat(pid))
    except FileNotFoundError:
        return 0.0  # exited meanwhile: its parent's cutime has it


def _tree(root: int) -> list[int]:
    """`root` and its living descendants (host pids, from every process's parent in /proc)."""
    if not os.path.exists(f"/proc/{root}"):
        raise ProcessLookupError(root)
    children: dict[int, list[int]] = {}
    for name in os.listdir("/proc"):
        if name.isdigit():
            try:
                ppid = int(_stat(name)[1])
            except (OSError, ValueError, IndexError):
                continue
            children.setdefault(ppid, []).append(int(name))
    out, todo = [], [root]
    while todo:
        pid = todo.pop()
        out.append(pid)
        todo.extend(children.get(pid, ()))
    return out


def _sched_of(pid: int) -> tuple[float, float]:
    """Seconds the threads of `pid` have run, and waited on a run queue (runnable, not running), summed over
    its threads, from their schedstat files."""
    ran = waited = 0
    try:
        tids = os.listdir(f"/proc/{pid}/task")
    except FileNotFoundError:
        return 0.0, 0.0
    for tid in tids:
        try:
            with open(f"/proc/{pid}/task/{tid}/schedstat", "rb") as f:
                r, w = f.read().split()[:2]
        except (FileNotFoundError, ValueError):
            continue
        ran, waited = ran + int(r), waited + int(w)
    return ran / 1e9, waited / 1e9


def _runnable_of(pid: int) -> bool:
    """Whether a thread of `pid` is runnable (state R: running, or ready to run and not let), from its
    threads' stat files."""
    try:
        tids = os.listdir(f"/proc/{pid}/task")
    except FileNotFoundError:
        return False
    for tid in tids:
        try:
            with open(f"/proc/{pid}/task/{tid}/stat", "rb") as f:
                if _fields(f.read())[0] == b"R":
                    return True
        except (FileNotFoundError, IndexError):
            continue
    return False


STARVED_LOOKS = 5  # times `WorkerProcess.starved` looks at the worker's threads' states in its window


HOST_SLACK = 0.02  # the host is short when less than this share of its process slots, or of its memory, is free


def _read(path: Path) -> str:
    try:
        return path.read_text()
    except OSError:
        return ""


def _int(text: str) -> int | None:
    try:
        return int(text.split()[0])
    except (ValueError, IndexError):
        return None


def at_own_limits(groups: Sequence[Path]) -> bool:
    """Whether the worker whose cgroups these are ran into its own limits: a fork its `pids` group refused
    (`pids.events`), memory its group refused (v1 `memory.failcnt`, v2 `memory.events` max/oom), or
    either nearly full now."""
    for g in groups:
        events = dict(line.split(None, 1) for line in _read(g / "pids.events").splitlines() if " " in line)
        if (_int(events.get("max", "0")) or 0) > 0:
            return True
        current, most = _int(_read(g / "pids.current")), _int(_read(g / "pids.max"))
        if current is not None and most is not None and current >= most - 2:
            return True
        if (_int(_read(g / "memory.failcnt")) or 0) > 0:
            return True
        mem = dict(line.split(None, 1) for line in _read(g / "memory.events").splitlines() if " " in line)
        if any((_int(mem.get(k, "0")) or 0) > 0 for k in ("max", "oom", "oom_kill")):
            return True
    return False


def host_short(groups: Sequence[Path] = (), proc: Path = Path("/proc")) -> str:
    """What the host lacked, if a worker under its own limits (`groups`, its cgroups) found no room: its
    process slots nearly all used (the kernel's `pid_max` or `threads-max`: fork, clone and vfork fail with
    EAGAIN) or its memory (`MemAvailable`: allocations fail, ENOMEM).  '' when it lacked neither, or when
    the worker met its own limits: that is the student's doing.  Read when student code failed, so that a
    host fault is retried rather than stored as the student's grade (`runner`)."""
    if at_own_limits(groups):
        return ""
    caps = [c for c in (_int(_read(proc / "sys/kernel/pid_max")), _int(_read(proc / "sys/kernel/threads-max"))) if c]
    loadavg = _read(proc / "loadavg").split()
    tasks = _int(loadavg[3].split("/")[1]) if len(loadavg) > 3 and "/" in loadavg[3] else None
    if caps and tasks is not None and min(caps) - tasks < HOST_SLACK * min(caps):
        return f"the host had {min(caps) - tasks} of its {min(caps)} process slots free"
    info = dict(line.split(":", 1) for line in _read(proc / "meminfo").splitlines() if ":" in line)
    total, free = _int(info.get("MemTotal", "")), _int(info.get("MemAvailable", ""))
    if total and free is not None and free < HOST_SLACK * total:
        return f"the host had {free // 1024} MiB of its {total // 1024} MiB of memory free"
    return ""


def describe_exit(code: int | None = None, sig: int | None = None) -> str:
    if sig:
        name = signal.Signals(sig).name if sig in signal.Signals._value2member_map_ else f"signal {sig}"
        hint = {
            "SIGKILL": " (killed: memory limit, or a kill from inside)",
            "SIGXCPU": " (CPU time limit)",
            "SIGSEGV": " (segmentation fault)",
            "SIGXFSZ": " (file size limit)",
            "SIGABRT": " (aborted)",
        }.get(name, "")
        return f"the worker was killed by {name}{hint}"
    if code is None:
        return "the worker stopped answering"
    return f"the worker exited with code {code}"


class WorkerProcess:
    """One running worker: a channel to talk to it, its output, and a way to kill it."""

    def __init__(
        self,
        *,
        channel: socket.socket,
        stdout_fd: int,
        stderr_fd: int,
        pid: int,
        popen: subprocess.Popen | None = None,
        output_cap: int = 64 * 1024,
        limits: wire.Limits = wire.DEFAULT_LIMITS,
    ) -> None:
        self.channel, self.pid, self.popen = channel, pid, popen
        self.stdout, self.stderr = CappedStream(output_cap), CappedStream(output_cap)
        self._threads = [
            threading.Thread(target=_drain, args=(stdout_fd, self.stdout), daemon=True),
            threading.Thread(target=_drain, args=(stderr_fd, self.stderr), daemon=True),
        ]
        for t in self._threads:
            t.start()
        self._limits = limits
        self._exit: dict[str, Any] | None = None  # reported by a zygote's intermediate process
        self._dead = False
        self._tree: list[int] | None = None  # pids whose CPU time counts (cpu_seconds)
        self.cgroups: list[Path] = []  # its own (the sandbox's `_Cgroups`): the first lists its processes
        self._stat_fd: int | None = None  # the worker's /proc stat file (`_own_cpu`)
        self._schedstat_fd: int | None = None  # and its schedstat file (`run_queue_wait`)
        # a zygote's worker is signalled through a pidfd: its pid may be freed (and, pid_max being as low as
        # 32768, reused) as soon as it exits, which after `stop` it usually has by the time it is killed
        self._pidfd = _pidfd_open(pid) if popen is None else None

    @classmethod
    def launch(
        cls,
        *,
        argv_prefix: Sequence[str],
        workdir: Path,
        env: dict[str, str],
        output_cap: int,
        limits: wire.Limits,
        pass_fds: Sequence[int] = (),
    ) -> "WorkerProcess":
        """Start `python -I -m autograder.execute.worker` (behind `argv_prefix`) as our child (`pass_fds`: what
        the sandbox in front of it holds besides the channel)."""
        ours, theirs = socket.socketpair()
        out_r, out_w = os.pipe()
        err_r, err_w = os.pipe()
        fd = theirs.fileno()
        argv = [*argv_prefix, *interpreter.module_argv("autograder.execute.worker"), str(fd), str(fd)]
        try:
            popen = subprocess.Popen(
                argv,
                pass_fds=(fd, *pass_fds),
                stdin=subprocess.DEVNULL,
                stdout=out_w,
                stderr=err_w,
                cwd=workdir,
                env=env,
                start_new_session=True,
            )
        finally:
            theirs.close()
            os.close(out_w)
            os.close(err_w)
        return cls(
            channel=ours,
            stdout_fd=out_r,
            stderr_fd=err_r,
            pid=popen.pid,
            popen=popen,
            output_cap=output_cap,
            limits=limits,
        )

    # -- messages ---------------------------------------------------------------
    def send(self, obj: Any, deadline: float) -> None:
        data = memoryview(wire.encode(obj))
        try:
            while data:
                self._wait(deadline, write=True)
                n = self.channel.send(data[: 1 << 16])
                data = data[n:]
        except OSError:
            self.kill()
            raise WorkerDied(self.exit_description()) from None

    def recv(self, deadline: float, extend: Callable[[], float | None] | None = None) -> Any:
        """Next message, decoded and validated; kills the worker on timeout or garbage.

        At `deadline`, `extend` (if given) may return a later one instead of giving up."""
        try:
            head = self._read(wire.HEADER_SIZE, deadline, extend)
            n = wire.body_length(bytes(head), self._limits)
            msg = wire.decode(self._read(n, deadline, extend), self._limits)
        except (wire.PayloadError, WorkerTimeout):
            self.kill()
            raise
        if type(msg) is dict and msg.get("event") == "exit":  # the zygote's intermediate: the worker is gone
            self.kill()
            try:
                self._exit = messages.exit_report(msg)  # the student can forge this one too
            except wire.PayloadError:
                pass
            raise WorkerDied(self.exit_description())
        return msg

    def _read(self, n: int, deadline: float, extend: Callable[[], float | None] | None = None) -> bytearray:
        """Exactly `n` bytes (never more: the next frame stays in the socket), received straight
        into one buffer, so a frame costs its size once."""
        buf = bytearray(n)
        view, got = memoryview(buf), 0
        while got < n:
            if time.monotonic() >= deadline:  # past it, data waiting or not: `extend` decides
                deadline = self._wait(deadline, write=False, extend=extend)
            try:  # what has arrived is read without a select first (most frames have, whole)
                k = self.channel.recv_into(view[got:], min(n - got, 1 << 24), socket.MSG_DONTWAIT)
            except BlockingIOError:
                deadline = self._wait(deadline, write=False, extend=extend)
                continue
            except OSError:
                k = 0
            if not k:
                description = self.exit_description()
                self.kill()
                raise WorkerDied(description)
            got += k
        view.release()
        return buf

    def _wait(self, deadline: float, write: bool, extend: Callable[[], float | None] | None = None) -> float:
        """Block until the channel is ready; returns the deadline in force (`extend` may move it)."""
        fd = self.channel.fileno()
        while True:
            left = deadline - time.monotonic()
            if left > 0:
                r, w, _ = select.select([] if write else [fd], [fd] if write else [], [], left)
                if r or w:
                    return deadline
            later = extend() if extend else None
            if later is None or later <= time.monotonic():
                self.kill()
                raise WorkerTimeout()
            deadline = later

    def cpu_seconds(self, rescan: bool = False) -> float | None:
        """CPU time used by the worker's process tree (the worker, processes the student started,
        and under a cold sandbox the bwrap and shell in front of it), read from /proc.  The tree is
        found once (a walk over /proc; a zygote's worker, read first before its first cell, is alone in
        it) and again when `rescan` is asked for (at a deadline)."""
        try:
            if rescan or self._tree is None:
                self._tree = [self.pid] if self._tree is None and self.popen is None else self._members()
            return self._own_cpu() + sum(_cpu_of(pid) for pid in self._tree if pid != self.pid)
        except OSError:
            return None

    def _members(self) -> list[int]:
        """The worker's processes (host pids): its cgroup's members where it has one, a single read the kernel
        keeps exact; else its descendants, found by a walk over every process's /proc stat file (with 80
        processes on the host, the readings of 01_tensors' costed calls spent 0.07 s a submission walking)."""
        if self.cgroups:
            try:
                pids = [int(p) for p in (self.cgroups[0] / "cgroup.procs").read_bytes().split()]
            except (OSError, ValueError):
                pids = []
            if pids:
                return pids
        return _tree(self.pid)

    def run_queue_wait(self) -> float | None:
        """Seconds the worker's main thread has waited on a run queue (runnable, not running) since it
        started, from its /proc schedstat file kept open.  Under a cold sandbox this is bubblewrap's, in
        front of the worker, which never waits.  None when /proc could not tell."""
        try:
            if self._schedstat_fd is None:
                self._schedstat_fd = os.open(f"/proc/{self.pid}/schedstat", os.O_RDONLY | os.O_CLOEXEC)
            return int(os.pread(self._schedstat_fd, 256, 0).split()[1]) / 1e9
        except (OSError, ValueError, IndexError):
            return None

    def starved(self, wait0: float | None = None, wall: float = 0.0, window: float = 0.25) -> bool | None:
        """Whether other work kept the worker from the CPU, asked at a deadline it missed with little CPU
        of its own: either its main thread waited on a run queue for at least half of the `wall` seconds
        since `run_queue_wait()` read `wait0` (its own threads and children keeping it waiting would have
        used the CPU they kept, and the caller saw none used), or it is kept from the CPU now: over
        `window` seconds its threads waited on a run queue for at least half of it and ran for less than
        half, or a thread of it was runnable (state R) at half of `STARVED_LOOKS` looks while they ran for
        less than half: time a runnable thread is kept off the CPU that the kernel does not count as a
        wait (a virtual CPU the host takes away, a group throttled to its CPU quota) is still not the
        student's.  A worker that sleeps, waits, stopped itself, spins, or keeps its own threads and children
        waiting for each other (they run then) is not, whatever the host's load: the kernel counts a
        runnable thread's wait, never a sleeping one's, and shows a sleeping thread as S, a stopped one
        as T.  The first catches a host whose load ended just before the deadline.  None when /proc
        could not tell."""
        waited = None if wait0 is None else self.run_queue_wait()
        if waited is not None and wait0 is not None and waited - wait0 >= 0.5 * wall > 0:
            return True
        try:
            members = self._members()  # a walk over every process of the host where it has no cgroup: once
            before = {pid: _sched_of(pid) for pid in members}
            runnable = 0
            for _ in range(STARVED_LOOKS):
                time.sleep(window / STARVED_LOOKS)
                runnable += any(_runnable_of(pid) for pid in members)
            after = {pid: _sched_of(pid) for pid in self._members()}  # with what was started meanwhile
        except (OSError, ValueError):
            return None
        ran = sum(r - before.get(pid, (0.0, 0.0))[0] for pid, (r, _) in after.items())
        waited = sum(w - before.get(pid, (0.0, 0.0))[1] for pid, (_, w) in after.items())
        return ran < 0.5 * window and (waited >= 0.5 * window or runnable >= STARVED_LOOKS / 2)

    def _own_cpu(self) -> float:
        """The worker's own CPU time (and its waited-for children's), from its /proc stat file kept open
        (read again from the start: 12 us instead of 40+ for opening it every time; once the process is
        gone, reading it fails rather than reading a process that took the pid over)."""
        if self._stat_fd is None:
            self._stat_fd = os.open(f"/proc/{self.pid}/stat", os.O_RDONLY | os.O_CLOEXEC)
        fd = self._stat_fd
        return _cpu_seconds(self.pid, lambda: _fields(os.pread(fd, 4096, 0)))

    # -- lifetime ---------------------------------------------------------------
    def stop(self) -> None:
        """End a worker that is done: close its channel, so that it exits by itself, closing its output
        first (`worker.finish`), then `kill` it.  Killing it at once would leave its output open until the
        kernel had taken the process apart (10-20 ms for a worker forked from a 300 MB zygote, at the end
        of every submission); its output is complete once it is closed.  A worker that does not close it
        within `STOP_GRACE` seconds (a child it started holds it, or the student replaced what exits)
        is killed, and its output read to the end, as `kill` does."""
        if not self._dead:
            try:
                self.channel.shutdown(socket.SHUT_WR)
            except OSError:
                pass
            end = time.monotonic() + STOP_GRACE
            for t in self._threads:
                t.join(max(0.0, end - time.monotonic()))
        self.kill()

    def kill(self) -> None:
        if not self._dead:
            self._dead = True
            try:
                if self.popen is not None:
                    if self.popen.poll() is None:
                        os.killpg(self.popen.pid, signal.SIGKILL)
                elif self._pidfd is not None:
                    signal.pidfd_send_signal(self._pidfd, signal.SIGKILL)  # PID 1 of its namespace: all of it dies
                else:
                    os.kill(self.pid, signal.SIGKILL)
            except (ProcessLookupError, PermissionError):
                pass
            for fd in (self._pidfd, self._stat_fd, self._schedstat_fd):
                if fd is not None:
                    os.close(fd)
            self._pidfd = self._stat_fd = self._schedstat_fd = None
            if self.popen is not None:
                try:
                    self.popen.wait(timeout=10)
                except subprocess.TimeoutExpired:
                    pass
            try:
                self.channel.close()
            except OSError:
                pass
        for t in self._threads:
            t.join(timeout=5)

    def exit_description(self) -> str:
        if self._exit is not None:
            why = describe_exit(self._exit.get("code"), self._exit.get("signal"))
            return why + (f" (sandbox set-up failed: {self._exit['error']})" if self._exit.get("error") else "")
        if self.popen is not None:
            try:
                code = self.popen.wait(timeout=2)
            except subprocess.TimeoutExpired:
                return describe_exit()
            argv = self.popen.args
            launched = argv[0] if isinstance(argv, (list, tuple)) else argv
            if (
                code > 128
                and (code - 128) in signal.Signals._value2member_map_
                and launched != interpreter.executable()
            ):
                return describe_exit(sig=code - 128)  # bwrap and sh report a child's signal death this way
            return describe_exit(code if code >= 0 else None, -code if code < 0 else None)
        # a zygote worker whose exit report (if any) did not arrive as a whole frame
        return describe_exit()
