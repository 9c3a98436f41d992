"""Throughput benchmark: grade a generated class of every assignment with this kit, nbgrader and otter-grader,
and measure each assignment's floor and where the kit's time goes.

    make bench                                   # = .venv/bin/python bench/run.py (every assignment)
    .venv/bin/python bench/run.py --assignments 01_tensors,03_components --copies 2
    .venv/bin/python bench/run.py --only ours,floor,profile --samples perfect,partial,exception_midway,blank

Per assignment the class is `--copies` copies of six notebooks generated from its master (`samples()`:
perfect, partial, exception_midway, infinite_loop, invalid_json, blank).  Every grader is timed from
outside (wall clock of the command(s)), with only each process's peak RSS sampled meanwhile; `ours-memory`
grades the class again to sample PSS and USS too, which costs the measured grader time (memsample.py).
`floor` runs bench/floor.py (the master's cells and the tests' probe calls in one warm process, no
engine), `profile` runs bench/profile_stages.py (one judge under cProfile: time by stage and module).
The peers run for every assignment bench/peer_tests.py has tests for (all of the kit's).
Results: tables on stdout and bench/out/bench-<timestamp>.json (+ bench/out/latest.json).
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

import peers  # noqa: E402
from memsample import Sampler  # noqa: E402

KIT = BENCH.parent
SAMPLES = ("perfect", "partial", "exception_midway", "infinite_loop", "invalid_json", "blank")
GRADERS = ("ours", "ours-memory", "ours-jobs1", "dask", "nbgrader", "nbgrader-batch", "otter", "floor", "profile")
PEERS = ("nbgrader", "nbgrader-batch", "otter")


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

    return {
        "nproc": os.cpu_count(),
        "cpu_model": cpu,
        "ram_gib": round(mem_kb / 1024 / 1024, 1),
        "python": platform.python_version(),
        "torch": torch.__version__,
        "kernel": platform.release(),
        "bwrap": shutil.which("bwrap") is not None,
    }


def loadavg() -> list[float]:
    return [float(x) for x in Path("/proc/loadavg").read_text().split()[:3]]


# ------------------------------------------------------------------------------------------- the class
def _source(cell: dict) -> str:
    src = cell.get("source", "")
    return "".join(src) if isinstance(src, list) else src


def samples(assignment: str) -> dict[str, bytes]:
    """Six submissions made from the master: correct, partial (every second solution cell still the
    release's stub), broken (the middle solution cell raises first), hanging (it loops first), not a
    notebook (the file cut in half) and blank (the release).  Cell counts stay the master's, so the
    peers can map cells by position."""
    from autograder.student.release import BEGIN, strip_solutions

    raw = (KIT / "solutions" / f"{assignment}.ipynb").read_bytes()
    master = json.loads(raw)
    sol = [i for i, c in enumerate(master["cells"]) if c.get("cell_type") == "code" and BEGIN in _source(c)]
    mid = sol[len(sol) // 2]

    def variant(change: dict[int, str]) -> bytes:
        nb = json.loads(raw)
        for i, src in change.items():
            nb["cells"][i]["source"] = src
            nb["cells"][i]["outputs"] = []
        return json.dumps(nb, indent=1).encode()

    cells = master["cells"]
    return {
        "perfect": raw,
        "partial": variant({i: strip_solutions(_source(cells[i])) for i in sol[1::2]}),
        "exception_midway": variant({mid: 'raise RuntimeError("bench: a broken cell")\n' + _source(cells[mid])}),
        "infinite_loop": variant({mid: "while True:\n    pass\n" + _source(cells[mid])}),
        "invalid_json": raw[: len(raw) // 2],
        "blank": variant({i: strip_solutions(_source(cells[i])) for i in sol}),
    }


def make_class(dest: Path, assignment: str, copies: int, chosen: list[str]) -> list[tuple[str, Path]]:
    dest.mkdir(parents=True, exist_ok=True)
    made = samples(assignment)
    out = []
    for k in range(copies):
        for name in chosen:
            sid = f"{name}_{k:03d}"
            p = dest / f"{sid}.ipynb"
            p.write_bytes(made[name])
            out.append((sid, p))
    return out


def kind_of(sid: str) -> str:
    return sid.rsplit("_", 1)[0]


def per_submission(out: Path, assignment: str) -> list[dict]:
    """Each submission's record in a results folder (its instructor.json), with its time split into the notebook's
    cells, its tests, and the engine's overhead: what is neither (fork, pytest, results)."""
    per = []
    adir = out / assignment
    for d in sorted(x for x in adir.iterdir() if x.is_dir()) if adir.is_dir() else []:
        try:
            rec = json.loads((d / "instructor.json").read_text())
        except (OSError, ValueError):
            continue
        tests = sum(float(t.get("duration") or 0.0) for t in rec.get("tests", []))
        cells = float(rec.get("cell_time") or 0.0)  # the notebook's own cells, on the judge's clock
        per.append(
            {
                "id": rec["submission_id"],
                "status": rec["status"],
                "score": rec["score"],
                "execution_time": rec["execution_time"],
                "tests_s": tests,
                "cells_s": cells,
                "overhead_s": rec["execution_time"] - tests - cells,
            }
        )
    return per


# ------------------------------------------------------------------------------------------- stats
def pct(xs: list[float], q: float) -> float | None:
    if not xs:
        return None
    xs = sorted(xs)
    k = (len(xs) - 1) * q
    lo, hi = int(k), min(int(k) + 1, len(xs) - 1)
    return xs[lo] + (xs[hi] - xs[lo]) * (k - lo)


def dist(xs: list[float]) -> dict:
    return {
        "n": len(xs),
        "median": pct(xs, 0.5),
        "p95": pct(xs, 0.95),
        "mean": statistics.fmean(xs) if xs else None,
        "max": max(xs) if xs else None,
    }


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


def run_ours(
    assignment: str,
    klass_dir: Path,
    n: int,
    work: Path,
    *,
    jobs: int,
    label: str,
    scheduler: str | None = None,
    interval: float = 0.5,
    pss: bool = False,
) -> dict:
    out = work / f"results-{label}"
    shutil.rmtree(out, ignore_errors=True)
    cmd = [
        sys.executable,
        "-m",
        "autograder",
        "grade",
        assignment,
        str(klass_dir),
        "--out",
        str(out),
        "--jobs",
        str(jobs),
    ]
    if scheduler:
        cmd += ["--executor", "dask", "--scheduler", scheduler]
    shown = " ".join(["autograder"] + cmd[3:])
    log(f"[{label}] {shown}")
    load0 = loadavg()
    with Sampler(os.getpid(), _classify_ours, interval=interval, pss=pss) as sampler:
        t0 = time.perf_counter()
        p = subprocess.run(cmd, cwd=KIT, capture_output=True, text=True)
        wall = time.perf_counter() - t0
    res: dict = {
        "grader": label,
        "command": shown,
        "wall_s": wall,
        "rc": p.returncode,
        "n": n,
        "load_before": load0,
        "load_after": loadavg(),
        "memory": sampler.summary(),
    }
    if p.returncode != 0:
        res["error"] = (p.stderr or p.stdout)[-2000:]
        return res
    per = per_submission(out, assignment)
    try:  # the gradebook must agree with the files
        with sqlite3.connect(out / "gradebook.sqlite") as db:
            res["gradebook_rows"] = db.execute(
                "select count(*) from submissions where assignment=?", (assignment,)
            ).fetchone()[0]
    except sqlite3.Error as e:
        res["gradebook_rows"] = f"error: {e}"
    res["per_submission"] = per
    return res


def summarize_ours(r: dict) -> dict:
    per = r.get("per_submission", [])
    non_hang = [x for x in per if x["status"] != "timeout"]
    s = {
        "submissions_per_min": 60 * r["n"] / r["wall_s"] if r.get("wall_s") and "error" not in r else None,
        "execution_time": dist([x["execution_time"] for x in per]),
        "tests_time": dist([x["tests_s"] for x in per]),
        "overhead": dist([x["overhead_s"] for x in per]),
        "overhead_excluding_timeouts": dist([x["overhead_s"] for x in non_hang]),
        "execution_time_excluding_timeouts": dist([x["execution_time"] for x in non_hang]),
        "by_kind": {},
    }
    for k in sorted({kind_of(x["id"]) for x in per}):
        xs = [x for x in per if kind_of(x["id"]) == k]
        s["by_kind"][k] = {
            "status": sorted({x["status"] for x in xs}),
            "score": sorted({x["score"] for x in xs}),
            "execution_time_median": pct([x["execution_time"] for x in xs], 0.5),
            "overhead_median": pct([x["overhead_s"] for x in xs], 0.5),
        }
    return s


# ------------------------------------------------------------------------------------------- peers
def _classify_peer(cmd: str, proc) -> str | None:
    if "ipykernel" in cmd:
        return "kernel (student code)"
    if "nbgrader" in cmd or "otter" in cmd:
        return "grader process"
    return None


def run_peer(
    name: str, assignment: str, klass: list[tuple[str, Path]], work: Path, *, timeout: float, interval: float
) -> dict:
    load0 = loadavg()
    fn = {
        "nbgrader": peers.run_nbgrader,
        "otter": peers.run_otter,
        "nbgrader-batch": functools.partial(peers.run_nbgrader, batch=True),
    }[name]
    with Sampler(os.getpid(), _classify_peer, interval=interval) as sampler:
        t0 = time.perf_counter()
        res = fn(assignment, klass, work, timeout=timeout, log=log)
        total = time.perf_counter() - t0
    res.update(
        {
            "n": len(klass),
            "load_before": load0,
            "load_after": loadavg(),
            "memory": sampler.summary(),
            "timeout_s": timeout,
            "setup_and_total_s": total,
        }
    )
    if "per_submission" in res and "wall_s" not in res:
        res["wall_s"] = sum(x["wall_s"] for x in res["per_submission"])  # grading calls only, not setup
    return res


def summarize_peer(r: dict) -> dict:
    per = r.get("per_submission", [])
    if not per:
        return {}
    s = {
        "submissions_per_min": 60 * len(per) / r["wall_s"],
        "wall_per_submission": dist([x["wall_s"] for x in per]),
        "timeouts": sum(x["timed_out"] for x in per),
        "by_kind": {},
    }
    hang = [x for x in per if kind_of(x["id"]) != "infinite_loop"]
    if hang:
        s["submissions_per_min_excluding_infinite_loop"] = 60 * len(hang) / sum(x["wall_s"] for x in hang)
    for k in sorted({kind_of(x["id"]) for x in per}):
        xs = [x for x in per if kind_of(x["id"]) == k]
        s["by_kind"][k] = {
            "rc": sorted({x["rc"] for x in xs}),
            "timed_out": sum(x["timed_out"] for x in xs),
            "score": sorted({str(x.get("score")) for x in xs}),
            "wall_median": pct([x["wall_s"] for x in xs], 0.5),
        }
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
    rows = [
        (
            "grader",
            "n",
            "wall s",
            "subs/min",
            "per-sub median s",
            "per-sub p95 s",
            "overhead median s",
            "overhead p95 s",
            "peak/worker RSS MiB",
            "peak/worker PSS MiB",
            "peak/worker USS MiB",
        )
    ]
    for name, r in results.items():
        s = summaries.get(name, {})
        if "error" in r:
            rows.append(
                (
                    name,
                    str(r.get("n", "")),
                    "-",
                    "FAILED",
                    r["error"].splitlines()[-1][:60] if r["error"] else "",
                    "",
                    "",
                    "",
                    "",
                    "",
                    "",
                )
            )
            continue
        mem = worker_memory(name, r)
        if name.startswith("ours") or name == "dask":
            per, ov = s["execution_time"], s["overhead"]
        else:
            per, ov = s["wall_per_submission"], {"median": None, "p95": None}
        rows.append(
            (
                name,
                str(r["n"]),
                fmt(r["wall_s"]),
                fmt(s["submissions_per_min"]),
                fmt(per["median"], ".2f"),
                fmt(per["p95"], ".2f"),
                fmt(ov["median"], ".2f"),
                fmt(ov["p95"], ".2f"),
                fmt(mem.get("rss")),
                fmt(mem.get("pss")),
                fmt(mem.get("uss")),
            )
        )
    widths = [max(len(r[i]) for r in rows) for i in range(len(rows[0]))]
    lines = ["  ".join(c.ljust(w) for c, w in zip(r, widths)) for r in rows]
    lines.insert(1, "  ".join("-" * w for w in widths))
    return "\n".join(lines)


def worker_memory(name: str, r: dict) -> dict:
    """The footprint of one grading worker: for this kit the student worker process (the forked one when
    a zygote is used), for the peers the kernel that runs the student's notebook."""
    roles = r.get("memory", {}).get("by_role", {})
    key = next(
        (
            k
            for k in ("student worker (forked from zygote)", "student worker (cold)", "kernel (student code)")
            if k in roles
        ),
        None,
    )
    if key is None:
        return {}
    m = roles[key]
    return {
        "role": key,
        "rss": m["peak_hwm_mib"] or m["peak_rss_mib"],
        "pss": m["peak_pss_mib"],
        "uss": m["peak_uss_mib"],
    }


def run_script(script: str, *args: str) -> dict:
    """bench/<script> --json in a fresh interpreter; its JSON is the last line of its output."""
    cmd = [sys.executable, str(BENCH / script), *args]
    load0 = loadavg()
    t0 = time.perf_counter()
    p = subprocess.run(cmd, cwd=KIT, capture_output=True, text=True)
    meta = {
        "command": " ".join(["bench/" + script, *args]),
        "wall_s": time.perf_counter() - t0,
        "load_before": load0,
        "load_after": loadavg(),
    }
    lines = p.stdout.strip().splitlines()
    if p.returncode != 0 or not lines:
        return {**meta, "error": (p.stderr or p.stdout)[-2000:]}
    try:
        data = json.loads(lines[-1])
    except ValueError:
        return {**meta, "error": p.stdout[-2000:]}
    return {**meta, **(data[0] if isinstance(data, list) else data)}


def bench_assignment(assignment: str, args, only: list[str], work: Path, chosen: list[str]) -> dict:
    """Every requested measurement of one assignment, on one generated class."""
    klass_dir = work / assignment / "class"
    klass = make_class(klass_dir, assignment, args.copies, chosen)
    n = len(klass)
    log(f"{assignment}: {n} notebooks in {klass_dir}; load average {loadavg()}")
    results: dict[str, dict] = {}
    skipped: dict[str, str] = {}
    w = work / assignment
    if "ours" in only:
        results["ours"] = run_ours(assignment, klass_dir, n, w, jobs=args.jobs, label="ours", interval=args.interval)
    if "ours-memory" in only:
        results["ours-memory"] = run_ours(
            assignment, klass_dir, n, w, jobs=args.jobs, label="ours-memory", interval=args.interval, pss=True
        )
    if "ours-jobs1" in only:
        results["ours-jobs1"] = run_ours(
            assignment, klass_dir, n, w, jobs=1, label="ours-jobs1", interval=args.interval
        )
    if "dask" in only:
        ok, why = dask_available()
        if not ok:
            skipped["dask"] = why
        else:
            from dask.distributed import LocalCluster

            with LocalCluster(
                n_workers=2, threads_per_worker=1, processes=True, host="127.0.0.1", dashboard_address=None
            ) as cluster:
                results["dask"] = run_ours(
                    assignment,
                    klass_dir,
                    n,
                    w,
                    jobs=args.jobs,
                    label="dask",
                    scheduler=cluster.scheduler_address,
                    interval=args.interval,
                )
                results["dask"]["cluster"] = (
                    "LocalCluster(n_workers=2, threads_per_worker=1, processes=True) on 127.0.0.1"
                )
    for peer in PEERS:
        if peer not in only:
            continue
        if assignment not in peers.ASSIGNMENTS:
            skipped[peer] = f"bench/peer_tests.py has no tests for {assignment}"
            continue
        results[peer] = run_peer(peer, assignment, klass, w, timeout=args.peer_timeout, interval=args.interval)
    extra = {}
    if "floor" in only:
        log(f"[floor] bench/floor.py {assignment}")
        extra["floor"] = run_script("floor.py", assignment)
    if "profile" in only:
        log(f"[profile] bench/profile_stages.py {assignment} --copies {args.profile_copies}")
        extra["profile"] = run_script("profile_stages.py", assignment, "--copies", str(args.profile_copies), "--json")

    summaries = {}
    for name, r in results.items():
        if "error" in r:
            continue
        summaries[name] = summarize_ours(r) if name.startswith("ours") or name == "dask" else summarize_peer(r)
    ratios = {}
    ours = summaries.get("ours", {}).get("submissions_per_min")
    for peer in PEERS:
        p = summaries.get(peer, {})
        if ours and p.get("submissions_per_min"):
            ratios[f"ours_vs_{peer}"] = ours / p["submissions_per_min"]
    if ours and summaries.get("dask", {}).get("submissions_per_min"):
        ratios["dask_slowdown_vs_local_jobs"] = results["dask"]["wall_s"] / results["ours"]["wall_s"] - 1
    if ours and summaries.get("ours-jobs1", {}).get("submissions_per_min"):
        ratios["jobs2_speedup_vs_jobs1"] = results["ours-jobs1"]["wall_s"] / results["ours"]["wall_s"]
    floor = extra.get("floor", {}).get("floor_s")
    s = summaries.get("ours", {})
    median = s.get("execution_time_excluding_timeouts", {}).get("median")
    perfect = s.get("by_kind", {}).get("perfect", {}).get("execution_time_median")
    if floor and median:
        ratios["median_per_submission_vs_floor"] = median / floor
    if floor and perfect:
        ratios["perfect_vs_floor"] = perfect / floor
    ov = s.get("overhead_excluding_timeouts", {}).get("median")
    mem = worker_memory("ours", results["ours-memory"]) if "ours-memory" in results else {}
    targets = {
        "throughput >= 5x nbgrader whole-class": None
        if "ours_vs_nbgrader-batch" not in ratios
        else ratios["ours_vs_nbgrader-batch"] >= 5,
        "median per-submission <= 3x floor (non-timeout)": None
        if "median_per_submission_vs_floor" not in ratios
        else ratios["median_per_submission_vs_floor"] <= 3,
        "engine overhead < 0.15 s/submission (median, non-timeout)": None if ov is None else ov < 0.15,
        "peak memory per worker < 500 MB (PSS)": None if not mem.get("pss") else mem["pss"] * 1.048576 < 500,
    }
    return {
        "assignment": assignment,
        "notebooks": n,
        "results": results,
        "skipped": skipped,
        **extra,
        "summaries": summaries,
        "ratios": ratios,
        "targets_met": targets,
    }


def print_assignment(a: dict, interval: float, peer_timeout: float) -> None:
    print()
    print(f"== {a['assignment']}: {a['notebooks']} notebooks")
    if a["results"]:
        print(table(a["results"], a["summaries"]))
    f = a.get("floor", {})
    if "error" in f:
        print(f"floor: FAILED: {f['error'].strip().splitlines()[-1] if f['error'].strip() else ''}")
    elif f:
        print(
            f"floor: {f['floor_s']:.3f} s = master cells {f['cells_s']:.3f} s + {f['probe_calls']} probe calls "
            f"(student + reference) {f['calls_s']:.3f} s; the tests with both sides in process (pytest, no worker): "
            f"{f['inprocess_pytest_s']:.3f} s, {f['tests_passed_inprocess']}/{f['tests']} passed"
        )
        if "bound_s" in f:
            print(
                f"lower bound of this design: {f['bound_s']:.3f} s ({f['bound_s'] / f['floor_s']:.1f}x the floor) = "
                f"pytest and the checks {f['pytest_checks_s']:.3f} s + cells and student calls in a forked process "
                f"{f['forked_student_s']:.3f} s + one wire copy of each call {f['copies_s']:.3f} s + empty messages "
                f"between the two processes {f['transport_s']:.3f} s"
            )
        elif "bound_skipped" in f:
            print(f"lower bound of this design: not measured: {f['bound_skipped']}")
    p = a.get("profile", {})
    if "error" in p:
        print(f"profile: FAILED: {p['error'].strip().splitlines()[-1] if p['error'].strip() else ''}")
    elif p:
        from profile_stages import render

        print(render(p))
    for k, v in a["ratios"].items():
        print(f"{k}: {v:.2f}")
    for k, v in a["targets_met"].items():
        print(f"target {k}: {'met' if v else 'NOT met' if v is not None else 'not measured'}")
    for k, v in a["skipped"].items():
        print(f"skipped {k}: {v}")


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--assignments", help="comma-separated (default: every assignment `autograder list` shows)")
    ap.add_argument("--copies", type=int, default=10, help="copies of each of the 6 samples (default 10: 60 notebooks)")
    ap.add_argument("--only", default=",".join(GRADERS), help=f"comma-separated subset of {','.join(GRADERS)}")
    ap.add_argument("--jobs", type=int, default=2, help="--jobs for this kit's parallel run (default 2)")
    ap.add_argument(
        "--samples",
        help=f"comma-separated subset of {','.join(SAMPLES)} (e.g. leave out infinite_loop "
        "to compare graders without their different cell timeouts)",
    )
    ap.add_argument("--profile-copies", type=int, default=3, help="gradings profiled per assignment (default 3)")
    ap.add_argument(
        "--peer-timeout",
        type=float,
        default=60.0,
        help="external per-notebook timeout for nbgrader/otter, seconds (default 60)",
    )
    ap.add_argument("--interval", type=float, default=0.5, help="memory sampling interval, seconds")
    ap.add_argument("--out", type=Path, default=BENCH / "out")
    ap.add_argument("--keep", action="store_true", help="keep the scratch folder (class, results, course dirs)")
    args = ap.parse_args(argv)
    only = [g.strip() for g in args.only.split(",") if g.strip()]
    bad = set(only) - set(GRADERS)
    if bad:
        ap.error(f"unknown grader(s): {', '.join(sorted(bad))}")
    chosen = [x.strip() for x in args.samples.split(",")] if args.samples else list(SAMPLES)
    unknown = set(chosen) - set(SAMPLES)
    if unknown:
        ap.error(f"unknown sample(s): {', '.join(sorted(unknown))}")
    from autograder.config.assignment import list_assignments

    known = list_assignments(KIT)
    assignments = [x.strip() for x in args.assignments.split(",")] if args.assignments else known
    if set(assignments) - set(known):
        ap.error(f"unknown assignment(s): {', '.join(sorted(set(assignments) - set(known)))}")

    # a course secret, as a course sets one: hidden inputs per student (`probe.seeds`), the variant proofs included
    os.environ.setdefault("AUTOGRADER_SECRET", "bench-course-secret")
    work = Path(tempfile.mkdtemp(prefix="ag-bench-"))
    commit = subprocess.run(
        ["git", "rev-parse", "--short", "HEAD"], cwd=KIT, capture_output=True, text=True
    ).stdout.strip()
    info = {
        "started": dt.datetime.now().isoformat(timespec="seconds"),
        "machine": machine(),
        "commit": commit,
        "command": " ".join([".venv/bin/python", "bench/run.py", *(argv if argv is not None else sys.argv[1:])]),
        "copies": args.copies,
        "samples": chosen,
        "load_at_start": loadavg(),
        "peer_timeout_s": args.peer_timeout,
        "variants": os.environ.get("AUTOGRADER_VARIANTS", "student"),
    }
    m = info["machine"]
    print(
        f"machine: {m['nproc']} cpu ({m['cpu_model']}), {m['ram_gib']} GiB, python {m['python']}, torch {m['torch']}; "
        f"commit {commit}; load average at start {info['load_at_start']}"
    )
    per: dict[str, dict] = {}
    try:
        for assignment in assignments:
            per[assignment] = bench_assignment(assignment, args, only, work, chosen)
            print_assignment(per[assignment], args.interval, args.peer_timeout)
    finally:
        if not args.keep:
            shutil.rmtree(work, ignore_errors=True)
        else:
            log(f"kept {work}")
    info["load_at_end"] = loadavg()
    print()
    print(
        f"load average at end {info['load_at_end']}.  per-sub = execution_time from results.json (ours) or the wall "
        "time of one grading call (peers); overhead = execution_time - cell_time - sum(tests[].duration) (ours only); memory = "
        "the peak of one student worker (ours) or one notebook kernel (peers): RSS is VmHWM; PSS/USS sampled every "
        f"{args.interval:g} s in the ours-memory run only (sampling them slows the grader it measures).  Peers: external per-notebook timeout {args.peer_timeout:g} s."
    )
    print(summary_table(per))
    report = {**info, "assignments": per}
    args.out.mkdir(parents=True, exist_ok=True)
    stamp = dt.datetime.now().strftime("%Y%m%d-%H%M%S")
    text = json.dumps(report, indent=1, default=str)
    (args.out / f"bench-{stamp}.json").write_text(text)
    (args.out / "latest.json").write_text(text)
    print(f"json: {args.out / f'bench-{stamp}.json'}")
    return 0


def summary_table(per: dict[str, dict]) -> str:
    """One line per assignment: the kit against its floor and the peers."""
    rows = [
        (
            "assignment",
            "n",
            "subs/min",
            "median s (non-timeout)",
            "perfect s",
            "floor s",
            "median/floor",
            "perfect - student floor s",
            "overhead median s",
            "vs nbgrader-batch",
            "vs otter",
        )
    ]
    for aid, a in per.items():
        s, r, f = a["summaries"].get("ours", {}), a["ratios"], a.get("floor", {})
        perfect = s.get("by_kind", {}).get("perfect", {}).get("execution_time_median")
        # the reference's answers are cached: per submission the kit owes the cells and the student's calls
        above = perfect - (f["cells_s"] + f["calls_s"] / 2) if perfect is not None and "floor_s" in f else None
        rows.append(
            (
                aid,
                str(a["notebooks"]),
                fmt(s.get("submissions_per_min")),
                fmt(s.get("execution_time_excluding_timeouts", {}).get("median"), ".2f"),
                fmt(perfect, ".2f"),
                fmt(f.get("floor_s"), ".2f"),
                fmt(r.get("median_per_submission_vs_floor"), ".1f"),
                fmt(above, ".2f"),
                fmt(s.get("overhead_excluding_timeouts", {}).get("median"), ".2f"),
                fmt(r.get("ours_vs_nbgrader-batch"), ".1f"),
                fmt(r.get("ours_vs_otter"), ".1f"),
            )
        )
    widths = [max(len(x[i]) for x in rows) for i in range(len(rows[0]))]
    lines = ["  ".join(c.ljust(w) for c, w in zip(x, widths)) for x in rows]
    lines.insert(1, "  ".join("-" * w for w in widths))
    return "\n".join(lines)


if __name__ == "__main__":
    sys.exit(main())
