"""Sample the memory of the processes a benchmark run starts (psutil, Linux).

A background thread walks the descendants of one root process every `interval` seconds and
keeps, per process, the peak RSS (VmHWM from /proc/<pid>/status, which the kernel keeps for us,
so short spikes between samples are not missed) and the peak PSS and USS it has *seen* (from
/proc/<pid>/smaps_rollup via psutil's memory_full_info; a sample, so a spike shorter than the
interval can be missed).

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
    hwm: int = 0       # peak RSS (VmHWM), bytes
    rss: int = 0       # peak sampled RSS
    pss: int = 0       # peak sampled PSS
    uss: int = 0       # peak sampled USS
    samples: int = 0


def _hwm(pid: int) -> int:
    try:
        with open(f"/proc/{pid}/status") as f:
            for line in f:
                if line.startswith("VmHWM:"):
                    return int(line.split()[1]) * 1024
    except OSError:
        pass
    return 0


@dataclass
class Sampler:
    """`classify(cmdline, proc) -> role or None` picks (and names) the processes to track."""
    root: int
    classify: object
    interval: float = 0.5
    peaks: dict[int, ProcPeak] = field(default_factory=dict)
    tree_rss: int = 0    # peak of the summed RSS of all tracked processes at one instant
    tree_pss: int = 0    # same, PSS (the honest "how much RAM did the whole run take")

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
                mem = p.memory_full_info()
            except (psutil.Error, OSError):
                continue
            peak.samples += 1
            peak.hwm = max(peak.hwm, _hwm(p.pid))
            peak.rss = max(peak.rss, mem.rss)
            peak.pss = max(peak.pss, getattr(mem, "pss", 0))
            peak.uss = max(peak.uss, mem.uss)
            rss_sum += mem.rss
            pss_sum += getattr(mem, "pss", 0)
        self.tree_rss = max(self.tree_rss, rss_sum)
        self.tree_pss = max(self.tree_pss, pss_sum)

    def by_role(self) -> dict[str, dict]:
        """Per role: how many processes, and the largest per-process peak of each measure (MiB)."""
        out: dict[str, dict] = {}
        for p in self.peaks.values():
            r = out.setdefault(p.role, {"processes": 0, "peak_rss_mib": 0.0, "peak_hwm_mib": 0.0,
                                        "peak_pss_mib": 0.0, "peak_uss_mib": 0.0})
            r["processes"] += 1
            r["peak_rss_mib"] = max(r["peak_rss_mib"], round(p.rss / MiB, 1))
            r["peak_hwm_mib"] = max(r["peak_hwm_mib"], round(p.hwm / MiB, 1))
            r["peak_pss_mib"] = max(r["peak_pss_mib"], round(p.pss / MiB, 1))
            r["peak_uss_mib"] = max(r["peak_uss_mib"], round(p.uss / MiB, 1))
        return out

    def summary(self) -> dict:
        return {"by_role": self.by_role(), "tree_peak_rss_mib": round(self.tree_rss / MiB, 1),
                "tree_peak_pss_mib": round(self.tree_pss / MiB, 1), "interval_s": self.interval}


def self_pid() -> int:
    return os.getpid()


def now() -> float:
    return time.perf_counter()
