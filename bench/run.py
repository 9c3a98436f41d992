"""Throughput benchmark: grade one generated class of 01_tensors with this kit, nbgrader and otter-grader.

    make bench                                   # = .venv/bin/python bench/run.py
    .venv/bin/python bench/run.py --copies 50    # the issue's 300-notebook class
    .venv/bin/python bench/run.py --only ours,dask

The class is `--copies` copies of each of the six sample submissions in examples/submissions/01_tensors/
(perfect, partial, exception_midway, infinite_loop, invalid_json, blank).  Every grader is timed from
outside (wall clock of the command(s)); memory is sampled from /proc while it runs (see memsample.py).
Results: a table on stdout and bench/out/bench-<timestamp>.json (+ bench/out/latest.json).
"""
from __future__ import annotations

import argparse
import datetime as dt
import functools
import json
import os
import platform
import shutil
import sqlite3
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

BENCH = Path(__file__).resolve().parent
sys.path.insert(0, str(BENCH))

from memsample import Sampler  # noqa: E402
import peers  # noqa: E402

KIT = BENCH.parent
ASSIGNMENT = "01_tensors"
SAMPLES = KIT / "examples" / "submissions" / ASSIGNMENT
GRADERS = ("ours", "ours-jobs1", "dask", "nbgrader", "nbgrader-batch", "otter")


def log(msg: str) -> None:
    print(f"[{time.strftime('%H:%M:%S')}] {msg}", file=sys.stderr, flush=True)


# ------------------------------------------------------------------------------------------- machine
def machine() -> dict:
    cpu = ""
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                cpu = line.split(":", 1)[1].strip()
                break
    except OSError:
        pass
    mem_kb = 0
    try:
        for line in Path("/proc/meminfo").read_text().splitlines():
            if line.startswith("MemTotal:"):
                mem_kb = int(line.split()[1])
    except OSError:
        pass
    import torch

    return {"nproc": os.cpu_count(), "cpu_model": cpu, "ram_gib": round(mem_kb / 1024 / 1024, 1),
            "python": platform.python_version(), "torch": torch.__version__, "kernel": platform.release(),
            "bwrap": shutil.which("bwrap") is not None}


def loadavg() -> list[float]:
    return [float(x) for x in Path("/proc/loadavg").read_text().split()[:3]]


# ------------------------------------------------------------------------------------------- the class
def make_class(dest: Path, copies: int, samples: list[str] | None = None) -> list[tuple[str, Path]]:
    dest.mkdir(parents=True, exist_ok=True)
    out = []
    chosen = [nb for nb in sorted(SAMPLES.glob("*.ipynb")) if samples is None or nb.stem in samples]
    for k in range(copies):
        for nb in chosen:
            sid = f"{nb.stem}_{k:03d}"
            p = dest / f"{sid}.ipynb"
            shutil.copyfile(nb, p)
            out.append((sid, p))
    return out


def kind_of(sid: str) -> str:
    return sid.rsplit("_", 1)[0]


# ------------------------------------------------------------------------------------------- stats
def pct(xs: list[float], q: float) -> float | None:
    if not xs:
        return None
    xs = sorted(xs)
    k = (len(xs) - 1) * q
    lo, hi = int(k), min(int(k) + 1, len(xs) - 1)
    return xs[lo] + (xs[hi] - xs[lo]) * (k - lo)


def dist(xs: list[float]) -> dict:
    return {"n": len(xs), "median": pct(xs, 0.5), "p95": pct(xs, 0.95), "mean": statistics.fmean(xs) if xs else None,
            "max": max(xs) if xs else None}


# ------------------------------------------------------------------------------------------- this kit
def _classify_ours(cmd: str, proc) -> str | None:
    try:
        name = proc.name()
    except Exception:  # noqa: BLE001
        name = ""
    if name == "bwrap":  # bubblewrap's own processes carry the zygote's/worker's command line too
        return None
    if "autograder.execute.zygote" in cmd:
        # the zygote's parent is bwrap; a worker's (or the intermediate namespace process's) parent is
        # the zygote or the intermediate process: same command line, since they are forks
        try:
            parent = proc.parent().name()
        except Exception:  # noqa: BLE001
            parent = ""
        return "zygote" if parent == "bwrap" else "student worker (forked from zygote)"
    if "autograder.execute.worker" in cmd:
        return "student worker (cold)"
    if "spawn_main" in cmd or "multiprocessing" in cmd:
        return "judge process"
    if "distributed" in cmd or "dask" in cmd:
        return "dask worker (judge)"
    if "autograder" in cmd and " grade " in f" {cmd} ":
        return "main (grade command)"
    return None


def run_ours(klass_dir: Path, n: int, work: Path, *, jobs: int, label: str, scheduler: str | None = None,
             interval: float = 0.5) -> dict:
    out = work / f"results-{label}"
    shutil.rmtree(out, ignore_errors=True)
    cmd = [sys.executable, "-m", "autograder", "grade", ASSIGNMENT, str(klass_dir), "--out", str(out), "--jobs", str(jobs)]
    if scheduler:
        cmd += ["--executor", "dask", "--scheduler", scheduler]
    shown = " ".join(["autograder"] + cmd[3:])
    log(f"[{label}] {shown}")
    load0 = loadavg()
    with Sampler(os.getpid(), _classify_ours, interval=interval) as sampler:
        t0 = time.perf_counter()
        p = subprocess.run(cmd, cwd=KIT, capture_output=True, text=True)
        wall = time.perf_counter() - t0
    res: dict = {"grader": label, "command": shown, "wall_s": wall, "rc": p.returncode, "n": n,
                 "load_before": load0, "load_after": loadavg(), "memory": sampler.summary()}
    if p.returncode != 0:
        res["error"] = (p.stderr or p.stdout)[-2000:]
        return res
    per = []
    adir = out / ASSIGNMENT
    for d in sorted(x for x in adir.iterdir() if x.is_dir()):
        try:
            rec = json.loads((d / "instructor.json").read_text())
        except (OSError, ValueError):
            continue
        tests = sum(float(t.get("duration") or 0.0) for t in rec.get("tests", []))
        per.append({"id": rec["submission_id"], "status": rec["status"], "score": rec["score"],
                    "execution_time": rec["execution_time"], "tests_s": tests,
                    "overhead_s": rec["execution_time"] - tests})
    try:  # the gradebook must agree with the files
        with sqlite3.connect(out / "gradebook.sqlite") as db:
            res["gradebook_rows"] = db.execute("select count(*) from submissions where assignment=?",
                                               (ASSIGNMENT,)).fetchone()[0]
    except sqlite3.Error as e:
        res["gradebook_rows"] = f"error: {e}"
    res["per_submission"] = per
    return res


def summarize_ours(r: dict) -> dict:
    per = r.get("per_submission", [])
    non_hang = [x for x in per if x["status"] != "timeout"]
    s = {"submissions_per_min": 60 * r["n"] / r["wall_s"] if r.get("wall_s") and "error" not in r else None,
         "execution_time": dist([x["execution_time"] for x in per]),
         "tests_time": dist([x["tests_s"] for x in per]),
         "overhead": dist([x["overhead_s"] for x in per]),
         "overhead_excluding_timeouts": dist([x["overhead_s"] for x in non_hang]),
         "by_kind": {}}
    for k in sorted({kind_of(x["id"]) for x in per}):
        xs = [x for x in per if kind_of(x["id"]) == k]
        s["by_kind"][k] = {"status": sorted({x["status"] for x in xs}), "score": sorted({x["score"] for x in xs}),
                           "execution_time_median": pct([x["execution_time"] for x in xs], 0.5),
                           "overhead_median": pct([x["overhead_s"] for x in xs], 0.5)}
    return s


# ------------------------------------------------------------------------------------------- peers
def _classify_peer(cmd: str, proc) -> str | None:
    if "ipykernel" in cmd:
        return "kernel (student code)"
    if "nbgrader" in cmd or "otter" in cmd:
        return "grader process"
    return None


def run_peer(name: str, klass: list[tuple[str, Path]], work: Path, *, timeout: float, interval: float) -> dict:
    load0 = loadavg()
    fn = {"nbgrader": peers.run_nbgrader, "otter": peers.run_otter,
          "nbgrader-batch": functools.partial(peers.run_nbgrader, batch=True)}[name]
    with Sampler(os.getpid(), _classify_peer, interval=interval) as sampler:
        t0 = time.perf_counter()
        res = fn(klass, work, timeout=timeout, log=log)
        total = time.perf_counter() - t0
    res.update({"n": len(klass), "load_before": load0, "load_after": loadavg(), "memory": sampler.summary(),
                "timeout_s": timeout, "setup_and_total_s": total})
    if "per_submission" in res and "wall_s" not in res:
        res["wall_s"] = sum(x["wall_s"] for x in res["per_submission"])  # grading calls only, not setup
    return res


def summarize_peer(r: dict) -> dict:
    per = r.get("per_submission", [])
    if not per:
        return {}
    s = {"submissions_per_min": 60 * len(per) / r["wall_s"],
         "wall_per_submission": dist([x["wall_s"] for x in per]),
         "timeouts": sum(x["timed_out"] for x in per), "by_kind": {}}
    hang = [x for x in per if kind_of(x["id"]) != "infinite_loop"]
    if hang:
        s["submissions_per_min_excluding_infinite_loop"] = 60 * len(hang) / sum(x["wall_s"] for x in hang)
    for k in sorted({kind_of(x["id"]) for x in per}):
        xs = [x for x in per if kind_of(x["id"]) == k]
        s["by_kind"][k] = {"rc": sorted({x["rc"] for x in xs}), "timed_out": sum(x["timed_out"] for x in xs),
                           "score": sorted({str(x.get("score")) for x in xs}),
                           "wall_median": pct([x["wall_s"] for x in xs], 0.5)}
    return s


# ------------------------------------------------------------------------------------------- dask
def dask_available() -> tuple[bool, str]:
    h = subprocess.run([sys.executable, "-m", "autograder", "grade", "--help"], cwd=KIT, capture_output=True, text=True)
    if "--executor" not in h.stdout:
        return False, "`autograder grade --help` shows no --executor"
    try:
        import dask.distributed  # noqa: F401
    except ImportError as e:
        return False, f"dask.distributed not importable: {e}"
    return True, ""


# ------------------------------------------------------------------------------------------- report
def fmt(x, spec=".1f", na="NA") -> str:
    return na if x is None else format(x, spec)


def table(results: dict, summaries: dict) -> str:
    rows = [("grader", "n", "wall s", "subs/min", "per-sub median s", "per-sub p95 s", "overhead median s",
             "overhead p95 s", "peak/worker RSS MiB", "peak/worker PSS MiB", "peak/worker USS MiB")]
    for name, r in results.items():
        s = summaries.get(name, {})
        if "error" in r:
            rows.append((name, str(r.get("n", "")), "-", "FAILED", r["error"].splitlines()[-1][:60] if r["error"] else "",
                         "", "", "", "", "", ""))
            continue
        mem = worker_memory(name, r)
        if name.startswith("ours") or name == "dask":
            per, ov = s["execution_time"], s["overhead"]
        else:
            per, ov = s["wall_per_submission"], {"median": None, "p95": None}
        rows.append((name, str(r["n"]), fmt(r["wall_s"]), fmt(s["submissions_per_min"]), fmt(per["median"], ".2f"),
                     fmt(per["p95"], ".2f"), fmt(ov["median"], ".2f"), fmt(ov["p95"], ".2f"),
                     fmt(mem.get("rss")), fmt(mem.get("pss")), fmt(mem.get("uss"))))
    widths = [max(len(r[i]) for r in rows) for i in range(len(rows[0]))]
    lines = ["  ".join(c.ljust(w) for c, w in zip(r, widths)) for r in rows]
    lines.insert(1, "  ".join("-" * w for w in widths))
    return "\n".join(lines)


def worker_memory(name: str, r: dict) -> dict:
    """The footprint of one grading worker: for this kit the student worker process (the forked one when
    a zygote is used), for the peers the kernel that runs the student's notebook."""
    roles = r.get("memory", {}).get("by_role", {})
    key = next((k for k in ("student worker (forked from zygote)", "student worker (cold)", "kernel (student code)")
                if k in roles), None)
    if key is None:
        return {}
    m = roles[key]
    return {"role": key, "rss": m["peak_hwm_mib"] or m["peak_rss_mib"], "pss": m["peak_pss_mib"], "uss": m["peak_uss_mib"]}


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--copies", type=int, default=10, help="copies of each of the 6 samples (default 10: 60 notebooks)")
    ap.add_argument("--only", default=",".join(GRADERS), help=f"comma-separated subset of {','.join(GRADERS)}")
    ap.add_argument("--jobs", type=int, default=2, help="--jobs for this kit's parallel run (default 2)")
    ap.add_argument("--samples", help="comma-separated subset of the six samples (e.g. leave out infinite_loop "
                                      "to compare graders without their different cell timeouts)")
    ap.add_argument("--peer-timeout", type=float, default=60.0,
                    help="external per-notebook timeout for nbgrader/otter, seconds (default 60)")
    ap.add_argument("--interval", type=float, default=0.5, help="memory sampling interval, seconds")
    ap.add_argument("--out", type=Path, default=BENCH / "out")
    ap.add_argument("--keep", action="store_true", help="keep the scratch folder (class, results, course dirs)")
    args = ap.parse_args(argv)
    only = [g.strip() for g in args.only.split(",") if g.strip()]
    bad = set(only) - set(GRADERS)
    if bad:
        ap.error(f"unknown grader(s): {', '.join(sorted(bad))}")

    work = Path(tempfile.mkdtemp(prefix="ag-bench-"))
    klass_dir = work / "class"
    samples = [x.strip() for x in args.samples.split(",")] if args.samples else None
    unknown = set(samples or []) - {nb.stem for nb in SAMPLES.glob("*.ipynb")}
    if unknown:
        ap.error(f"unknown sample(s): {', '.join(sorted(unknown))}")
    klass = make_class(klass_dir, args.copies, samples)
    n = len(klass)
    info = {"started": dt.datetime.now().isoformat(timespec="seconds"), "machine": machine(),
            "command": " ".join([".venv/bin/python", "bench/run.py", *(argv if argv is not None else sys.argv[1:])]),
            "copies": args.copies, "samples": samples or "all", "notebooks": n, "load_at_start": loadavg(), "peer_timeout_s": args.peer_timeout}
    log(f"class: {n} notebooks in {klass_dir}; load average {info['load_at_start']}")
    results: dict[str, dict] = {}
    skipped: dict[str, str] = {}
    try:
        if "ours" in only:
            results["ours"] = run_ours(klass_dir, n, work, jobs=args.jobs, label="ours", interval=args.interval)
        if "ours-jobs1" in only:
            results["ours-jobs1"] = run_ours(klass_dir, n, work, jobs=1, label="ours-jobs1", interval=args.interval)
        if "dask" in only:
            ok, why = dask_available()
            if not ok:
                skipped["dask"] = why
            else:
                from dask.distributed import LocalCluster

                with LocalCluster(n_workers=2, threads_per_worker=1, processes=True, host="127.0.0.1",
                                  dashboard_address=None) as cluster:
                    results["dask"] = run_ours(klass_dir, n, work, jobs=args.jobs, label="dask",
                                               scheduler=cluster.scheduler_address, interval=args.interval)
                    results["dask"]["cluster"] = "LocalCluster(n_workers=2, threads_per_worker=1, processes=True) on 127.0.0.1"
        for peer in ("nbgrader", "nbgrader-batch", "otter"):
            if peer in only:
                results[peer] = run_peer(peer, klass, work, timeout=args.peer_timeout, interval=args.interval)
    finally:
        if not args.keep:
            shutil.rmtree(work, ignore_errors=True)
        else:
            log(f"kept {work}")

    summaries = {}
    for name, r in results.items():
        if "error" in r:
            continue
        summaries[name] = summarize_ours(r) if name.startswith("ours") or name == "dask" else summarize_peer(r)
    ratios = {}
    ours = summaries.get("ours", {}).get("submissions_per_min")
    for peer in ("nbgrader", "nbgrader-batch", "otter"):
        p = summaries.get(peer, {})
        if ours and p.get("submissions_per_min"):
            ratios[f"ours_vs_{peer}"] = ours / p["submissions_per_min"]
    # the target is judged against nbgrader's faster way of running
    nbg = [ratios[k] for k in ("ours_vs_nbgrader", "ours_vs_nbgrader-batch") if k in ratios]
    if nbg:
        ratios["ours_vs_nbgrader_best"] = min(nbg)
    if ours and summaries.get("dask", {}).get("submissions_per_min"):
        ratios["dask_slowdown_vs_local_jobs"] = results["dask"]["wall_s"] / results["ours"]["wall_s"] - 1
    if ours and summaries.get("ours-jobs1", {}).get("submissions_per_min"):
        ratios["jobs2_speedup_vs_jobs1"] = results["ours-jobs1"]["wall_s"] / results["ours"]["wall_s"]

    ov = summaries.get("ours", {}).get("overhead_excluding_timeouts", {}).get("median")
    mem = worker_memory("ours", results["ours"]) if "ours" in results else {}
    targets = {
        "throughput >= 10x nbgrader (its faster mode)": None if "ours_vs_nbgrader_best" not in ratios
        else ratios["ours_vs_nbgrader_best"] >= 10,
        "throughput >= 10x otter": None if "ours_vs_otter" not in ratios else ratios["ours_vs_otter"] >= 10,
        "engine overhead < 0.3 s/submission (median, warm workers, non-timeout)": None if ov is None else ov < 0.3,
        "peak memory per worker < 500 MB (PSS)": None if not mem else mem["pss"] * 1.048576 < 500,
        "dask LocalCluster(2) <= 25% slower than --jobs 2": None if "dask_slowdown_vs_local_jobs" not in ratios
        else ratios["dask_slowdown_vs_local_jobs"] <= 0.25,
    }
    info["load_at_end"] = loadavg()
    report = {**info, "skipped": skipped, "results": results, "summaries": summaries, "ratios": ratios,
              "targets_met": targets}

    print()
    print(f"01_tensors class: {n} notebooks ({args.copies} x {len(samples) if samples else 6} samples); machine: {info['machine']['nproc']} cpu "
          f"({info['machine']['cpu_model']}), {info['machine']['ram_gib']} GiB; load average at start "
          f"{info['load_at_start']}, at end {info['load_at_end']}")
    print(table(results, summaries))
    print("per-sub = execution_time from results.json (ours) or the wall time of one grading call (peers); "
          "overhead = execution_time - sum(tests[].duration) (ours only); memory = the peak of one student worker "
          "(ours) or one notebook kernel (peers): RSS is VmHWM, PSS/USS sampled every "
          f"{args.interval:g} s.  Peers: external per-notebook timeout {args.peer_timeout:g} s.")
    for k, v in ratios.items():
        print(f"{k}: {v:.2f}")
    for k, v in targets.items():
        print(f"target {k}: {'met' if v else 'NOT met' if v is not None else 'not measured'}")
    for k, v in skipped.items():
        print(f"skipped {k}: {v}")
    args.out.mkdir(parents=True, exist_ok=True)
    stamp = dt.datetime.now().strftime("%Y%m%d-%H%M%S")
    text = json.dumps(report, indent=1, default=str)
    (args.out / f"bench-{stamp}.json").write_text(text)
    (args.out / "latest.json").write_text(text)
    print(f"json: {args.out / f'bench-{stamp}.json'}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
