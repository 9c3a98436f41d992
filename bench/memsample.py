"""Sample the memory of the processes a benchmark run starts (psutil, Linux).

A background thread walks the descendants of one root process every `interval` seconds and
keeps, per process, the peak RSS (VmHWM from /proc/<pid>/status, which the kernel keeps for us,
so short spikes between samples are not missed) and, with `pss`, the peak PSS and USS it has *seen*
(from /proc/<pid>/smaps_rollup via psutil's memory_full_info; a sample, so a spike shorter than the
interval can be missed).

`pss` is for a run whose time is not measured: reading smaps_rollup walks each process's page tables
and holds its memory map's lock, and on 2 cores that took about 4 s of a 27 s class (01_tensors,
50 notebooks: 26.9-27.0 s unsampled against 31.3-32.1 s sampled every 0.5 s, alternating runs; at
nice 19 still 29.0-29.8 against 31.9-35.5).  Without it a sample reads /proc/<pid>/status only.

RSS counts every page a process maps, including the torch/libtorch pages that forked workers share
copy-on-write with their zygote; PSS divides each shared page between the processes that map it;
USS counts only the pages private to the process (what killing it would free).
"""

from __future__ import annotations

import os
import threading
import time
from dataclasses import dataclass, field

import psutil

MiB = 1024 * 1024


@dataclass
class ProcPeak:
    pid: int
    role: str
    cmdline: str
    hwm: int = 0  # peak RSS (VmHWM), bytes
    rss: int = 0  # peak sampled RSS
    pss: int = 0  # peak sampled PSS
    uss: int = 0  # peak sampled USS
    samples: int = 0


def _status(pid: int) -> dict[str, int]:
    """VmHWM and VmRSS of `pid`, bytes ({} once it is gone)."""
    out: dict[str, int] = {}
    try:
        with open(f"/proc/{pid}/status") as f:
            for line in f:
                if line.startswith(("VmHWM:", "VmRSS:")):
                    out[line[:5]] = int(line.split()[1]) * 1024
    except (OSError, ValueError, IndexError):
        pass
    return out


@dataclass
class Sampler:
    """`classify(cmdline, proc) -> role or None` picks (and names) the processes to track."""

    root: int
    classify: object
    interval: float = 0.5
    pss: bool = False
    peaks: dict[int, ProcPeak] = field(default_factory=dict)
    tree_rss: int = 0  # peak of the summed RSS of all tracked processes at one instant
    tree_pss: int = 0  # same, PSS (the honest "how much RAM did the whole run take")

    def __post_init__(self) -> None:
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._loop, daemon=True)

    def __enter__(self) -> "Sampler":
        self._thread.start()
        return self

    def __exit__(self, *exc) -> None:
        self._stop.set()
        self._thread.join()

    def _loop(self) -> None:
        while not self._stop.is_set():
            self.sample()
            self._stop.wait(self.interval)

    def sample(self) -> None:
        try:
            procs = psutil.Process(self.root).children(recursive=True)
        except psutil.Error:
            return
        rss_sum = pss_sum = 0
        for p in procs:
            try:
                peak = self.peaks.get(p.pid)
                if peak is None:
                    cmd = " ".join(p.cmdline())
                    role = self.classify(cmd, p)
                    if role is None:
                        continue
                    peak = self.peaks[p.pid] = ProcPeak(p.pid, role, cmd[:200])
                mem = p.memory_full_info() if self.pss else None
            except (psutil.Error, OSError):
                continue
            status = _status(p.pid)  # one read of /proc/<pid>/status: VmHWM, and VmRSS without `pss`
            rss = mem.rss if mem is not None else status.get("VmRSS", 0)
            peak.samples += 1
            peak.hwm = max(peak.hwm, status.get("VmHWM", 0))
            peak.rss = max(peak.rss, rss)
            rss_sum += rss
            if mem is not None:
                peak.pss = max(peak.pss, getattr(mem, "pss", 0))
                peak.uss = max(peak.uss, mem.uss)
                pss_sum += getattr(mem, "pss", 0)
        self.tree_rss = max(self.tree_rss, rss_sum)
        self.tree_pss = max(self.tree_pss, pss_sum)

    def by_role(self) -> dict[str, dict]:
        """Per role: how many processes, and the largest per-process peak of each measure (MiB)."""
        out: dict[str, dict] = {}
        for p in self.peaks.values():
            r = out.setdefault(
                p.role,
                {"processes": 0, "peak_rss_mib": 0.0, "peak_hwm_mib": 0.0, "peak_pss_mib": 0.0, "peak_uss_mib": 0.0},
            )
            r["processes"] += 1
            r["peak_rss_mib"] = max(r["peak_rss_mib"], round(p.rss / MiB, 1))
            r["peak_hwm_mib"] = max(r["peak_hwm_mib"], round(p.hwm / MiB, 1))
            if self.pss:
                r["peak_pss_mib"] = max(r["peak_pss_mib"], round(p.pss / MiB, 1))
                r["peak_uss_mib"] = max(r["peak_uss_mib"], round(p.uss / MiB, 1))
            else:
                r["peak_pss_mib"] = r["peak_uss_mib"] = None
        return out

    def summary(self) -> dict:
        return {
            "by_role": self.by_role(),
            "tree_peak_rss_mib": round(self.tree_rss / MiB, 1),
            "tree_peak_pss_mib": round(self.tree_pss / MiB, 1) if self.pss else None,
            "interval_s": self.interval,
            "pss_sampled": self.pss,
        }


def self_pid() -> int:
    return os.getpid()


def now() -> float:
    return time.perf_counter()
