"""What a second job gets from this box's second core: CPU-bound work run alone, then two copies at once.

    .venv/bin/python bench/cores.py                 # a table on stdout
    .venv/bin/python bench/cores.py --rounds 5 --json

Two kinds of work, each timed by the wall clock from its start to its end (two at once: until both have ended),
and by the CPU seconds it used (`wait4`'s rusage, a compiler's own children included): a Python loop (an
interpreter's work, as a worker's probe calls and a judge's checks), and g++ building a small C++ file at -O2 (a
compiler's, as a kernel assignment's builds).  `speedup` is what two jobs give over one: 2 x (one alone) / (two
at once), by the wall clock.  A class-level bound divides the CPU its parts need by this, not by the number of
cores: a virtual machine's two cores can be two threads of one physical core, share its caches with other
machines, or be given less than their time (steal, which no process's CPU seconds show).
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

LOOP = "s = 0\nfor i in range(20_000_000):\n    s += i * i % 7\n"
CXX_HEAD = "#include <algorithm>\n#include <map>\n#include <regex>\n#include <string>\n#include <vector>\n"
CXX_UNIT = """
template <int K> double total_{k}(int n) {{
    std::map<std::string, std::vector<double>> t;
    std::regex digits("[0-9]+");
    for (int i = 0; i < n; i++)
        if (std::regex_match(std::to_string(i * K), digits)) t[std::to_string(i)].push_back(i * 0.5);
    double s = 0;
    for (auto &kv : t) s += *std::max_element(kv.second.begin(), kv.second.end());
    return s;
}}
template double total_{k}<{k}>(int);
"""
CXX = CXX_HEAD + "".join(CXX_UNIT.format(k=k) for k in range(1, 13))  # about 3 s of g++ -O2


def _commands(work: Path) -> dict[str, list[str]]:
    (work / "w.cc").write_text(CXX)
    return {
        "python loop": [sys.executable, "-c", LOOP],
        "g++ -O2": ["g++", "-O2", "-std=c++17", "-c", "-o", str(work / "w.o"), str(work / "w.cc")],
    }


def _run(commands: list[list[str]]) -> tuple[float, list[float]]:
    """Start `commands` at once: the wall seconds until all have ended, and each one's CPU seconds (its process
    and the children it waited for)."""
    cpu = []
    t0 = time.monotonic()
    procs = [subprocess.Popen(c) for c in commands]
    for p in procs:  # every one waited for, a failed one too: none is left running
        _, status, usage = os.wait4(p.pid, 0)
        p.returncode = os.waitstatus_to_exitcode(status)
        cpu.append(usage.ru_utime + usage.ru_stime)
    wall = time.monotonic() - t0
    for p in procs:
        if p.returncode:
            raise RuntimeError(f"{p.args[0]} failed with status {p.returncode}")
    return wall, cpu


def measure(rounds: int) -> dict:
    with tempfile.TemporaryDirectory(prefix="ag-cores-") as work:
        rows = {}
        for name, command in _commands(Path(work)).items():
            alone, paired = [], []
            for _ in range(rounds):  # alternating, so that a change of the box's speed meets both
                alone.append(_run([command]))
                paired.append(_run([command, command]))
            one, two = statistics.median(w for w, _ in alone), statistics.median(w for w, _ in paired)
            rows[name] = {
                "alone_wall_s": round(one, 3),
                "paired_wall_s": round(two, 3),
                "alone_cpu_s": round(statistics.median(c for _, cs in alone for c in cs), 3),
                "paired_cpu_s": round(statistics.median(c for _, cs in paired for c in cs), 3),
                "speedup": round(2 * one / two, 2),
            }
    return {
        "cores": os.cpu_count(),
        "load": os.getloadavg(),
        "rounds": rounds,
        "rows": rows,
        "at": time.strftime("%F %T"),
    }


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--json", action="store_true")
    args = ap.parse_args(argv)
    m = measure(args.rounds)
    if args.json:
        print(json.dumps(m))
        return 0
    print(f"{m['cores']} cores, load {m['load'][0]:.1f}, {m['at']}, median of {m['rounds']} rounds")
    print("| work | alone: wall s, CPU s | two at once: wall s, CPU s each | two jobs' speedup |\n|---|---:|---:|---:|")
    for name, r in m["rows"].items():
        print(
            f"| {name} | {r['alone_wall_s']:.2f}, {r['alone_cpu_s']:.2f} | {r['paired_wall_s']:.2f}, "
            f"{r['paired_cpu_s']:.2f} | {r['speedup']:.2f}x |"
        )
    return 0


if __name__ == "__main__":
    sys.exit(main())
