"""Grade a class: intake -> (per submission, in trusted judge processes) execute, probe,
judge, score -> report.  The only place that writes results, so the only place that
needs to care about resuming, incremental grading and parallelism.
"""
from __future__ import annotations

import os
import traceback
from concurrent.futures import FIRST_COMPLETED, Future, ProcessPoolExecutor, wait
from concurrent.futures.process import BrokenProcessPool
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any, Callable

import autograder
from autograder import judges
from autograder.assignment import Assignment, load_assignment
from autograder.execute.sandbox import close_at_exit
from autograder.intake.roster import read_identities
from autograder.intake.submissions import Submission, file_sha256
from autograder.judge.session import (GradeOptions, close_references, combine, environment, grade_notebook,
                                      prepare_tests, reference_for, regrade_notebook, release_reference_workers,
                                      tests_to_rerun)
from autograder.probe.inprocess import NOT_ANSWERED
from autograder.probe.seeds import Seeds, variant_count
from autograder.report.files import write_submission
from autograder.report.history import keep as keep_version
from autograder.report.gradebook import Gradebook
from autograder.report.exports import assignment_grades
from autograder.report.grades_csv import write_assignment_grades_csv
from autograder.score.results import SubmissionResult

REFERENCE_ID = "__reference__"
GRADER_RETRIES = 2  # a submission whose grading hit a grader or host fault is graded again this often per run


class MasterFailed(Exception):
    """The master notebook does not score full marks against the current tests: grading a class
    then would charge every student for a broken assignment or a broken sandbox, so nobody is graded."""


@dataclass
class ClassRun:
    results: list[SubmissionResult]   # this run's submissions, in input order
    reference: SubmissionResult | None
    reused: int                       # submissions whose stored grade was still valid
    partial: int = 0                  # submissions re-graded on the changed test files only
    retried: int = 0                  # gradings repeated after a grader or host fault

# A partial re-grade: the test files to run again, and the stored record whose other results stay.
Rerun = tuple[list[str], dict]


JUDGE_MB = 512   # a judge process (torch, pytest, reference answers): ~250 MiB PSS measured, with room
ZYGOTE_MB = 512  # the one warm zygote all jobs share: ~290 MiB PSS measured
# torch threads of a judge (tests compare small tensors there).  More threads only wait for each other:
# while the workers keep the cores busy, every parallel region of a 2-thread judge waited for a
# descheduled thread (03_components: a BatchNorm comparison took 54 ms per call instead of 0.2 ms).
JUDGE_THREADS = 1


def judge_threads() -> None:
    import torch

    torch.set_num_threads(JUDGE_THREADS)


def jobs_within(requested: int, worker_mb: int, budget_mb: int, workers: int = 1) -> int:
    """How many submissions may be graded at once in `budget_mb` of memory: each job is a judge
    process plus `workers` workers, each capped by its cgroup (and RLIMIT_AS) at `memory_mb`: the
    student's, and with per-student variants the master's, which the judge keeps to answer them."""
    return max(1, min(requested, (budget_mb - ZYGOTE_MB) // (workers * worker_mb + JUDGE_MB)))


def available_mb() -> int:
    """Memory that can be used without pushing others out (MemAvailable), in MiB."""
    try:
        for line in Path("/proc/meminfo").read_text().splitlines():
            if line.startswith("MemAvailable:"):
                return int(line.split()[1]) // 1024
    except OSError:
        pass
    return (os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES")) // 2**20


_holds_master = False  # in a judge: its share of the reference pass left the master's worker running


def _judge(kit: str, assignment_id: str, sub: Submission, options: GradeOptions, rerun: Rerun | None = None,
           variant: str = "") -> dict:
    """One submission, in a judge process, under the student's `variant` of the hidden inputs; returns a
    plain record (picklable, no live objects)."""
    global _holds_master
    if _holds_master and not variant:  # the pass is over and its answers cached: a judge holds one worker
        release_reference_workers()
        _holds_master = False
    assignment = load_assignment(assignment_id, Path(kit))
    try:
        if rerun is not None:
            files, stored = rerun
            result = regrade_notebook(assignment, sub.path, SubmissionResult.from_record(stored), files,
                                      options=options, variant=variant)
        else:
            files = None
            result = grade_notebook(assignment, sub.path, submission_id=sub.id, source=sub.source, options=options,
                                    variant=variant)
        why = _prove_variant(assignment, variant, options, result, files)
        if why:  # the assignment's fault on this variant, or the host's: never charged to the student
            result = replace(result, provisional=why.splitlines()[0][:300], problems=[*result.problems, why])
        return result.to_record()
    except Exception:  # noqa: BLE001 - a grader bug must cost one submission, not the batch
        return _grader_error(assignment, sub, options, traceback.format_exc()).to_record()


def _start_judge(kit: str, assignment_id: str, options: GradeOptions, environ: dict[str, str]) -> None:
    """In each judge process, first: die with the grader, take its environment, then collect the tests
    before the first task (a share of the reference pass)."""
    _die_with_grader()
    judges.adopt(environ)
    # the exit hook the isolation registered when it was unpickled (before this process's bootstrap, which
    # clears multiprocessing's hooks) is gone: without this one the judge left its last worker's cgroups
    close_at_exit(options.isolation)
    _close_references_at_exit()
    _ready(kit, assignment_id, options)


def _close_references_at_exit() -> None:
    """A judge's share of the reference pass may leave the master's worker running until the judge ends
    (a judge that gets no student): stop it then, with its scratch folder, before the zygote closes
    (multiprocessing runs higher exit priorities first; the isolation's is 100)."""
    from multiprocessing import util

    util.Finalize(None, close_references, exitpriority=200)


def _die_with_grader() -> None:
    """Judge processes exit when the grader dies (kill -9 included), taking their workers along."""
    try:
        import ctypes
        import signal

        ctypes.CDLL(None).prctl(1, signal.SIGKILL)  # PR_SET_PDEATHSIG
    except (OSError, AttributeError):
        pass


def _grader_error(assignment: Assignment, sub: Submission, options: GradeOptions, why: str) -> SubmissionResult:
    """The grader or the host failed (not the submission): no grade, provisional, graded again next run."""
    return SubmissionResult(
        assignment=assignment.id, submission_id=sub.id, source=sub.source, sha256="", status="crashed",
        message="grader error: the grader itself failed on this submission; it was not graded and will be "
                "graded again on the next run (see instructor.json)",
        tests=[], cells=[], execution_time=0.0,
        environment=environment(assignment, assignment.version(), options), problems=[why[-4000:]],
        provisional=(why.strip().splitlines() or ["grader error"])[-1][:300],
    )


def _unreadable(reference: SubmissionResult, sub: Submission) -> SubmissionResult:
    """A submission intake could not extract (damaged, encrypted, too large): `invalid`, every test
    listed at 0 with the reason, nothing run.  Its content is unknown, so it is never reused."""
    tests = [replace(t, score=0.0, outcome="error", message=f"not graded: {sub.problem}", duration=0.0)
             for t in reference.tests]
    return replace(reference, submission_id=sub.id, source=sub.source, sha256="", status="invalid",
                   message=sub.problem, tests=tests, cells=[], execution_time=0.0, stdout="", stderr="",
                   problems=[], provisional="")


def check_master(reference: SubmissionResult) -> None:
    """Raise `MasterFailed`, naming what failed, unless the master earned every point of every test."""
    bad = [t for t in reference.tests if t.outcome not in ("passed", "skipped") or t.score < t.max_score]
    if reference.tests and not bad and not reference.problems and not reference.provisional \
            and reference.score == reference.max_score:
        return
    # a fault of the grader or the host says nothing about the master: name it first
    why = [f"grader or host fault: {reference.provisional}"] if reference.provisional else []
    why += [f"the master notebook scores {reference.score:g}/{reference.max_score:g} against its own tests "
           f"({reference.status}{': ' + reference.message if reference.message else ''})"]
    if not reference.tests:
        why.append("no test ran")
    why += [f"{t.id}: {t.outcome}: {t.message.strip()[:300]}" for t in bad[:3]]
    if len(bad) > 3:
        why.append(f"... and {len(bad) - 3} more tests")
    why += [p.strip()[:800] for p in reference.problems[:1]]
    raise MasterFailed("\n  ".join(why))


def _prove_variant(assignment: Assignment, variant: str, options: GradeOptions, result: SubmissionResult,
                   ran: list[str] | None) -> str:
    """'' when the master scores full marks, under the student's `variant`, on every hidden test file in which
    `result` lost points (of the files that `ran`; not to an untouched stub, 0 whatever the master does),
    else why not: the gate of a variant.  The course-wide inputs passed it before anyone was graded and
    public tests do not vary; a point lost on a file the master fails on this variant would charge the
    student for the assignment.  The master's answers were computed while the student was graded (its
    worker answers a variant's misses), so this is mostly cache hits; each file is proven once per
    variant and version (`CachedReference.prove`)."""
    hidden = assignment.hidden_dir.name
    lost = sorted({t.file for t in result.tests if Path(t.file).parts[0] == hidden and t.score < t.max_score
                   and (ran is None or t.file in ran) and not t.message.startswith(NOT_ANSWERED)})
    if not variant or not lost:
        return ""

    def run(files: list[str]) -> str:
        try:
            check_master(grade_notebook(assignment, assignment.solution, submission_id=REFERENCE_ID, options=options,
                                        as_reference=True, test_files=files, variant=variant))
        except MasterFailed as e:
            return f"the master notebook fails the hidden tests on the variant {variant}: {e}"
        return ""
    return reference_for(assignment, assignment.version(), options).prove(variant, lost, run)


def variants_of(assignment: Assignment, submissions: list[Submission], out: Path) -> dict[str, str]:
    """Each submission's variant of the hidden inputs, from the identity intake assigned (identities.json:
    the roster's student id where matched), or the submission's id where intake knew no student."""
    known = read_identities(out / assignment.id / "identities.json")
    seeds, count = Seeds.for_course(assignment.id), variant_count()
    return {s.id: seeds.variant_of(known[s.id].student_id if s.id in known and known[s.id].student_id else s.id,
                                   count) for s in submissions}


def grade_class(
    assignment: Assignment,
    submissions: list[Submission],
    *,
    out: Path,
    jobs: int = 1,
    options: GradeOptions | None = None,
    force: bool = False,
    on_result: Callable[[SubmissionResult, bool], None] | None = None,
    scheduler: str | None = None,
    course: Any = None,
) -> ClassRun:
    """Grade `submissions`; with `scheduler` (a Dask address) each submission is a task on that cluster.

    Whatever executes the judging, only this process writes results and the gradebook.
    """
    options = options or GradeOptions()
    options.cache_dir = options.cache_dir or out / ".cache" / "reference"
    variants = variants_of(assignment, submissions, out)
    judge_threads()  # this process judges too with jobs=1 or a scheduler: the reference pass, and every submission
    version = assignment.version()
    pool: ProcessPoolExecutor | None = None
    local_judges = jobs > 1 and not scheduler
    if local_judges:
        judges.prestart()  # the judges' imports (started by the grade command already: a no-op)
    client, warming = _dask_client(scheduler, assignment, options) if scheduler else (None, [])  # noqa: F841 - held, see there
    gradebook: Gradebook | None = None
    try:
        if local_judges:
            # the judges borrow this process's zygote (its address travels with `options`): started
            # here, not by each judge's first worker (the grade command has started it already)
            options.isolation.prestart(assignment.probes, assignment.limits)
            pool = _start_judges(jobs, assignment, options)
        # 1. the master through the reference: a master short of full marks stops here, before
        #    anything is written for students.
        try:
            reference = _reference_pass(assignment, options, pool)
        except Exception as e:  # noqa: BLE001 - reported as what failed, not as a traceback
            raise MasterFailed(f"grading the master notebook failed: {type(e).__name__}: {e}") from e
        check_master(reference)
        gradebook = Gradebook(out / "gradebook.sqlite")
        results: dict[str, SubmissionResult] = {}
        todo: list[Submission] = []
        reruns: dict[str, Rerun] = {}
        for sub in submissions:
            if sub.problem:  # intake could not extract it: nothing to run
                todo.append(sub)
                continue
            old = gradebook.fingerprint(assignment.id, sub.id) if not force else None
            current = file_sha256(sub.path) if sub.path.is_file() else ""
            stored = gradebook.get(assignment.id, sub.id) if old and old[0] == current else None
            if stored is not None and stored.provisional:  # a grader or host fault: never final
                stored = None
            if stored is not None and stored.environment.get("variant", "") != variants[sub.id]:
                stored = None  # graded on other hidden inputs (another variant count, a roster match since)
            if stored is not None and old == (current, version, autograder.__version__):
                results[sub.id] = stored
                if on_result:
                    on_result(stored, True)
                continue
            if stored is not None:  # same notebook, assignment changed: maybe only some test files
                files = tests_to_rerun(stored, assignment)
                if files is not None:
                    reruns[sub.id] = (files, stored.to_record())
            todo.append(sub)
        reused = len(results)
        by_id = {s.id: s for s in todo}
        tries: dict[str, int] = {}
        again: list[Submission] = []

        def finish(record: dict) -> None:
            """Store one submission's result; a provisional one is first graded again (GRADER_RETRIES)."""
            sid = str(record.get("submission_id"))
            try:
                r = SubmissionResult.from_record(record)
                if r.provisional and tries.get(sid, 0) < GRADER_RETRIES and sid in by_id:
                    tries[sid] = tries.get(sid, 0) + 1
                    again.append(by_id[sid])
                    return
                write_submission(out, r)
                keep_version(out, r, by_id[sid].path if sid in by_id else None)   # the history
                gradebook.put(r)
            except Exception:  # noqa: BLE001 - a host fault (disk full...) costs one submission, not the batch
                r = _grader_error(assignment, by_id[sid], options, traceback.format_exc())
            results[r.submission_id] = r
            if on_result:
                on_result(r, False)

        batch = _longest_first([s for s in todo if not s.problem])
        for sub in todo:
            if sub.problem:
                finish(_unreadable(reference, sub).to_record())
        while batch:
            if client is not None:
                _run_on_dask(client, assignment, batch, reruns, options, finish, variants)
            elif pool is None:
                for sub in batch:
                    try:
                        record = _judge(str(assignment.kit), assignment.id, sub, options, reruns.get(sub.id),
                                        variants[sub.id])
                    except Exception:  # noqa: BLE001 - e.g. the kit unreadable mid-run: a grader fault
                        record = _grader_error(assignment, sub, options, traceback.format_exc()).to_record()
                    finish(record)
            else:
                pool = _run_on_pool(pool, jobs, assignment, batch, reruns, options, finish, variants)
            batch, again = again, []
        # grades.csv as every export: the counted versions (course.toml `[course] counts`), overrides in force
        write_assignment_grades_csv(assignment_grades(assignment.kit, assignment.id, out, course=course))
        return ClassRun([results[s.id] for s in submissions], reference, reused, len(reruns), sum(tries.values()))
    finally:
        if pool is not None:
            pool.shutdown(cancel_futures=True)
        if client is not None:
            client.close()
        if gradebook is not None:
            gradebook.close()


def _longest_first(batch: list[Submission]) -> list[Submission]:
    """Largest notebooks first, a guess at the longest to grade: the last ones to start then are the
    short ones, so the judges finish together instead of one grading a full notebook while the rest wait
    (a class in name order can end with its ten complete notebooks)."""
    def size(sub: Submission) -> int:
        try:
            return sub.path.stat().st_size
        except OSError:
            return 0
    return sorted(batch, key=size, reverse=True)


def _reference_pass(assignment: Assignment, options: GradeOptions, pool: ProcessPoolExecutor | None) -> SubmissionResult:
    """The master graded through the reference: fills the answer cache every judge reads, and proves
    the assignment (and the sandbox) sound before any student is graded.  With local judges each test
    file is a task for them, largest first: done in this process the pass was one core's work while
    the others waited (02_autograd: ~6 s of a 50 s class on 2 cores)."""
    files = sorted(assignment.test_files(), key=lambda f: -(assignment.root / f).stat().st_size)
    if pool is None or len(files) < 2:
        return grade_notebook(assignment, assignment.solution, submission_id=REFERENCE_ID, options=options,
                              as_reference=True)
    shares = [pool.submit(_judge_reference, str(assignment.kit), assignment.id, options, [f]) for f in files]
    return combine(assignment, [SubmissionResult.from_record(share.result()) for share in shares])


def _judge_reference(kit: str, assignment_id: str, options: GradeOptions, files: list[str]) -> dict:
    """A share of the reference pass, in a judge process: the master through the reference on `files`."""
    global _holds_master
    _holds_master = True
    assignment = load_assignment(assignment_id, Path(kit))
    return grade_notebook(assignment, assignment.solution, submission_id=REFERENCE_ID, options=options,
                          as_reference=True, test_files=files).to_record()


def _run_on_pool(pool: ProcessPoolExecutor, jobs: int, assignment: Assignment, todo: list[Submission],
                 reruns: dict[str, Rerun], options: GradeOptions, finish: Callable[[dict], None],
                 variants: dict[str, str], restarts: int = 2) -> ProcessPoolExecutor:
    """Judge `todo` on `pool`.  A judge process that dies (the OOM killer, a kill from outside) breaks
    the whole pool: the submissions it had not finished go to a fresh pool, `restarts` times, and
    only then are recorded as grader errors.  Returns the pool in use at the end."""
    left = list(todo)
    while left:
        pending: dict[Future, Submission] = {}
        try:
            for sub in left:
                pending[pool.submit(_judge, str(assignment.kit), assignment.id, sub, options, reruns.get(sub.id),
                                    variants[sub.id])] = sub
        except BrokenProcessPool:
            pass  # the rest is resubmitted below
        unsent = left[len(pending):]
        lost: list[tuple[Submission, str]] = []
        while pending:
            done, _ = wait(pending, return_when=FIRST_COMPLETED)
            for fut in done:
                sub = pending.pop(fut)
                try:
                    finish(fut.result())
                except BrokenProcessPool:
                    lost.append((sub, traceback.format_exc()))
                except Exception:  # noqa: BLE001 - a grader bug costs one submission, not the batch
                    finish(_grader_error(assignment, sub, options, traceback.format_exc()).to_record())
        left = [sub for sub, _ in lost] + unsent
        if left and restarts <= 0:
            why = {sub.id: tb for sub, tb in lost}
            for sub in left:
                finish(_grader_error(assignment, sub, options, why.get(sub.id, "judge processes kept dying")).to_record())
            break
        if left:
            restarts -= 1
            pool.shutdown(wait=False, cancel_futures=True)
            pool = _start_judges(jobs, assignment, options)
    return pool


def _start_judges(jobs: int, assignment: Assignment, options: GradeOptions) -> ProcessPoolExecutor:
    """`jobs` judge processes, forked from the forkserver (see judges.py); each collects the tests first."""
    pool = ProcessPoolExecutor(max_workers=jobs, mp_context=judges.judge_context(),
                               initializer=_start_judge,
                               initargs=(str(assignment.kit), assignment.id, options, dict(os.environ)))
    for _ in range(jobs):
        pool.submit(int)  # the pool starts a process per task it cannot hand to an idle one
    return pool


def _ready(kit: str, assignment_id: str, options: GradeOptions) -> None:
    """A judge's slow start: torch and pytest imported, one torch thread, the assignment's tests collected."""
    judge_threads()
    try:
        prepare_tests(load_assignment(assignment_id, Path(kit)), options)
    except Exception:  # noqa: BLE001 - only a head start: grading the first submission reports it
        pass


def _dask_client(address: str, assignment: Assignment, options: GradeOptions) -> tuple:
    """Connect, and have every worker import the judge's modules while the reference pass runs
    (the futures are returned to be held: dask drops a task whose future nobody holds)."""
    from dask.distributed import Client

    client = Client(address)
    return client, [client.submit(_ready, str(assignment.kit), assignment.id, options, workers=[w], pure=False)
                    for w in client.scheduler_info()["workers"]]


def _run_on_dask(client, assignment: Assignment, todo: list[Submission], reruns: dict[str, Rerun],
                 options: GradeOptions, finish: Callable[[dict], None], variants: dict[str, str]) -> None:
    """One task per submission on a dask.distributed cluster; records come back to this process.

    Workers need the kit at the same path (a shared filesystem, as on a Slurm cluster) and the
    notebook is sent with the task, so workers need no access to the submissions folder.
    """
    from dask.distributed import as_completed

    futures = {client.submit(_judge_bytes, str(assignment.kit), assignment.id, sub.id, sub.source,
                             sub.path.read_bytes(), options, reruns.get(sub.id), variants[sub.id], pure=False): sub
               for sub in todo}
    for fut in as_completed(futures):
        sub = futures[fut]
        try:
            finish(fut.result())
        except Exception:  # noqa: BLE001 - a lost worker costs one submission, not the batch
            finish(_grader_error(assignment, sub, options, traceback.format_exc()).to_record())


def _judge_bytes(kit: str, assignment_id: str, sid: str, source: str, notebook: bytes, options: GradeOptions,
                 rerun: Rerun | None = None, variant: str = "") -> dict:
    from autograder.execute.scratch import Scratch

    with Scratch("ag-task-") as tmp:
        path = tmp / "submission.ipynb"
        path.write_bytes(notebook)
        return _judge(kit, assignment_id, Submission(sid, path, source), options, rerun, variant)
