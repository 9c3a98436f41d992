"""Grade a class: intake -> (per submission, in trusted judge processes) execute, probe,
judge, score -> report.  The only place that writes results, so the only place that
needs to care about resuming, incremental grading and parallelism.
"""
from __future__ import annotations

import multiprocessing
import traceback
from concurrent.futures import FIRST_COMPLETED, Future, ProcessPoolExecutor, wait
from concurrent.futures.process import BrokenProcessPool
from dataclasses import dataclass
from pathlib import Path
from typing import Callable

import autograder
from autograder.assignment import Assignment, load_assignment
from autograder.intake.submissions import Submission, file_sha256
from autograder.judge.session import GradeOptions, environment, grade_notebook
from autograder.report.files import write_submission
from autograder.report.gradebook import Gradebook
from autograder.report.grades_csv import write_grades_csv
from autograder.score.results import SubmissionResult

REFERENCE_ID = "__reference__"


@dataclass
class ClassRun:
    results: list[SubmissionResult]   # this run's submissions, in input order
    reference: SubmissionResult | None
    reused: int                       # submissions whose stored grade was still valid


def _judge(kit: str, assignment_id: str, sub: Submission, options: GradeOptions) -> dict:
    """One submission, in a judge process; returns a plain record (picklable, no live objects)."""
    assignment = load_assignment(assignment_id, Path(kit))
    try:
        return grade_notebook(assignment, sub.path, submission_id=sub.id, source=sub.source, options=options).to_record()
    except Exception:  # noqa: BLE001 - a grader bug must cost one submission, not the batch
        return _grader_error(assignment, sub, options, traceback.format_exc()).to_record()


def _die_with_grader() -> None:
    """Judge processes exit when the grader dies (kill -9 included), taking their workers along."""
    try:
        import ctypes
        import signal

        ctypes.CDLL(None).prctl(1, signal.SIGKILL)  # PR_SET_PDEATHSIG
    except (OSError, AttributeError):
        pass


def _grader_error(assignment: Assignment, sub: Submission, options: GradeOptions, why: str) -> SubmissionResult:
    return SubmissionResult(
        assignment=assignment.id, submission_id=sub.id, source=sub.source, sha256="", status="crashed",
        message="the grader itself failed on this submission; it was not graded (see instructor.json)",
        tests=[], cells=[], execution_time=0.0,
        environment=environment(assignment, assignment.version(), options), problems=[why[-4000:]],
    )


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
) -> ClassRun:
    """Grade `submissions`; with `scheduler` (a Dask address) each submission is a task on that cluster.

    Whatever executes the judging, only this process writes results and the gradebook.
    """
    options = options or GradeOptions()
    options.cache_dir = options.cache_dir or out / ".cache" / "reference"
    gradebook = Gradebook(out / "gradebook.sqlite")
    version = assignment.version()
    pool = _start_judges(jobs) if jobs > 1 and not scheduler else None
    try:
        # 1. the master through the reference: fills the cache every judge process reads, and
        #    proves the assignment is sound before a single student is graded.  (The judge
        #    processes import torch meanwhile.)
        reference = grade_notebook(assignment, assignment.solution, submission_id=REFERENCE_ID,
                                   options=options, as_reference=True)
        results: dict[str, SubmissionResult] = {}
        todo: list[Submission] = []
        for sub in submissions:
            old = gradebook.fingerprint(assignment.id, sub.id) if not force else None
            current = file_sha256(sub.path) if sub.path.is_file() else ""
            if old and old == (current, version, autograder.__version__):
                stored = gradebook.get(assignment.id, sub.id)
                if stored is not None:
                    results[sub.id] = stored
                    if on_result:
                        on_result(stored, True)
                    continue
            todo.append(sub)
        reused = len(results)

        def finish(record: dict) -> None:
            r = SubmissionResult.from_record(record)
            write_submission(out, r)
            gradebook.put(r)
            results[r.submission_id] = r
            if on_result:
                on_result(r, False)

        if scheduler:
            _run_on_dask(scheduler, assignment, todo, options, finish)
        elif pool is None:
            for sub in todo:
                finish(_judge(str(assignment.kit), assignment.id, sub, options))
        else:
            pool = _run_on_pool(pool, jobs, assignment, todo, options, finish)
        write_grades_csv(out / assignment.id / "grades.csv", gradebook.all(assignment.id))
        return ClassRun([results[s.id] for s in submissions], reference, reused)
    finally:
        if pool is not None:
            pool.shutdown(cancel_futures=True)
        gradebook.close()


def _run_on_pool(pool: ProcessPoolExecutor, jobs: int, assignment: Assignment, todo: list[Submission],
                 options: GradeOptions, finish: Callable[[dict], None], restarts: int = 2) -> ProcessPoolExecutor:
    """Judge `todo` on `pool`.  A judge process that dies (the OOM killer, a kill from outside) breaks
    the whole pool: the submissions it had not finished go to a fresh pool, `restarts` times, and
    only then are recorded as grader errors.  Returns the pool in use at the end."""
    left = list(todo)
    while left:
        pending: dict[Future, Submission] = {}
        try:
            for sub in left:
                pending[pool.submit(_judge, str(assignment.kit), assignment.id, sub, options)] = sub
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
            why = dict((sub.id, tb) for sub, tb in lost)
            for sub in left:
                finish(_grader_error(assignment, sub, options, why.get(sub.id, "judge processes kept dying")).to_record())
            break
        if left:
            restarts -= 1
            pool.shutdown(wait=False, cancel_futures=True)
            pool = _start_judges(jobs)
    return pool


def _start_judges(jobs: int) -> ProcessPoolExecutor:
    """`jobs` judge processes, started now so that their imports overlap the reference pass."""
    pool = ProcessPoolExecutor(max_workers=jobs, mp_context=multiprocessing.get_context("spawn"),
                               initializer=_die_with_grader)
    for _ in range(jobs):
        pool.submit(_ready)
    return pool


def _ready() -> None:
    import autograder.judge.plugin  # noqa: F401 - torch and pytest, the judge's slow imports


def _run_on_dask(address: str, assignment: Assignment, todo: list[Submission], options: GradeOptions,
                 finish: Callable[[dict], None]) -> None:
    """One task per submission on a dask.distributed cluster; records come back to this process.

    Workers need the kit at the same path (a shared filesystem, as on a Slurm cluster) and the
    notebook is sent with the task, so workers need no access to the submissions folder.
    """
    from dask.distributed import Client, as_completed

    with Client(address) as client:
        futures = {client.submit(_judge_bytes, str(assignment.kit), assignment.id, sub.id, sub.source,
                                 sub.path.read_bytes(), options, pure=False): sub for sub in todo}
        for fut in as_completed(futures):
            sub = futures[fut]
            try:
                finish(fut.result())
            except Exception:  # noqa: BLE001 - a lost worker costs one submission, not the batch
                finish(_grader_error(assignment, sub, options, traceback.format_exc()).to_record())


def _judge_bytes(kit: str, assignment_id: str, sid: str, source: str, notebook: bytes, options: GradeOptions) -> dict:
    import tempfile

    with tempfile.TemporaryDirectory(prefix="ag-task-") as tmp:
        path = Path(tmp) / "submission.ipynb"
        path.write_bytes(notebook)
        return _judge(kit, assignment_id, Submission(sid, path, source), options)
