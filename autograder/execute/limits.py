"""Resource limits for one submission, set per assignment in its manifest's `[limits]` table."""
from __future__ import annotations

from dataclasses import dataclass, fields, replace
from typing import Any

# `check-solutions` fails an assignment whose cell_timeout is under this many times the CPU time of its
# master's slowest cell: a correct solution that much slower than the master must not time out.
CELL_TIMEOUT_MARGIN = 5


@dataclass(frozen=True)
class Limits:
    cell_timeout: float = 60.0        # CPU seconds for one notebook cell (and 3x that in wall time)
    test_timeout: float = 60.0        # wall seconds for one test (all its probe calls)
    submission_timeout: float = 600.0  # wall seconds for everything of one submission
    startup_timeout: float = 120.0    # wall seconds for a worker to import torch and say hello
    memory_mb: int = 4096             # the worker's memory: RLIMIT_AS, on a GPU RLIMIT_DATA (`rlimits`)
    cpu_seconds: int = 900            # CPU time of the worker (RLIMIT_CPU)
    file_mb: int = 64                 # largest file the worker may write (RLIMIT_FSIZE)
    disk_mb: int = 512                # all it writes: work folder + /tmp + /dev/shm, one tmpfs (RAM, in memory_mb)
    files: int = 10_000               # files and folders it may create there (the tmpfs's inodes)
    open_files: int = 256             # RLIMIT_NOFILE
    processes: int = 256              # processes and threads: the worker's pids cgroup (RLIMIT_NPROC without cgroups)
    output_kb: int = 64               # stdout and stderr kept, each; the rest is dropped
    payload_mb: int = 64              # largest message (frame) accepted from the worker: see wire.Limits
    threads: int = 1                  # torch intra-op threads in the worker
    max_restarts: int = 12            # worker restarts per submission before giving up

    @classmethod
    def from_table(cls, table: dict[str, Any] | None) -> "Limits":
        known = {f.name: f.type for f in fields(cls)}
        unknown = set(table or {}) - set(known)
        if unknown:
            raise ValueError(f"unknown limit(s) in manifest: {', '.join(sorted(unknown))}")
        base = cls()
        return replace(base, **{k: type(getattr(base, k))(v) for k, v in (table or {}).items()})

    def rlimits(self, *, gpu: bool = False) -> dict[str, int]:
        """What the worker applies to itself before student code runs.  With a GPU, memory is capped as
        private writable data (RLIMIT_DATA), not address space: CUDA's start-up reserves far more address
        space than any RLIMIT_AS we would set ("cudaGetDeviceCount(): out of memory" on an H100), while
        that reservation holds no data.  What the notebook allocates on the host is counted either way."""
        return {
            "data_bytes" if gpu else "memory_bytes": self.memory_mb * 2**20,
            "cpu_seconds": self.cpu_seconds,
            "file_bytes": self.file_mb * 2**20,
            "open_files": self.open_files,
            "processes": self.processes,
        }
