"""Trusted-side handle on one student worker process.

It owns the pipes, enforces every wall-clock deadline with `select` (a worker stuck in a C
call cannot block us), drains stdout/stderr in threads keeping only a capped prefix (an
output flood costs the student's time, never our memory), and kills the worker's whole
process group, so whatever the student spawned goes with it.
"""
from __future__ import annotations

import os
import select
import signal
import subprocess
import sys
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Sequence

from autograder.execute import wire


class WorkerTimeout(Exception):
    """The worker did not answer before the deadline (it has been killed)."""


class WorkerDied(Exception):
    """The worker exited or broke the protocol (it has been killed)."""


@dataclass
class CappedStream:
    """Keeps the first `cap` bytes of a stream and counts the rest."""

    cap: int
    data: bytearray = field(default_factory=bytearray)
    dropped: int = 0

    def feed(self, chunk: bytes) -> None:
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


class WorkerProcess:
    """One running worker; `argv_prefix` is how the sandbox wraps the command."""

    def __init__(
        self,
        *,
        workdir: Path,
        env: dict[str, str],
        argv_prefix: Sequence[str] = (),
        output_cap: int = 64 * 1024,
        limits: wire.Limits = wire.DEFAULT_LIMITS,
        python: str = sys.executable,
    ) -> None:
        req_r, self._req_w = os.pipe()
        self._rep_r, rep_w = os.pipe()
        out_r, out_w = os.pipe()
        err_r, err_w = os.pipe()
        argv = [*argv_prefix, python, "-I", "-m", "autograder.execute.worker", str(req_r), str(rep_w)]
        try:
            self.proc = subprocess.Popen(
                argv, pass_fds=(req_r, rep_w), stdin=subprocess.DEVNULL, stdout=out_w, stderr=err_w,
                cwd=workdir, env=env, start_new_session=True,
            )
        finally:
            for fd in (req_r, rep_w, out_w, err_w):
                os.close(fd)
        self.stdout, self.stderr = CappedStream(output_cap), CappedStream(output_cap)
        self._threads = [
            threading.Thread(target=_drain, args=(out_r, self.stdout), daemon=True),
            threading.Thread(target=_drain, args=(err_r, self.stderr), daemon=True),
        ]
        for t in self._threads:
            t.start()
        self._limits = limits
        self._buf = bytearray()
        self.started = time.monotonic()

    # -- messages ---------------------------------------------------------------
    def send(self, obj: Any, deadline: float) -> None:
        data = memoryview(wire.encode(obj))
        try:
            while data:
                self._wait(self._req_w, deadline, write=True)
                n = os.write(self._req_w, data[: 1 << 16])
                data = data[n:]
        except OSError:
            self.kill()
            raise WorkerDied(self.exit_description()) from None

    def recv(self, deadline: float) -> Any:
        """Next message, decoded and validated; kills the worker on timeout or garbage."""
        try:
            head = self._read(12, deadline)
            magic, n = wire._HEADER.unpack(head)
            if magic != wire.MAGIC:
                raise wire.PayloadError("the worker wrote something that is not a protocol message")
            if n > self._limits.max_bytes:
                raise wire.PayloadError(
                    f"a result of {n / 2**20:.1f} MiB is over the {self._limits.max_bytes / 2**20:.0f} MiB limit"
                )
            return wire.decode(self._read(n, deadline), self._limits)
        except (wire.PayloadError, WorkerTimeout):
            self.kill()
            raise

    def _read(self, n: int, deadline: float) -> bytes:
        while len(self._buf) < n:
            self._wait(self._rep_r, deadline, write=False)
            chunk = os.read(self._rep_r, max(65536, min(n - len(self._buf), 1 << 24)))
            if not chunk:
                description = self.exit_description()  # waits briefly for a clean exit code
                self.kill()
                raise WorkerDied(description)
            self._buf += chunk
        out, self._buf = bytes(self._buf[:n]), self._buf[n:]
        return out

    def _wait(self, fd: int, deadline: float, write: bool) -> None:
        left = deadline - time.monotonic()
        if left <= 0:
            self.kill()
            raise WorkerTimeout()
        r, w, _ = select.select([] if write else [fd], [fd] if write else [], [], left)
        if not (r or w):
            self.kill()
            raise WorkerTimeout()

    # -- lifetime ---------------------------------------------------------------
    def alive(self) -> bool:
        return self.proc.poll() is None

    def kill(self) -> None:
        if self.proc.poll() is None:
            try:
                os.killpg(self.proc.pid, signal.SIGKILL)
            except (ProcessLookupError, PermissionError):
                self.proc.kill()
        try:
            self.proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            pass
        self.close()

    def close(self) -> None:
        for attr in ("_req_w", "_rep_r"):
            fd = getattr(self, attr, -1)
            if fd >= 0:
                try:
                    os.close(fd)
                except OSError:
                    pass
                setattr(self, attr, -1)
        if self.proc.poll() is None:
            try:
                self.proc.wait(timeout=2)
            except subprocess.TimeoutExpired:
                os.killpg(self.proc.pid, signal.SIGKILL)
                self.proc.wait()
        for t in self._threads:
            t.join(timeout=2)

    def exit_description(self) -> str:
        try:
            code = self.proc.wait(timeout=2)
        except subprocess.TimeoutExpired:
            return "the worker stopped answering"
        if code < 0:
            name = signal.Signals(-code).name
            hint = {"SIGKILL": " (killed: memory limit or a kill from inside)", "SIGXCPU": " (CPU time limit)",
                    "SIGSEGV": " (segmentation fault)", "SIGXFSZ": " (file size limit)"}.get(name, "")
            return f"the worker was killed by {name}{hint}"
        return f"the worker exited with code {code}"
