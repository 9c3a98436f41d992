"""A grader killed mid-batch resumes without loss; two graders can share a results folder."""

import json
import os
import shutil
import signal
import sqlite3
import subprocess
import sys
import time
from pathlib import Path

import pytest

from autograder.execute.sandbox import RlimitsOnly
from autograder.student.release import release


def _class(toy_kit: Path, folder: Path, n: int) -> Path:
    folder.mkdir(parents=True)
    master = toy_kit / "solutions" / "toy.ipynb"
    blank = release(toy_kit, "toy", folder.parent / "released")[0]
    for i in range(n):
        shutil.copy(master if i % 4 else blank, folder / f"student{i:03d}.ipynb")
    return folder


def _cli(toy_kit: Path, subs: Path, out: Path) -> list[str]:
    return [
        sys.executable,
        "-m",
        "autograder",
        "--kit",
        str(toy_kit),
        "grade",
        "toy",
        str(subs),
        "--out",
        str(out),
        "--jobs",
        "2",
    ]


def _rows(out: Path) -> int:
    try:
        with sqlite3.connect(out / "gradebook.sqlite", timeout=30) as db:
            return db.execute("SELECT COUNT(*) FROM submissions").fetchone()[0]
    except sqlite3.Error:
        return 0


def _check_results(out: Path, n: int) -> None:
    with sqlite3.connect(out / "gradebook.sqlite") as db:
        rows = dict(db.execute("SELECT submission_id, score FROM submissions").fetchall())
    assert len(rows) == n
    for sid, score in rows.items():
        i = int(sid.removeprefix("student"))
        assert score == (10 if i % 4 else 0), sid
        data = json.loads((out / "toy" / sid / "results.json").read_text())  # complete, parseable
        assert data["score"] == score
    lines = (out / "toy" / "grades.csv").read_text().splitlines()
    assert len(lines) == n + 1


def test_kill_9_mid_batch_then_resume(toy_kit, tmp_path):
    n = 100
    subs = _class(toy_kit, tmp_path / "class", n)
    out = tmp_path / "results"
    proc = subprocess.Popen(
        _cli(toy_kit, subs, out), stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, start_new_session=True
    )
    deadline = time.monotonic() + 600
    while _rows(out) < 15 and time.monotonic() < deadline and proc.poll() is None:
        time.sleep(0.2)
    os.killpg(proc.pid, signal.SIGKILL)
    proc.wait()
    done_before = _rows(out)
    assert 15 <= done_before < n, "the batch must be interrupted in the middle"
    for f in (out / "toy").rglob("results.json"):
        json.loads(f.read_text())  # nothing half-written

    again = subprocess.run(_cli(toy_kit, subs, out), capture_output=True, text=True, timeout=1800)
    assert again.returncode == 0, again.stderr[-2000:]
    reused = sum(line.endswith("\treused") for line in again.stderr.splitlines())
    assert reused >= done_before  # what was finished is not graded again
    _check_results(out, n)


def test_two_graders_on_one_results_folder(toy_kit, tmp_path):
    n = 24
    subs = _class(toy_kit, tmp_path / "class", n)
    out = tmp_path / "results"
    procs = [
        subprocess.Popen(_cli(toy_kit, subs, out), stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
        for _ in range(2)
    ]
    for p in procs:
        _, err = p.communicate(timeout=1800)
        assert p.returncode == 0, err[-2000:]
    _check_results(out, n)
    with sqlite3.connect(out / "gradebook.sqlite") as db:
        assert db.execute("PRAGMA integrity_check").fetchone()[0] == "ok"


def _parent_of(pid: int | str) -> int:
    return int(Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[1])


def _ours(pid: int | str) -> bool:
    """Whether `pid` descends from this test process (another grader on the machine, grading the same toy
    kit at the same time, has zygotes of its own)."""
    try:
        while int(pid) > 1:
            pid = _parent_of(pid)
            if pid == os.getpid():
                return True
    except (OSError, ValueError, IndexError):
        pass
    return False


def _zygotes(probes: Path) -> list[int]:
    """Warm zygotes of this test process serving `probes` running now: `autograder.execute.zygote` processes
    whose parent is bwrap (this test process may hold zygotes of other assignments graded by earlier tests)."""
    found = []
    for pid in filter(str.isdigit, os.listdir("/proc")):
        try:
            cmd = Path(f"/proc/{pid}/cmdline").read_bytes().split(b"\0")
            parent = Path(f"/proc/{_parent_of(pid)}/cmdline").read_bytes().split(b"\0")[0]
        except OSError:
            continue
        if (
            b"autograder.execute.zygote" in cmd
            and not cmd[0].endswith(b"bwrap")
            and parent.endswith(b"bwrap")
            and str(probes).encode() in b" ".join(cmd)
            and _ours(pid)
        ):
            found.append(int(pid))
    return found


def test_killed_judge_process_loses_nothing(toy_kit, tmp_path):
    """A judge process killed from outside (the OOM killer, an admin) breaks the whole process pool:
    its unfinished submissions are graded again on a fresh pool, none is recorded as a failure.
    Under warm isolation all judges share the one zygote the grader started."""
    import multiprocessing

    from autograder.config.assignment import load_assignment
    from autograder.execute.sandbox import WarmBubblewrap
    from autograder.intake.submissions import Submission
    from autograder.judge.session import GradeOptions
    from autograder.pipeline import grade_class

    subs_dir = _class(toy_kit, tmp_path / "subs", 8)
    subs = [Submission(p.stem, p, p.name) for p in sorted(subs_dir.glob("*.ipynb"))]
    options = GradeOptions()
    warm = isinstance(options.isolation, WarmBubblewrap)
    seen: dict[str, object] = {"killed": None, "zygotes": []}

    def on_result(result, reused):
        if warm:
            seen["zygotes"].append(len(_zygotes(toy_kit / "assignments" / "toy" / "probes.py")))
        if seen["killed"] is None:
            judges = multiprocessing.active_children()
            assert judges, "no judge processes"
            seen["killed"] = judges[0].pid
            os.kill(judges[0].pid, signal.SIGKILL)

    out = tmp_path / "out"
    run = grade_class(load_assignment("toy", toy_kit), subs, out=out, jobs=2, options=options, on_result=on_result)
    assert seen["killed"]
    assert [r.status for r in run.results] == ["graded"] * 8, [(r.submission_id, r.message) for r in run.results]
    _check_results(out, 8)
    if warm:
        assert set(seen["zygotes"]) == {1}, seen["zygotes"]  # one zygote for the run, judges borrow it


def _locks_held(sid: int) -> set[Path]:
    """Scratch folders whose lock a process of session `sid` (a grader and its judges) holds open."""
    held = set()
    for pid in filter(str.isdigit, os.listdir("/proc")):
        try:
            if os.getsid(int(pid)) != sid:
                continue
            for fd in os.listdir(f"/proc/{pid}/fd"):
                target = os.readlink(f"/proc/{pid}/fd/{fd}")
                if target.endswith("/.lock"):
                    held.add(Path(target).parent)
        except OSError:
            continue
    return held


def _session_alive(sid: int) -> bool:
    for pid in filter(str.isdigit, os.listdir("/proc")):
        try:
            if os.getsid(int(pid)) == sid:
                return True
        except OSError:
            continue
    return False


def _running(pid: int) -> str | None:
    """`pid`'s command line while it runs (not a zombie), else None."""
    try:
        if Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0] == "Z":
            return None
        return Path(f"/proc/{pid}/cmdline").read_bytes().replace(b"\0", b" ").decode(errors="replace")
    except (OSError, IndexError):
        return None


def _tree(root: int) -> dict[int, str]:
    """The running processes descended from `root` (itself included), with their command lines."""
    from autograder.execute.process import _tree as descendants

    running = {pid: _running(pid) for pid in descendants(root)}
    return {pid: c for pid, c in running.items() if c is not None}


def test_a_grader_killed_alone_takes_its_judges_and_workers_along(toy_kit, tmp_path):
    """kill -9 of the grade command's process alone (the OOM killer, `kill -9 PID`), not of its group: its judges,
    their forkserver and every worker end with it.  Judges are the forkserver's children and each holds its liveness
    pipe, so they outlived the grader, waiting for tasks, holding their workers (1.8 GB a TensorFlow zygote)."""
    subs = _class(toy_kit, tmp_path / "class", 12)
    proc = subprocess.Popen(_cli(toy_kit, subs, tmp_path / "out"), stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    deadline = time.monotonic() + 300
    tree: dict[int, str] = {}
    while time.monotonic() < deadline and proc.poll() is None:
        tree = _tree(proc.pid)
        judges = [c for c in tree.values() if "forkserver" in c]
        if len(judges) >= 3 and any("bwrap" in c or "autograder.execute" in c for c in tree.values()):
            break  # the forkserver, two judges and a worker
        time.sleep(0.05)
    assert proc.poll() is None, "the class was graded before its judges and a worker were seen"
    tree = _tree(proc.pid)
    proc.kill()
    proc.wait()
    left = tree
    while left and time.monotonic() < deadline:
        time.sleep(0.1)
        left = {pid: c for pid, c in tree.items() if _running(pid) == c}  # the same process, not a pid reused
    assert not left, f"alive after the grader's kill -9: {[c[:120] for c in left.values()]}"


@pytest.mark.serial  # it freezes a grading run at moments when its folders are held: beside other tests' load the
# run can finish between two looks before all three kinds were seen at once
def test_scratch_of_a_killed_grader_is_pruned_by_the_next_run(toy_kit, tmp_path):
    """kill -9 of a grader mid-run leaves its scratch folders (intake copies of every notebook,
    workdirs, the zygote's socket folder) behind; the next run removes them at once, and never
    those of a grader that is still alive."""
    from autograder.execute.sandbox import Bubblewrap

    tmpdir = tmp_path / "tmp"
    tmpdir.mkdir()
    env = {**os.environ, "TMPDIR": str(tmpdir)}
    live = subprocess.Popen(  # a live grader's scratch: must survive every prune
        [
            sys.executable,
            "-c",
            "import sys\nfrom autograder.execute.scratch import Scratch, SOCKET_PARENT\n"
            "a, b = Scratch('ag-intake-'), Scratch('ag-z-', SOCKET_PARENT)\nprint(a.path, b.path, flush=True)\n"
            "sys.stdin.read()\na.close()\nb.close()",
        ],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        text=True,
        env=env,
    )
    kept = [Path(p) for p in live.stdout.readline().split()]
    old = tmpdir / "ag-zygote-old1"  # what an earlier version left (its lock file, nobody holding it)
    old.mkdir()
    (old / ".lock").touch()
    (old / "w-1").mkdir()

    subs = _class(toy_kit, tmp_path / "class", 12)
    proc = subprocess.Popen(
        _cli(toy_kit, subs, tmp_path / "out"),
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
        env=env,
        start_new_session=True,
    )
    warm = os.geteuid() == 0 and Bubblewrap.available()
    wanted = ("ag-intake-", "ag-work-", "ag-z-") if warm else ("ag-intake-", "ag-work-")
    deadline = time.monotonic() + 600
    dead: set[Path] = set()
    while time.monotonic() < deadline and proc.poll() is None:
        # frozen, the run holds exactly the folders kill -9 will leave: a folder seen held earlier (or
        # between a look and the kill) may since have been released and removed the normal way
        os.killpg(proc.pid, signal.SIGSTOP)
        dead = _locks_held(proc.pid)
        if all(any(d.name.startswith(p) for d in dead) for p in wanted):
            break
        os.killpg(proc.pid, signal.SIGCONT)
        time.sleep(0.1)
    os.killpg(proc.pid, signal.SIGKILL)
    proc.wait()
    try:
        assert all(any(d.name.startswith(p) for d in dead) for p in wanted), dead
        while _session_alive(proc.pid) and time.monotonic() < deadline:  # zygote, bwrap: die with their parent
            time.sleep(0.1)
        assert all(d.is_dir() for d in dead), "kill -9 leaves the folders behind (that is what is pruned)"

        one = tmp_path / "one"
        one.mkdir()
        shutil.copy(toy_kit / "solutions" / "toy.ipynb", one / "alice.ipynb")
        again = subprocess.run(
            _cli(toy_kit, one, tmp_path / "out2"), capture_output=True, text=True, env=env, timeout=600
        )
        assert again.returncode == 0, again.stderr[-2000:]
        assert [d for d in dead if d.exists()] == [] and not old.exists()
        assert all(k.is_dir() and (k / ".lock").is_file() for k in kept)
        left = [p.name for p in tmpdir.iterdir() if p.name.startswith("ag-")]  # a clean exit leaves nothing
        assert sorted(left) == sorted(k.name for k in kept if k.parent == tmpdir)
    finally:
        live.communicate("", timeout=60)
    assert not any(k.exists() for k in kept)


# ------------------------------------------------------------------ faults of the grader, the host, one file


def _toy(toy_kit: Path, tmp_path: Path, names: list[str]) -> tuple:
    from autograder.config.assignment import load_assignment
    from autograder.intake.submissions import Submission

    subs = [Submission(n, toy_kit / "solutions" / "toy.ipynb", f"{n}.ipynb") for n in names]
    return load_assignment("toy", toy_kit), subs


def _weak():
    """These tests are about the pipeline's bookkeeping, not the sandbox: plain worker processes."""
    from autograder.judge.session import GradeOptions

    return GradeOptions(isolation=RlimitsOnly())


def test_grader_fault_is_retried_then_provisional_and_never_reused(toy_kit, tmp_path, monkeypatch):
    """An exception of the grader on one submission: graded again in the same run; one that keeps
    failing ends as a grader error (no points, provisional), the others are graded, and the next
    run grades it again without --force while reusing the rest."""
    from autograder import pipeline
    from autograder.store.database import Gradebook

    assignment, subs = _toy(toy_kit, tmp_path, ["alice", "bob", "carol"])
    from autograder.judge import session

    real = session.grade_notebook
    calls: dict[str, int] = {}

    def flaky(a, path, *, submission_id, **kw):
        calls[submission_id] = calls.get(submission_id, 0) + 1
        if submission_id == "carol" or (submission_id == "bob" and calls["bob"] == 1):
            raise OSError(28, "No space left on device")
        return real(a, path, submission_id=submission_id, **kw)

    monkeypatch.setattr(session, "grade_notebook", flaky)
    out = tmp_path / "out"
    run = pipeline.grade_class(assignment, subs, out=out, options=_weak())
    res = {r.submission_id: r for r in run.results}
    assert (res["alice"].score, res["alice"].provisional) == (10, "")
    assert (res["bob"].score, res["bob"].provisional) == (10, "") and calls["bob"] == 2
    assert calls["carol"] == 1 + pipeline.GRADER_RETRIES and run.retried == 1 + pipeline.GRADER_RETRIES
    carol = res["carol"]
    assert carol.message.startswith("grader error") and carol.tests == [] and "No space left" in carol.provisional
    book = Gradebook(out / "gradebook.sqlite")
    assert book.get("toy", "carol").provisional  # the instructor sees it, marked as not final
    book.close()
    from dataclasses import replace

    from autograder.grades.rows import GradeRow
    from autograder.intake.roster import Identity

    row = GradeRow(Identity("b"), "bob", res["bob"], None, "graded")
    assert row.score == 10
    row.result = replace(res["bob"], provisional="probe 'double' got 0.0 s of CPU in 5.0 s of wall time")
    assert row.score is None and not row.gradable  # a provisional score is never sent to an LMS

    monkeypatch.setattr(session, "grade_notebook", real)
    seen: list[tuple[str, bool]] = []
    again = pipeline.grade_class(
        assignment, subs, out=out, options=_weak(), on_result=lambda r, reused: seen.append((r.submission_id, reused))
    )
    assert sorted(seen) == [("alice", True), ("bob", True), ("carol", False)]
    assert {r.submission_id: (r.score, r.provisional) for r in again.results}["carol"] == (10, "")


def test_a_result_that_cannot_be_written_costs_only_its_submission(toy_kit, tmp_path, monkeypatch):
    from autograder import pipeline

    assignment, subs = _toy(toy_kit, tmp_path, ["alice", "bob"])
    real = pipeline.write_submission

    def disk_full(out, result):
        if result.submission_id == "bob":
            raise OSError(28, "No space left on device")
        return real(out, result)

    monkeypatch.setattr(pipeline, "write_submission", disk_full)
    out = tmp_path / "out"
    run = pipeline.grade_class(assignment, subs, out=out, options=_weak())
    res = {r.submission_id: r for r in run.results}
    assert res["alice"].score == 10 and (out / "toy" / "alice" / "results.json").is_file()
    assert res["bob"].message.startswith("grader error") and res["bob"].provisional
    assert not (out / "toy" / "bob").exists() and (out / "toy" / "grades.csv").is_file()


def test_unreadable_zip_members_are_invalid_and_the_class_is_graded(toy_kit, tmp_path):
    import zipfile

    from autograder.config.assignment import load_assignment
    from autograder.intake.submissions import collect
    from autograder.pipeline import grade_class

    z = tmp_path / "class.zip"
    master = (toy_kit / "solutions" / "toy.ipynb").read_bytes()
    with zipfile.ZipFile(z, "w", zipfile.ZIP_DEFLATED) as zf:
        zf.writestr("alice.ipynb", master)
        zf.writestr("bob.ipynb", master)
    raw = bytearray(z.read_bytes())
    with zipfile.ZipFile(z) as zf:
        info = zf.getinfo("bob.ipynb")
    start = info.header_offset + 30 + len("bob.ipynb") + 8
    raw[start : start + 32] = b"\xff" * 32
    z.write_bytes(bytes(raw))
    subs = collect([z], tmp_path / "scratch")
    run = grade_class(load_assignment("toy", toy_kit), subs, out=tmp_path / "out", options=_weak())
    res = {r.submission_id: r for r in run.results}
    assert (res["alice"].status, res["alice"].score) == ("graded", 10)
    bob = res["bob"]
    assert bob.status == "invalid" and "damaged" in bob.message and bob.score == 0
    assert bob.max_score == 10 and all(t.outcome == "error" and "damaged" in t.message for t in bob.tests)
    assert bob.stdout == "" and bob.problems == []  # nothing of the reference's run is copied into it


def _runner(toy_kit: Path, source: str):
    from autograder.config.assignment import load_assignment
    from autograder.execute.runner import NotebookRunner
    from autograder.notebook.parse import load_cells

    a = load_assignment("toy", toy_kit)
    cells = [c for c in load_cells(a.solution)]
    cells = [type(c)(**{**c.__dict__, "source": c.source.replace("return x * 2", source)}) for c in cells]
    return NotebookRunner(cells, probes=a.probes, limits=a.limits, isolation=_Ahead())


class _Ahead(RlimitsOnly):
    """Rlimits-only workers, each put ahead of other work on the host as it starts (`_put_ahead_of_other_work`):
    a neighbour's grading cannot keep them from the CPU, so a test decides whether a worker was starved by
    what it did to it (nice 19 behind busy processes, `_put_behind_other_work`), not by the machine's load."""

    def spawn(self, workdir, *args, **kwargs):  # type: ignore[no-untyped-def]
        worker = super().spawn(workdir, *args, **kwargs)
        _put_ahead_of_other_work(worker.pid)
        return worker


SPIN = "import time\n    t = time.process_time()\n    while time.process_time() - t < 0.3: pass\n    return x * 2"


alone = pytest.mark.serial  # busy processes, or a wall backstop's timing: the host to itself


def _start_busy_processes(hogs: list) -> None:
    """Two processes per core that spin until killed, added to `hogs` (the caller kills and waits for them)."""
    import subprocess
    import sys

    hogs.extend(subprocess.Popen([sys.executable, "-c", "while True: pass"]) for _ in range(2 * os.cpu_count()))


def _renice(pid: int, nice: int) -> None:
    """`nice` for every thread of `pid`, and for its session's autogroup (a worker leads a session): the share
    of the CPU it gets against the host's other sessions follows the autogroup's."""
    for tid in os.listdir(f"/proc/{pid}/task"):
        os.setpriority(os.PRIO_PROCESS, int(tid), nice)
    if os.path.exists(f"/proc/{pid}/autogroup"):
        with open(f"/proc/{pid}/autogroup", "w") as f:
            f.write(str(nice))


def _put_behind_other_work(pid: int) -> None:
    """nice 19 (`_renice`), as a host overloaded by other graders would starve the worker behind busy processes."""
    _renice(pid, 19)


def _put_ahead_of_other_work(pid: int) -> bool:
    """nice -20 (`_renice`): other graders on the host (nice 0) then keep it from the CPU for a few percent at
    most, so only what it shares at its own priority can starve it.  False where this process may not raise a
    priority (not root)."""
    try:
        _renice(pid, -20)
    except PermissionError:
        return False
    return True


def _kill_once_gone(pid: int, hogs: list) -> None:
    """Kill `hogs` once process `pid` has died, so that a retry runs on a free host."""
    while os.path.exists(f"/proc/{pid}") and open(f"/proc/{pid}/stat").read().split()[2] != "Z":
        time.sleep(0.05)
    for h in hogs:
        h.kill()


def _stop(hogs: list) -> None:
    for h in hogs:
        h.kill()
        h.wait()


def _starved_call_is_retried_not_charged(toy_kit, release) -> None:
    """The toy's spinning `double` called with a 2 s deadline while its worker is kept from the CPU (nice 19
    and its autogroup behind two busy processes per core) until `release(worker_pid, hogs)`, called as the call
    starts, lets the busy processes end: the call is retried on a fresh worker and answers, and neither the
    student nor the notebook's max_restarts is charged."""
    import torch

    hogs: list = []
    _start_busy_processes(hogs)
    try:
        with _runner(toy_kit, SPIN) as runner:
            runner.execute()
            _put_behind_other_work(runner.worker.pid)
            release(runner.worker.pid, hogs)
            value = runner.call("double", (torch.tensor([1.0, 2.0]),), timeout=2.0)
            assert torch.equal(value, torch.tensor([2.0, 4.0]))
            assert runner.host.used == 1 and runner.host_fault == ""
            assert runner.restarts == 0  # the host's restart does not count against the notebook's max_restarts
    finally:
        _stop(hogs)


@alone
def test_starved_probe_is_retried_not_charged(toy_kit):
    """A probe that misses its wall deadline while its worker asked for the CPU and hardly got any (here:
    the worker at nice 19, and its session's autogroup too, behind two busy processes per core, as a host
    overloaded by other graders would starve it) is retried on a fresh worker, and the student is not charged."""
    import threading

    _starved_call_is_retried_not_charged(
        toy_kit, lambda pid, hogs: threading.Thread(target=_kill_once_gone, args=(pid, hogs), daemon=True).start()
    )


@alone
def test_a_host_whose_load_ends_just_before_the_deadline_is_still_the_host(toy_kit):
    """Kept from the CPU for most of its call (nice 19 and its autogroup behind two busy processes per core)
    and let run only in the last 0.15 s, the worker is spinning at its deadline, as a probe that slept and
    spun at the end would be; its main thread's run-queue wait over the call says the host kept it, so it
    is retried on a fresh worker, not charged."""
    import threading

    _starved_call_is_retried_not_charged(
        toy_kit, lambda pid, hogs: threading.Timer(1.85, lambda: [h.kill() for h in hogs]).start()
    )


@alone
def test_a_probe_cannot_keep_itself_from_the_cpu(toy_kit, sandbox):
    """A probe that pins itself to a CPU other work keeps busy, and spins, would be kept from the CPU by its
    own doing and look starved: retried twice and left provisional (seen before `sched_setaffinity` was
    refused).  In the sandbox the pin is refused (`execute/syscalls.py`), it spins where it can, and its
    timeout is charged at once, final.  The worker and the busy processes run ahead of other work on the
    host (`_put_ahead_of_other_work`): a neighbour's grading cannot starve the worker, the pin alone could."""
    import subprocess
    import sys

    import torch

    from autograder.config.assignment import load_assignment
    from autograder.execute.backend import ProbeTimeout
    from autograder.execute.runner import NotebookRunner
    from autograder.notebook.parse import load_cells

    cpus = sorted(os.sched_getaffinity(0))
    if len(cpus) < 2:
        pytest.skip("needs two CPUs: one kept busy, one free")
    busy = cpus[0]
    pin = f"import os; os.sched_setaffinity(0, {{{busy}}})"
    hogs = [
        subprocess.Popen([sys.executable, "-c", pin + "\nwhile True: pass"], start_new_session=True) for _ in range(3)
    ]
    try:
        ahead = all([_put_ahead_of_other_work(h.pid) for h in hogs])
        a = load_assignment("toy", toy_kit)
        how = f"try:\n        {pin}\n    except OSError:\n        pass\n    while True: pass\n    return x * 2"
        cells = [
            type(c)(**{**c.__dict__, "source": c.source.replace("return x * 2", how)}) for c in load_cells(a.solution)
        ]
        with NotebookRunner(cells, probes=a.probes, limits=a.limits, isolation=sandbox("warm")) as runner:
            runner.execute()
            assert runner.worker is not None
            assert _put_ahead_of_other_work(runner.worker.pid) == ahead
            with pytest.raises(ProbeTimeout):
                runner.call("double", (torch.ones(2),), timeout=1.0)
            assert runner.host.used == 0 and runner.host_fault == ""
    finally:
        _stop(hogs)


def _starving_isolation(hogs: list):
    """An isolation whose first worker, once its cell has started (it writes `started`), is put at nice 19
    (its session's autogroup too) behind two busy processes per core, as a host overloaded by other graders
    would starve it; the busy processes stop once that worker is gone, so the replay runs on a free host."""
    import threading

    class StarvingFirst(_Ahead):  # the replay's workers ahead of other work: a free host
        first: int | None = None

        def spawn(self, workdir, *args, **kwargs):
            worker = super().spawn(workdir, *args, **kwargs)
            if StarvingFirst.first is None:
                StarvingFirst.first = pid = worker.pid
                threading.Thread(target=self._starve, args=(pid, workdir / "started"), daemon=True).start()
            return worker

        @staticmethod
        def _starve(pid: int, started) -> None:
            while not started.exists():
                time.sleep(0.01)
            _put_behind_other_work(pid)
            _start_busy_processes(hogs)
            _kill_once_gone(pid, hogs)

    return StarvingFirst()


@alone
def test_a_cell_the_host_starves_is_replayed_not_charged():
    """A cell that needs 0.5 s of CPU, kept from the CPU until its wall backstop (3 x its 1 s of CPU),
    is the host's doing: the notebook is replayed on a fresh worker and the cell runs, uncharged.  It
    used to be a timeout, final.  A cell that sleeps to its backstop is still charged (test_cell_clock)."""
    from autograder.config.limits import Limits
    from autograder.execute.runner import NotebookRunner
    from autograder.notebook.parse import Cell

    spin = (
        "import time\nopen('started', 'w').close()\nt = time.process_time()\n"
        "while time.process_time() - t < 0.5:\n    pass\nDONE = True"
    )
    hogs: list = []
    isolation = _starving_isolation(hogs)
    limits = Limits(cell_timeout=1, submission_timeout=120, max_restarts=1)
    try:
        with NotebookRunner([Cell(index=1, source=spin)], probes=None, limits=limits, isolation=isolation) as runner:
            runner.execute()
            seen = (
                [(r.status, r.error) for r in runner.cell_records],
                runner.host.used,
                runner.host_fault,
                runner.restarts,
                os.getloadavg(),
            )
            assert [r.status for r in runner.cell_records] == ["ok"], seen
            assert runner.host.used == 1 and runner.host_fault == "" and runner.restarts == 0, seen
    finally:
        _stop(hogs)


@alone
@pytest.mark.parametrize("starved", [True, False], ids=["starved", "asleep"])
def test_a_submission_whose_time_runs_out_while_the_host_starves_it_is_provisional(starved):
    """The submission's whole budget ends in a cell: charged as out of time, and provisional (graded again)
    when other work kept the cell from the CPU, final when it slept."""
    from autograder.config.limits import Limits
    from autograder.execute.backend import ProbeTimeout
    from autograder.execute.runner import NotebookRunner
    from autograder.notebook.parse import Cell

    code = "import time\nopen('started', 'w').close()\n" + (
        "t = time.process_time()\nwhile time.process_time() - t < 3:\n    pass" if starved else "time.sleep(60)"
    )
    hogs: list = []
    isolation = _starving_isolation(hogs) if starved else _Ahead()
    limits = Limits(cell_timeout=5, submission_timeout=8, max_restarts=1)
    try:
        with NotebookRunner([Cell(index=1, source=code)], probes=None, limits=limits, isolation=isolation) as runner:
            with pytest.raises(ProbeTimeout, match="used up its time limit"):
                runner.execute()
            assert runner.out_of_time and runner.host.used == 0
            assert ("time ran out" in runner.host_fault) == starved, runner.host_fault
    finally:
        _stop(hogs)


@alone
@pytest.mark.parametrize(
    "how",
    [
        "import time\ntime.sleep(60)",
        "import threading\nthreading.Event().wait()",
        "import time\ntime.sleep(2.9)\nwhile True:\n    pass",
    ],
    ids=["sleep", "wait", "sleep_then_spin"],
)
def test_a_cell_that_sleeps_to_its_backstop_is_charged_at_once(how):
    """Not kept from the CPU by other work, a cell stopped by its wall backstop is the student's timeout:
    no replay, final."""
    from autograder.config.limits import Limits
    from autograder.execute.runner import NotebookRunner
    from autograder.notebook.parse import Cell

    limits = Limits(cell_timeout=1, submission_timeout=120, max_restarts=1)
    with NotebookRunner([Cell(index=1, source=how)], probes=None, limits=limits, isolation=_Ahead()) as runner:
        runner.execute()
        assert [r.status for r in runner.cell_records] == ["timeout"]
        assert runner.host.used == 0 and runner.host_fault == ""


def test_host_starved_by_cpu_share():
    from autograder.execute.runner import host_starved

    assert host_starved(0.0, 5.0) and host_starved(0.5, 5.0)  # starved by other work (or unknown demand)
    assert host_starved(0.1, 5.0, kept_from_cpu=True)  # kept from the CPU by other work
    assert not host_starved(0.0, 5.0, kept_from_cpu=False)  # asleep, waiting, stopped, spinning: its own doing
    assert not host_starved(4.8, 5.0) and not host_starved(3.0, 5.0)  # the probe's own loop used the CPU
    assert not host_starved(None, 5.0)  # unknown: charged as before


@pytest.mark.parametrize("how, kept", [("spin", True), ("sleep", False), ("stopped", False)])
def test_a_runnable_worker_whose_wait_the_kernel_does_not_count_is_kept_from_the_cpu(monkeypatch, how, kept):
    """Time a runnable thread is kept off the CPU that the kernel counts neither as run nor as a wait (a
    virtual CPU the host takes away, a group throttled to its CPU quota): with schedstat counting nothing,
    a worker whose thread is runnable (R) was kept from the CPU, the host's doing; one asleep (S) or
    stopped (T) was not, whatever the host's load."""
    import signal
    import subprocess
    import sys

    from autograder.execute import process
    from tests.execute.live import handle_on

    code = {"spin": "while True: pass", "sleep": "import time; time.sleep(60)", "stopped": "while True: pass"}[how]
    with handle_on(subprocess.Popen([sys.executable, "-c", code])) as (worker, _):
        time.sleep(0.3)  # asleep by then, or spinning
        if how == "stopped":
            worker.popen.send_signal(signal.SIGSTOP)
            time.sleep(0.05)
        monkeypatch.setattr(process, "_sched_of", lambda pid: (0.0, 0.0))  # the kernel counted nothing
        assert worker.starved() is kept


@alone  # whether its children's spinning counts as its own: read with the worker ahead of other work
@pytest.mark.parametrize(
    "how",
    [
        "import time; time.sleep(60)",
        "import os, signal; os.kill(os.getpid(), signal.SIGSTOP)",
        "import threading; threading.Event().wait()",
        "import time; time.sleep(0.9)\n    while True: pass",  # little CPU over the call, spinning at the deadline
        "import os, time; time.sleep(0.9)\n    for _ in range(8):\n        if os.fork() == 0:\n            while True: pass\n"
        "    while True: pass",  # ... with children that keep it waiting on a run queue: its own contention
        "import os, time; time.sleep(1.1)\n    for _ in range(8):\n        if os.fork() == 0:\n            while True: pass\n"
        "    while True: pass",  # ... started during the look at the deadline: they count from their start
    ],
    ids=["sleep", "sigstop", "wait", "sleep_then_spin", "sleep_then_fork_spinners", "fork_spinners_during_the_look"],
)
def test_a_probe_that_sleeps_or_stops_itself_is_charged_not_provisional(toy_kit, how):
    """A probe that sleeps, waits or stops itself until its deadline (or spins only at the end, alone or with
    children of its own) is not kept from the CPU by other work: its threads either do not wait on a run
    queue or run themselves, so it is the student's timeout, charged at once and final.  It used to
    look starved, be retried twice and leave the result provisional: graded again on every run, never
    sent to the LMS, a status of the grader's that the student caused."""
    import torch

    from autograder.execute.backend import ProbeTimeout

    with _runner(toy_kit, how + "\n    return x * 2") as runner:
        runner.execute()  # the worker's start is not what is timed
        t0 = time.monotonic()
        with pytest.raises(ProbeTimeout):
            runner.call("double", (torch.ones(2),), timeout=1.0)
        assert runner.host.used == 0 and runner.host_fault == ""
        assert time.monotonic() - t0 < 5


def test_a_fault_outside_the_judging_still_costs_only_its_submission(toy_kit, tmp_path, monkeypatch):
    """The kit cannot be loaded for one submission (read mid-run): a grader error for it, not a crash."""
    from autograder import pipeline

    assignment, subs = _toy(toy_kit, tmp_path, ["alice", "bob"])
    real = pipeline.load_assignment
    seen: list[str] = []

    def unreadable(name, kit):
        seen.append(name)
        if len(seen) > 1:  # alice's load works; bob's first try and each of its retries fail
            raise OSError(5, "Input/output error")
        return real(name, kit)

    monkeypatch.setattr(pipeline, "load_assignment", unreadable)
    run = pipeline.grade_class(assignment, subs, out=tmp_path / "out", options=_weak())
    res = {r.submission_id: r for r in run.results}
    assert res["alice"].score == 10 and not res["alice"].provisional
    assert res["bob"].message.startswith("grader error") and "Input/output error" in res["bob"].provisional


def test_a_worker_that_never_starts_is_the_hosts_fault_in_every_test(toy_kit, tmp_path, monkeypatch):
    """No worker can be started (here: the sandbox's program is missing, as a bwrap found on one PATH and
    run with another was): no student code ran, so every test is a grader error, never a crash charged to
    the notebook; the result is provisional (not exported, graded again on the next run).  For the master
    the same fault stops grading and is named first."""
    from autograder import pipeline
    from autograder.execute.runner import HOST_RETRIES
    from autograder.judge.session import GradeOptions

    class NoWorkers(RlimitsOnly):
        broken, spawns = True, 0

        def spawn(self, *args, **kwargs):
            if not NoWorkers.broken:
                return super().spawn(*args, **kwargs)
            NoWorkers.spawns += 1
            raise FileNotFoundError(2, "No such file or directory", "bwrap")

    assignment, subs = _toy(toy_kit, tmp_path, ["alice"])
    with pytest.raises(pipeline.MasterFailed, match="^grader or host fault.*could not be started.*bwrap"):
        pipeline.grade_class(assignment, subs, out=tmp_path / "out1", options=GradeOptions(isolation=NoWorkers()))
    assert NoWorkers.spawns <= 1 + HOST_RETRIES  # one failed start of the master, not one per reference call

    NoWorkers.broken, real = False, pipeline.check_master

    def then_break(reference):  # the master is graded on working workers, then the host breaks
        real(reference)
        NoWorkers.broken = True

    monkeypatch.setattr(pipeline, "check_master", then_break)
    NoWorkers.spawns = 0
    run = pipeline.grade_class(assignment, subs, out=tmp_path / "out2", options=GradeOptions(isolation=NoWorkers()))
    alice = run.results[0]
    assert alice.score == 0 and "could not be started" in alice.provisional
    ran = [t for t in alice.tests if t.outcome != "skipped"]  # (the CUDA variant, on a machine without CUDA)
    assert ran
    wrong = [
        (t.id, t.outcome, t.message)
        for t in ran
        if t.outcome != "error" or not t.message.startswith("grader error (not your fault)") or "bwrap" not in t.message
    ]
    assert not wrong, wrong
    assert not any("crash" in t.message for t in alice.tests)
    assert NoWorkers.spawns <= (1 + HOST_RETRIES) * (1 + pipeline.GRADER_RETRIES)  # given up, not hammered


def test_judges_are_forked_from_a_forkserver_that_imported_torch(toy_kit):
    """Judges come from one process that imported torch once (judges.py): not the grader itself (its
    threads and handlers must not leak into judges), and not one fresh import per judge."""
    from autograder.config.assignment import load_assignment
    from autograder.judge.session import GradeOptions
    from autograder.pipeline import _start_judges

    pool = _start_judges(2, load_assignment("toy", toy_kit), GradeOptions())
    try:
        judges = {pool.submit(os.getpid).result(timeout=300) for _ in range(6)}
        servers = {_parent_of(pid) for pid in judges}
        assert len(servers) == 1 and os.getpid() not in servers, (judges, servers)
        (server,) = servers
        cmdline = Path(f"/proc/{server}/cmdline").read_bytes()[:500]
        assert "libtorch" in Path(f"/proc/{server}/maps").read_text(), (
            server,
            cmdline,
        )  # loaded there, shared by every fork
    finally:
        pool.shutdown()


def test_judges_take_the_graders_environment_of_now_not_the_forkservers(toy_kit, tmp_path, monkeypatch):
    """The forkserver keeps the environment it started with; judges must see the grader's as it is when
    they start, since seeds (the course secret) and scratch folders (TMPDIR) derive from it.  A grader
    process that grades twice (the test suite, a notebook of an instructor) changes it in between."""
    import tempfile

    from autograder.config.assignment import load_assignment
    from autograder.judge import pool as judges
    from autograder.judge.session import GradeOptions
    from autograder.pipeline import _start_judges

    judges.prestart()  # running already, with the environment of before
    monkeypatch.setenv("AUTOGRADER_SECRET", "a-secret-set-after-the-forkserver-started")
    monkeypatch.setenv("TMPDIR", str(tmp_path))
    monkeypatch.delenv("HOME", raising=False)
    pool = _start_judges(2, load_assignment("toy", toy_kit), GradeOptions())
    try:
        for _ in range(4):
            assert (
                pool.submit(os.getenv, "AUTOGRADER_SECRET").result(timeout=300)
                == "a-secret-set-after-the-forkserver-started"
            )
            assert pool.submit(tempfile.gettempdir).result(timeout=300) == str(tmp_path)
            assert pool.submit(os.getenv, "HOME").result(timeout=300) is None
    finally:
        pool.shutdown()
