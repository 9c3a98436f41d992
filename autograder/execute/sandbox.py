"""How a worker is isolated: a command prefix that puts it in a sandbox.

`Bubblewrap` (Linux) runs the worker in fresh user, PID, network, IPC, UTS and cgroup
namespaces as uid 65534 with all capabilities dropped; the filesystem it sees is the
system's `/usr`, `/lib`, `/bin` and the Python environment read-only, the assignment's
`probes.py` read-only, the grader package read-only, and one private writable work
folder.  Hidden tests, `solutions/`, results, the gradebook and other submissions are
simply not there.  It dies with the trusted process (`--die-with-parent`), and when the
host lets us, a cgroup caps its process count (fork bombs) and memory.

`RlimitsOnly` is the fallback where bubblewrap cannot run (e.g. macOS): a separate
process with rlimits and its own process group, nothing more.  The grader refuses it
unless the instructor accepts weaker isolation explicitly, and results record which was used.
"""
from __future__ import annotations

import functools
import glob
import os
import shutil
import subprocess
import sys
import uuid
from pathlib import Path

import autograder
from autograder.execute.limits import Limits


class Isolation:
    name = "none"

    def prefix(self, workdir: Path, probes: Path | None, limits: Limits) -> list[str]:
        """argv to put before the worker's command; may set up per-worker resources."""
        raise NotImplementedError

    def rlimits(self, limits: Limits) -> dict[str, int]:
        """The rlimits the worker sets on itself under this isolation."""
        return limits.rlimits()

    def cleanup(self, workdir: Path) -> None:
        """Release what `prefix` set up for this worker (called after it is dead)."""


class RlimitsOnly(Isolation):
    """Separate process, rlimits, own process group; no filesystem or network isolation."""

    name = "rlimits"

    def prefix(self, workdir: Path, probes: Path | None, limits: Limits) -> list[str]:
        return []


class SandboxUnavailable(RuntimeError):
    pass


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
    def create(cls, name: str, pids_max: int, memory_bytes: int) -> list[Path]:
        """Make the groups and return the `cgroup.procs` files to join (empty when unsupported)."""
        layout = cls.layout()
        made: list[Path] = []
        try:
            if layout == "v1":
                pids = _CGROUP_ROOT / "pids" / "autograder" / name
                pids.mkdir(parents=True)
                (pids / "pids.max").write_text(str(pids_max))
                made.append(pids)
                mem = _CGROUP_ROOT / "memory" / "autograder" / name
                try:
                    mem.mkdir(parents=True)
                    (mem / "memory.limit_in_bytes").write_text(str(memory_bytes))
                    made.append(mem)
                except OSError:
                    pass
            elif layout == "v2":
                g = _CGROUP_ROOT / "autograder" / name
                g.mkdir(parents=True)
                (g / "pids.max").write_text(str(pids_max))
                (g / "memory.max").write_text(str(memory_bytes))
                made.append(g)
        except OSError:
            pass
        return made

    @staticmethod
    def remove(groups: list[Path]) -> None:
        import time

        for g in groups:
            for _ in range(50):  # the namespace's processes may take a moment to be reaped
                try:
                    g.rmdir()
                    break
                except FileNotFoundError:
                    break
                except OSError:
                    time.sleep(0.02)


class Bubblewrap(Isolation):
    name = "bubblewrap"

    def __init__(self, *, gpu: bool = False) -> None:
        if not self.available():
            raise SandboxUnavailable("bubblewrap (bwrap) is not installed or cannot create namespaces here")
        self.gpu = gpu
        self._groups: dict[str, list[Path]] = {}

    @staticmethod
    @functools.cache
    def available() -> bool:
        bwrap = shutil.which("bwrap")
        if not bwrap:
            return False
        try:
            return subprocess.run([bwrap, "--unshare-all", "--ro-bind", "/", "/", "true"],
                                  capture_output=True, timeout=20).returncode == 0
        except (OSError, subprocess.TimeoutExpired):
            return False

    def _readonly_paths(self, probes: Path | None) -> list[str]:
        paths = {"/usr", "/bin", "/lib", "/lib64", "/lib32", "/sbin", "/etc/ld.so.cache", "/etc/alternatives",
                 "/etc/localtime", sys.prefix, sys.base_prefix, sys.exec_prefix,
                 str(Path(os.path.realpath(sys.executable)).parents[1]),
                 str(Path(autograder.__file__).resolve().parent)}
        if probes is not None:
            paths.add(str(probes.resolve()))
        return sorted(p for p in paths if os.path.exists(p))

    def rlimits(self, limits: Limits) -> dict[str, int]:
        # The sandbox uid maps to the grader's uid outside, whose other processes would count
        # against RLIMIT_NPROC; the pids cgroup caps processes instead, where we have one.
        caps = limits.rlimits()
        if _Cgroups.layout():
            caps.pop("processes", None)
        return caps

    def prefix(self, workdir: Path, probes: Path | None, limits: Limits) -> list[str]:
        argv = ["bwrap", "--die-with-parent", "--unshare-all", "--new-session", "--cap-drop", "ALL",
                "--uid", "65534", "--gid", "65534", "--hostname", "grader",
                "--proc", "/proc", "--dev", "/dev", "--tmpfs", "/tmp", "--tmpfs", "/run"]
        for p in self._readonly_paths(probes):
            argv += ["--ro-bind", p, p]
        argv += ["--bind", str(workdir), str(workdir), "--chdir", str(workdir)]
        if self.gpu:
            for dev in sorted(glob.glob("/dev/nvidia*")):
                argv += ["--dev-bind", dev, dev]
        os.chmod(workdir, 0o777)
        groups = _Cgroups.create(f"{workdir.name}-{uuid.uuid4().hex[:8]}", limits.processes,
                                 limits.memory_mb * 2**20)
        self._groups[str(workdir)] = self._groups.get(str(workdir), []) + groups
        if groups:
            # join the cgroups *before* bwrap forks anything, then become bwrap
            joins = " && ".join(f'echo $$ > "{g}/cgroup.procs"' for g in groups)
            return ["/bin/sh", "-c", f'{joins} && exec "$@"', "autograder-sandbox", *argv]
        return argv

    def cleanup(self, workdir: Path) -> None:
        _Cgroups.remove(self._groups.pop(str(workdir), []))


def choose_isolation(allow_weak: bool, gpu: bool = False) -> Isolation:
    """Bubblewrap if it works here; otherwise rlimits only, and only if the instructor accepted that."""
    if Bubblewrap.available():
        return Bubblewrap(gpu=gpu)
    if allow_weak:
        print("WARNING: bubblewrap is not available: student code runs WITHOUT a sandbox (rlimits only). "
              "It can read files and use the network as this user. Results record isolation='rlimits'.",
              file=sys.stderr)
        return RlimitsOnly()
    raise SandboxUnavailable(
        "bubblewrap is not available, so student code cannot be sandboxed. Install it (Debian/Ubuntu: "
        "apt-get install bubblewrap) or pass --allow-weak-isolation to grade with rlimits only.")
