"""The two writers of an assignment's grades, and so the only place that cares about resuming,
incremental grading and parallelism.

`grade_class`: a class's submissions (from intake) graded in trusted judge processes (execute, probe,
judge, score), stored (store), then grades.csv from what counts (grades, report), with whose scores the run
changed (`ClassRun.changes`) and which overrides it made stale.  `set_override`, `change_override`, `set_group`
and the rubric's `rubric_add`, `rubric_edit`, `rubric_delete`, `rubric_apply`, `rubric_unapply`,
`rubric_import`, `add_line_note`, `remove_line_note`: staff's marks recorded (rules in grades.overrides and grades.rubric, rows in
store.marks), then `publish` rewrites what shows the students they touched; each rubric change is in the trail
with their scores before and after.  `unsent_changes` and `record_sent`: what a passback would change in the
LMS, confirmed first.  Every face (the CLI, the workspace, nbgrader interop) grades and marks through these.
"""

from __future__ import annotations

import json
import os
import traceback
from concurrent.futures import FIRST_COMPLETED, Future, ProcessPoolExecutor, wait
from concurrent.futures.process import BrokenProcessPool
from contextlib import contextmanager
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any, Callable, Iterable, Iterator

import autograder
from autograder.config import limits
from autograder.config.assignment import Assignment, load_assignment
from autograder.config.settings import GradeSettings, SettingsError
from autograder.execute.namespace import UNDEFINED
from autograder.execute.sandbox import SandboxUnavailable, choose_isolation, close_at_exit
from autograder.execute.scratch import Scratch
from autograder.grades import rubric
from autograder.grades.overrides import WHOLE, Override, OverrideError, change, record, resolve_test
from autograder.grades.rows import AssignmentGrades, stale_warnings
from autograder.grades.rubric import Item, LineNote, RubricError
from autograder.intake.batch import Intake, take
from autograder.intake.submissions import Submission, file_sha256
from autograder.judge import pool as judges
from autograder.judge.gate import MasterFailed, check_master
from autograder.judge.options import GradeOptions
from autograder.judge.results import SubmissionResult, combine, tests_to_rerun
from autograder.notebook.stub import NOT_ANSWERED
from autograder.probe.seeds import Seeds
from autograder.report.feedback import write_class_feedback
from autograder.report.grades_csv import write_assignment_grades_csv
from autograder.report.instructor_report import write_report
from autograder.store.database import Gradebook, gradebook_path
from autograder.store.folder import ResultsFolder, assignment_grades
from autograder.store.history import keep as keep_version
from autograder.store.marks import Marks as MarkStore
from autograder.store.result_files import write_submission

REFERENCE_ID = "__reference__"
GRADER_RETRIES = 2  # a submission whose grading hit a grader or host fault is graded again this often per run


@dataclass
class ClassRun:
    results: list[SubmissionResult]  # this run's submissions, in input order
    reference: SubmissionResult | None
    reused: int  # submissions whose stored grade was still valid
    partial: int = 0  # submissions re-graded on the changed test files only
    retried: int = 0  # gradings repeated after a grader or host fault
    gradebook: Path | None = None  # where the results were stored
    changes: list = field(default_factory=list)  # (submission id, score before, after): `score_changes`
    stale: list = field(default_factory=list)  # the warnings of overrides and rubric items this run made stale
    grades: AssignmentGrades | None = None  # the class's grades after this run, as every export shows them


# A partial re-grade: the test files to run again, and the stored record whose other results stay.
Rerun = tuple[list[str], dict]


JUDGE_MB = 512  # a judge process (torch, pytest, reference answers): ~250 MiB PSS measured, with room
ZYGOTE_MB = 512  # the one warm zygote all jobs share: ~290 MiB PSS measured
# torch threads of a judge (tests compare small tensors there).  More threads only wait for each other:
# while the workers keep the cores busy, every parallel region of a 2-thread judge waited for a
# descheduled thread (03_components: a BatchNorm comparison took 54 ms per call instead of 0.2 ms).
JUDGE_THREADS = 1


def judge_threads() -> None:
    import torch

    torch.set_num_threads(JUDGE_THREADS)


# The master's worker, which a judge keeps beside the student's with per-student variants: the master is the
# course's own code on the kit's inputs, so it is counted at what such a worker really uses, not at the cap a
# hostile notebook could fill.  Peak PSS of a worker while a master was graded with a course secret
# (bench/memsample.py, 2-core box): 117-238 MiB for the PyTorch masters (docs/performance.md, "Memory"),
# 255-370 MiB for tf01, tf03 and tf04, and tf02b's 181 MiB beside the 580-610 MiB of g++ compiling its kernel in
# a fresh worker; 1024 covers that compile and a larger machine's thread pools.
MASTER_WORKER_MB = 1024


def job_mb(worker_mb: int, workers: int = 1) -> int:
    """The memory one job may take: its judge, the student's worker at its cap (`memory_mb`: cgroup and
    RLIMIT_AS; what a hostile notebook can fill), and with per-student variants (`workers` 2) the master's
    worker at what it uses (`MASTER_WORKER_MB`, never above the cap)."""
    return worker_mb + (workers - 1) * min(worker_mb, MASTER_WORKER_MB) + JUDGE_MB


def jobs_within(requested: int, worker_mb: int, budget_mb: int, workers: int = 1) -> int:
    """How many submissions may be graded at once in `budget_mb` of memory: the zygote all jobs share, and
    per job its judge and its workers (`job_mb`)."""
    return max(1, min(requested, (budget_mb - ZYGOTE_MB) // job_mb(worker_mb, workers)))


def available_mb() -> int:
    """Memory that can be used without pushing others out (MemAvailable), in MiB."""
    try:
        for line in Path("/proc/meminfo").read_text().splitlines():
            if line.startswith("MemAvailable:"):
                return int(line.split()[1]) // 1024
    except OSError:
        pass
    return (os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES")) // 2**20


def _judge(
    kit: str, assignment_id: str, sub: Submission, options: GradeOptions, rerun: Rerun | None = None, variant: str = ""
) -> dict:
    """One submission, in a judge process, under the student's `variant` of the hidden inputs; returns a
    plain record (picklable, no live objects)."""
    from autograder.judge import session  # torch: a judge's (the forkserver preloaded it)

    if not variant:  # one variant for the class: the master's answers are cached, its worker only costs memory
        session.release_reference_workers()
    assignment = load_assignment(assignment_id, Path(kit))
    try:
        if rerun is not None:
            files, stored = rerun
            result = session.regrade_notebook(
                assignment, sub.path, SubmissionResult.from_record(stored), files, options=options, variant=variant
            )
        else:
            files = None
            result = session.grade_notebook(
                assignment, sub.path, submission_id=sub.id, source=sub.source, options=options, variant=variant
            )
        why = _prove_variant(assignment, variant, options, result, files)
        if why:  # the assignment's fault on this variant, or the host's: never charged to the student
            result = replace(result, provisional=why.splitlines()[0][:300], problems=[*result.problems, why])
        return result.to_record()
    except Exception:  # noqa: BLE001 - a grader bug must cost one submission, not the batch
        return _grader_error(assignment, sub, options, traceback.format_exc()).to_record()


def _start_judge(kit: str, assignment_id: str, options: GradeOptions, environ: dict[str, str], grader: int) -> None:
    """In each judge process, first: die with the grader, take its environment, then collect the tests
    before the first task (a share of the reference pass)."""
    _join_grader(options, environ, grader)
    _close_references_at_exit()
    _ready(kit, assignment_id, options)


def _join_grader(options: GradeOptions, environ: dict[str, str], grader: int) -> None:
    """In a judge process (a class's, `check_solutions`'), first: die with the grader (the process `grader`, and the
    forkserver, its parent), take its environment."""
    judges.die_with(grader)
    judges.adopt(environ)
    # the exit hook the isolation registered when it was unpickled (before this process's bootstrap, which
    # clears multiprocessing's hooks) is gone: without this one the judge left its last worker's cgroups
    close_at_exit(options.isolation)


def _close_references_at_exit() -> None:
    """A judge's share of the reference pass may leave the master's worker running until the judge ends
    (a judge that gets no student): stop it then, with its scratch folder, before the zygote closes
    (multiprocessing runs higher exit priorities first; the isolation's is 100)."""
    from multiprocessing import util

    from autograder.judge import session

    util.Finalize(None, session.close_references, exitpriority=200)


def _grader_error(assignment: Assignment, sub: Submission, options: GradeOptions, why: str) -> SubmissionResult:
    """The grader or the host failed (not the submission): no grade, provisional, graded again next run."""
    from autograder.judge import session  # torch, in the grade command only when a judge was lost

    return SubmissionResult(
        assignment=assignment.id,
        submission_id=sub.id,
        source=sub.source,
        sha256="",
        status="crashed",
        message="grader error: the grader itself failed on this submission; it was not graded and will be "
        "graded again on the next run (see instructor.json)",
        tests=[],
        cells=[],
        execution_time=0.0,
        environment=session.environment(assignment, assignment.version(), options),
        problems=[why[-4000:]],
        provisional=(why.strip().splitlines() or ["grader error"])[-1][:300],
    )


def _unreadable(reference: SubmissionResult, sub: Submission) -> SubmissionResult:
    """A submission intake could not extract (damaged, encrypted, too large): `invalid`, every test
    listed at 0 with the reason, nothing run.  Its content is unknown, so it is never reused."""
    tests = [
        replace(t, score=0.0, outcome="error", message=f"not graded: {sub.problem}", duration=0.0)
        for t in reference.tests
    ]
    return replace(
        reference,
        submission_id=sub.id,
        source=sub.source,
        sha256="",
        status="invalid",
        message=sub.problem,
        tests=tests,
        cells=[],
        execution_time=0.0,
        stdout="",
        stderr="",
        problems=[],
        provisional="",
    )


def _prove_variant(
    assignment: Assignment, variant: str, options: GradeOptions, result: SubmissionResult, ran: list[str] | None
) -> str:
    """'' when the master scores full marks, under the student's `variant`, on every hidden test on which
    `result` lost points (of the files that `ran`; not to an untouched stub or a name no cell defined, nor in a
    notebook that could not be read: 0 whatever the master does), else why not: the gate of a variant.  The
    course-wide inputs passed it before anyone was graded and public tests do not vary; a point lost on a test the
    master fails on this variant would charge the student for the assignment.  Only the lost tests run: a test's
    inputs derive from its own name (`Seeds.test`), not from the tests beside it, so the master meets the very
    inputs the student met.  The master's answers were computed while the student was graded (its worker answers
    a variant's misses), so this is mostly cache hits; each test is proven once per variant and version
    (`CachedReference.prove`)."""
    from autograder.judge import session

    hidden = assignment.hidden_dir.name
    lost = sorted(
        {
            t.id
            for t in result.tests
            if Path(t.file).parts[0] == hidden
            and t.score < t.max_score
            and (ran is None or t.file in ran)
            and not t.message.startswith((NOT_ANSWERED, UNDEFINED))
        }
    )
    if not variant or not lost or result.status == "invalid":  # an unreadable file answered nothing
        return ""

    def run(tests: list[str]) -> str:
        try:
            check_master(
                session.grade_notebook(
                    assignment,
                    assignment.solution,
                    submission_id=REFERENCE_ID,
                    options=options,
                    as_reference=True,
                    only=tests,
                    variant=variant,
                )
            )
        except MasterFailed as e:
            return f"the master notebook fails the hidden tests on the variant {variant}: {e}"
        return ""

    return session.reference_for(assignment, assignment.version(), options).prove(variant, lost, run)


def variants_of(
    assignment: Assignment, submissions: list[Submission], out: Path, options: GradeOptions
) -> dict[str, str]:
    """Each submission's variant of the hidden inputs, from the identity intake assigned (identities.json:
    the roster's student id where matched), or the submission's id where intake knew no student."""
    known = ResultsFolder(out).identities(assignment.id)
    seeds = Seeds.for_course(options.secret, assignment.id)
    return {
        s.id: seeds.variant_of(
            known[s.id].student_id if s.id in known and known[s.id].student_id else s.id, options.variants
        )
        for s in submissions
    }


@dataclass
class Tasks:
    """What a judge needs to grade a submission of this class (picklable: it travels to judge processes
    and Dask workers with each task): the assignment, the options, each submission's variant and partial
    re-grade."""

    assignment: Assignment
    options: GradeOptions
    variants: dict[str, str]
    reruns: dict[str, Rerun] = field(default_factory=dict)

    def args(self, sub: Submission) -> tuple:
        """`_judge`'s arguments for `sub`."""
        return (
            str(self.assignment.kit),
            self.assignment.id,
            sub,
            self.options,
            self.reruns.get(sub.id),
            self.variants[sub.id],
        )

    def grader_error(self, sub: Submission, why: str) -> SubmissionResult:
        return _grader_error(self.assignment, sub, self.options, why)


@dataclass
class _Storing:
    """The results of a class as they come back, in this process, the only one that writes them: each
    stored (result files, the version kept, the gradebook) and passed to `on_result`, or, when
    provisional, queued to be graded again (`again`)."""

    tasks: Tasks
    out: Path
    gradebook: Gradebook
    on_result: Callable[[SubmissionResult, bool], None] | None
    todo: dict[str, Submission]  # the submissions to grade this run, by id
    results: dict[str, SubmissionResult] = field(default_factory=dict)
    tries: dict[str, int] = field(default_factory=dict)
    again: list[Submission] = field(default_factory=list)

    def reused(self, stored: SubmissionResult) -> None:
        self._done(stored, reused=True)

    def finish(self, record: dict) -> None:
        """Store one submission's result; a provisional one is first graded again (`grade_again`)."""
        sid = str(record.get("submission_id"))
        try:
            r = SubmissionResult.from_record(record)
            if sid in self.todo and grade_again(r, self.tries.get(sid, 0)):
                self.tries[sid] = self.tries.get(sid, 0) + 1
                self.again.append(self.todo[sid])
                return
            write_submission(self.out, r)
            keep_version(self.out, r, self.todo[sid].path if sid in self.todo else None)  # the history
            self.gradebook.put(r)
        except Exception:  # noqa: BLE001 - a host fault (disk full...) costs one submission, not the batch
            r = self.tasks.grader_error(self.todo[sid], traceback.format_exc())
        self._done(r, reused=False)

    def failed(self, sub: Submission, why: str) -> None:
        """`sub`'s grading failed outside the judge (a lost process, a kit unreadable mid-run): a grader error."""
        self.finish(self.tasks.grader_error(sub, why).to_record())

    def _done(self, r: SubmissionResult, reused: bool) -> None:
        self.results[r.submission_id] = r
        if self.on_result:
            self.on_result(r, reused)


def grade_again(result: SubmissionResult, tries: int) -> bool:
    """A result a grader or host fault touched is not final: graded again, `GRADER_RETRIES` times a run."""
    return bool(result.provisional) and tries < GRADER_RETRIES


def stored_grade(
    gradebook: Gradebook, assignment_id: str, version: str, sub: Submission, variant: str, force: bool
) -> tuple[SubmissionResult | None, bool]:
    """The stored grade of `sub` that still says something, and whether it stands as it is.  Nothing for a
    changed notebook, a provisional grade (never final) or one graded on other hidden inputs (another
    variant count, a roster match since); it stands when the assignment and the grader are unchanged too,
    else its unchanged test files may (`tests_to_rerun`)."""
    if force or sub.problem:
        return None, False
    old = gradebook.fingerprint(assignment_id, sub.id)
    current = file_sha256(sub.path) if sub.path.is_file() else ""
    stored = gradebook.get(assignment_id, sub.id) if old and old[0] == current else None
    if stored is None or stored.provisional or stored.environment.get("variant", "") != variant:
        return None, False
    return stored, old == (current, version, autograder.__version__)


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
    roster: Path | None = None,
) -> ClassRun:
    """Grade `submissions`: the master first (`MasterFailed` when it is short of full marks: nobody is
    graded), then every submission whose stored grade does not stand, on this process, `jobs` local judge
    processes, or the Dask cluster at `scheduler`; then grades.csv.  Whatever executes the judging, only
    this process writes results and the gradebook."""
    options = options or GradeOptions()
    options.cache_dir = options.cache_dir or out / ".cache" / "reference"
    tasks = Tasks(assignment, options, variants_of(assignment, submissions, out, options))
    pool: ProcessPoolExecutor | None = None
    local_judges = jobs > 1 and not scheduler
    if not local_judges:
        judge_threads()  # this process judges too (jobs=1, a scheduler): the reference pass, every submission
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
        # 2. what the gradebook holds that still stands
        before = (
            assignment_grades(assignment.kit, assignment.id, out, course=course)
            if gradebook_path(out).is_file()
            else None
        )
        gradebook = Gradebook(gradebook_path(out))
        storing = _Storing(tasks, out, gradebook, on_result, todo={})
        version = assignment.version()
        for sub in submissions:
            stored, stands = stored_grade(gradebook, assignment.id, version, sub, tasks.variants[sub.id], force)
            if stored is not None and stands:
                storing.reused(stored)
                continue
            files = tests_to_rerun(stored, assignment) if stored is not None else None
            if stored is not None and files is not None:  # same notebook, only some test files changed
                tasks.reruns[sub.id] = (files, stored.to_record())
            storing.todo[sub.id] = sub
        reused = len(storing.results)
        # 3. the rest graded, and graded again while provisional
        for sub in storing.todo.values():
            if sub.problem:  # intake could not extract it: nothing to run
                storing.finish(_unreadable(reference, sub).to_record())
        batch = _longest_first([s for s in storing.todo.values() if not s.problem])
        while batch:
            if client is not None:
                _run_on_dask(client, tasks, batch, storing)
            elif pool is None:
                _run_here(tasks, batch, storing)
            else:
                pool = _run_on_pool(pool, jobs, tasks, batch, storing)
            batch, storing.again = storing.again, []
        # 4. grades.csv as every export: the counted versions (course.toml `[course] counts`), overrides in force
        after = assignment_grades(assignment.kit, assignment.id, out, course=course)
        write_assignment_grades_csv(after)
        return ClassRun(
            [storing.results[s.id] for s in submissions],
            reference,
            reused,
            len(tasks.reruns),
            sum(storing.tries.values()),
            gradebook_path(out),
            score_changes(before, after),
            _newly_stale(before, after),
            after
            if roster is None
            else assignment_grades(assignment.kit, assignment.id, out, roster_csv=roster, course=course),
        )
    finally:
        if pool is not None:
            pool.shutdown(cancel_futures=True)
        if client is not None:
            client.close()
        if gradebook is not None:
            gradebook.close()


@dataclass(frozen=True)
class SolutionCheck:
    """An assignment proven before a class is graded (`check_solutions`): its master through the gate, its released
    notebook at 0, and room in `cell_timeout` for a correct solution several times slower than the master."""

    assignment: Assignment
    master: SubmissionResult
    blank: SubmissionResult  # the released notebook
    gate: str  # why the gate grading a class would refuse the master ('' when it passes)

    @property
    def tight(self) -> bool:
        """cell_timeout counts CPU: under `CELL_TIMEOUT_MARGIN` times the master's slowest cell, a correct but
        slower solution would time out."""
        return self.master.slowest_cell_cpu * limits.CELL_TIMEOUT_MARGIN > self.assignment.limits.cell_timeout

    @property
    def ok(self) -> bool:
        return (
            not self.gate
            and self.master.max_score == self.assignment.total_points
            and self.blank.score == 0
            and not self.tight
        )


def check_solutions(released: dict[str, Path], kit: Path, settings: GradeSettings) -> Iterator[SolutionCheck]:
    """Each assignment of `released` (its id and its released notebook) proven as `SolutionCheck` says, in that
    order, `settings.jobs` assignments at once (lowered to what the memory budget holds) in judge processes: one
    at a time, the eleven masters are one core's work (160 s of `make test` on 2 cores, 84 s with two jobs)."""
    assignments = [load_assignment(i, kit) for i in released]
    options = grade_options(settings)
    budget = settings.memory_budget_mb or int(0.8 * available_mb())
    worker_mb = max((a.limits.memory_mb for a in assignments), default=0)
    jobs = min(jobs_within(settings.jobs, worker_mb, budget, workers=2), len(assignments))  # a master's worker too
    if jobs <= 1:
        for a in assignments:
            yield _solution_check(a, _check_solution(str(kit), a.id, str(released[a.id]), options))
        return
    judges.prestart()
    try:
        with ProcessPoolExecutor(
            max_workers=jobs,
            mp_context=judges.judge_context(),
            initializer=_join_grader,
            initargs=(options, dict(os.environ), os.getpid()),
        ) as pool:
            futures = {
                a.id: pool.submit(_check_solution, str(kit), a.id, str(released[a.id]), options)
                for a in _largest_master_first(assignments)
            }
            for a in assignments:
                yield _solution_check(a, futures[a.id].result())
    finally:
        judges.stop()  # the judges have ended with the pool


def _largest_master_first(assignments: list[Assignment]) -> list[Assignment]:
    """The longest to check first (a guess from the master's size, as `_longest_first`), so that the jobs end
    together."""
    return sorted(assignments, key=lambda a: a.solution.stat().st_size, reverse=True)


def _check_solution(kit: str, assignment_id: str, released: str, options: GradeOptions) -> dict:
    """The master and the released notebook graded as students' notebooks are (in a judge, or here): records."""
    from autograder.judge import session  # torch: a judge's (the forkserver preloaded it)

    judge_threads()
    a = load_assignment(assignment_id, Path(kit))
    try:
        master = session.grade_notebook(a, a.solution, submission_id="master", options=options)
        blank = session.grade_notebook(a, Path(released), submission_id="student", options=options)
    finally:
        session.close_references()
    return {"master": master.to_record(), "blank": blank.to_record()}


def _solution_check(assignment: Assignment, records: dict) -> SolutionCheck:
    master = SubmissionResult.from_record(records["master"])
    try:
        check_master(master)  # the gate grading a class would apply
        gate = ""
    except MasterFailed as e:
        gate = str(e)
    return SolutionCheck(assignment, master, SubmissionResult.from_record(records["blank"]), gate)


@contextmanager
def intake(
    paths: list[Path],
    *,
    fmt: str | None = None,
    roster: Path | None = None,
    times: Path | None = None,
    assignment: str | None = None,
) -> Iterator[Intake]:
    """`intake.batch.take` into a scratch folder of its own, removed when the block ends (and pruned by the next
    run if this one is killed): the class to hand to `grade` inside the block."""
    with Scratch("ag-intake-") as scratch:
        yield take(paths, scratch, fmt=fmt, roster=roster, times=times, assignment=assignment)


def grade(
    assignment: Assignment,
    intake: Intake,
    settings: GradeSettings,
    *,
    on_result: Callable[[SubmissionResult, bool], None] | None = None,
    note: Callable[[str], None] = lambda _line: None,
) -> ClassRun:
    """Grade a class: the one function every face calls (the grade command, nbgrader interop, the bench).

    The sandbox's zygote and the judges' forkserver are started first, so their imports of torch overlap this
    process's start; the jobs are fitted to the memory budget (what the settings themselves call for is
    `settings.notes()`, which a face shows before intake); who is who (`intake.identities`) is recorded in
    the results folder before any variant is drawn from it; then `grade_class`.  `note` receives what the
    instructor should read (a lowered job count, a missing course secret, provisional results), as lines.
    Raises `MasterFailed` when the master is short of full marks (nobody is graded) and `SettingsError`
    when these settings cannot grade here (no sandbox, no CUDA)."""
    options = grade_options(settings, assignment)
    local = settings.jobs > 1 and settings.scheduler is None  # as asked: a lowered job count still starts them
    if local:
        judges.prestart()  # the judges' imports, beside the zygote's (this process imports no torch: they grade)
    jobs = jobs_for(settings, assignment, note)
    if intake.identities:
        ResultsFolder(settings.out).record_identities(assignment.id, intake.identities)
    try:
        run = grade_class(
            assignment,
            intake.submissions,
            out=settings.out,
            jobs=jobs,
            options=options,
            force=settings.force,
            on_result=on_result,
            scheduler=settings.scheduler,
            course=settings.course,
            roster=settings.roster,
        )
    finally:
        if local:
            judges.stop()  # the judges have ended with grade_class
    provisional = [r.submission_id for r in run.results if r.provisional]
    if provisional:
        note(
            f"NOTE: {len(provisional)} result(s) hit a grader or host fault and are provisional (not final); "
            f"they are graded again on the next run: {', '.join(provisional[:10])}"
        )
    return run


def grade_options(settings: GradeSettings, assignment: Assignment | None = None) -> GradeOptions:
    """The options judges grade with: the device, the strongest isolation this host gives (`SettingsError`
    when none and weak isolation was not allowed), the course secret and its variants.  With `assignment`,
    the sandbox's zygote is started now, before anything here imports torch."""
    from autograder.execute import nvidia

    gpu = settings.device == "cuda" or (settings.device == "auto" and nvidia.visible() and _cuda_available())
    if settings.device == "cuda" and not _cuda_available():
        raise SettingsError("the CUDA device was asked for, but CUDA is not available here")
    try:
        isolation = choose_isolation(settings.allow_weak_isolation, gpu=gpu)
    except SandboxUnavailable as e:
        raise SettingsError(str(e)) from None
    if assignment is not None:
        isolation.prestart(assignment.probes, assignment.limits)
    return GradeOptions(device=settings.device, isolation=isolation, secret=settings.secret, variants=settings.variants)


def _cuda_available() -> bool:
    """torch's own word, asked only where NVIDIA's device files are (`nvidia.visible`) or CUDA was asked for:
    importing torch costs ~2 s of CPU, which grading would pay beside its judges' and the zygote's imports."""
    import torch

    return torch.cuda.is_available()


def jobs_for(settings: GradeSettings, assignment: Assignment, note: Callable[[str], None]) -> int:
    """The jobs asked for, lowered to what the memory budget holds (`jobs_within`), said in a note when lowered."""
    budget = settings.memory_budget_mb or int(0.8 * available_mb())
    workers = 1 if settings.variants == 1 else 2  # per-student variants: the judge keeps the master's worker too
    jobs = jobs_within(settings.jobs, assignment.limits.memory_mb, budget, workers)
    if jobs < settings.jobs and settings.scheduler is None:
        note(
            f"NOTE: --jobs {settings.jobs} lowered to {jobs}: each job may use {assignment.limits.memory_mb} MiB "
            f"(memory_mb of the student's worker)"
            f"{f' + {min(assignment.limits.memory_mb, MASTER_WORKER_MB)} MiB (the master' + chr(39) + 's worker)' if workers > 1 else ''}"
            f" + {JUDGE_MB} MiB (its judge), within a memory budget of {budget} MiB"
        )
        return jobs
    return settings.jobs


def _newly_stale(before: AssignmentGrades | None, after: AssignmentGrades) -> list[str]:
    """The warnings of the overrides and rubric applications that were in force before this run and are stale now."""
    was = {o.id for v in (before.stale.values() if before else []) for o in v}
    was_r = {(a.item_id, a.submission_id) for v in (before.stale_rubric.values() if before else []) for a in v}
    stale = {sid: [o for o in v if o.id not in was] for sid, v in after.stale.items()}
    stale_r = {
        sid: [a for a in v if (a.item_id, a.submission_id) not in was_r] for sid, v in after.stale_rubric.items()
    }
    return stale_warnings(
        after.assignment.id, {k: v for k, v in stale.items() if v}, {k: v for k, v in stale_r.items() if v}, after.marks
    )


def _run_here(tasks: Tasks, batch: list[Submission], storing: _Storing) -> None:
    """Judge `batch` in this process, one after another."""
    for sub in batch:
        try:
            record = _judge(*tasks.args(sub))
        except Exception:  # noqa: BLE001 - e.g. the kit unreadable mid-run: a grader fault
            record = tasks.grader_error(sub, traceback.format_exc()).to_record()
        storing.finish(record)


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


def _reference_pass(
    assignment: Assignment, options: GradeOptions, pool: ProcessPoolExecutor | None
) -> SubmissionResult:
    """The master graded through the reference: fills the answer cache every judge reads, and proves
    the assignment (and the sandbox) sound before any student is graded.  With local judges each test
    file is a task for them, largest first: done in this process the pass was one core's work while
    the others waited (02_autograd: ~6 s of a 50 s class on 2 cores)."""
    kept = _passed_master(assignment, options)
    if kept is not None and kept.exists():
        return SubmissionResult.from_record(json.loads(kept.read_text()))
    files = sorted(assignment.test_files(), key=lambda f: -(assignment.root / f).stat().st_size)
    if pool is None:
        from autograder.judge import session  # torch: this process judges (jobs=1, Dask)

        result = session.grade_notebook(
            assignment, assignment.solution, submission_id=REFERENCE_ID, options=options, as_reference=True
        )
    else:
        shares = [pool.submit(_judge_reference, str(assignment.kit), assignment.id, options, [f]) for f in files] or [
            pool.submit(_judge_reference, str(assignment.kit), assignment.id, options, None)
        ]  # no test file
        result = combine(assignment, [SubmissionResult.from_record(share.result()) for share in shares])
    if kept is not None:
        try:
            check_master(result)
        except MasterFailed:
            return result
        kept.parent.mkdir(parents=True, exist_ok=True)
        tmp = kept.with_name(f".tmp-{os.getpid()}-{kept.name}")
        tmp.write_text(json.dumps(result.to_record()))
        os.replace(tmp, kept)
    return result


def _passed_master(assignment: Assignment, options: GradeOptions) -> Path | None:
    """Where the reference pass that put the master through the gate is kept, beside the master's cached
    answers (per assignment version), for this isolation, these devices and this grader: a later run on the
    same results folder (a resubmission, a regrade of a few students) reads it instead of grading the
    master again on answers that are all in the cache.  None without a cache."""
    if options.cache_dir is None:
        return None
    how = "-".join(
        [type(options.isolation).__qualname__, options.isolation.name, *options.devices(), autograder.__version__]
    )
    return options.cache_dir / assignment.id / assignment.version() / f".master-passed-{how}.json"


def _judge_reference(kit: str, assignment_id: str, options: GradeOptions, files: list[str] | None) -> dict:
    """A share of the reference pass, in a judge process: the master through the reference on `files` (None:
    every test the assignment has, so that an assignment without any says "no tests were collected")."""
    from autograder.judge import session  # torch: a judge's (the forkserver preloaded it)

    assignment = load_assignment(assignment_id, Path(kit))
    return session.grade_notebook(
        assignment,
        assignment.solution,
        submission_id=REFERENCE_ID,
        options=options,
        as_reference=True,
        only=files,
    ).to_record()


def _run_on_pool(
    pool: ProcessPoolExecutor, jobs: int, tasks: Tasks, batch: list[Submission], storing: _Storing, restarts: int = 2
) -> ProcessPoolExecutor:
    """Judge `batch` on `pool`.  A judge process that dies (the OOM killer, a kill from outside) breaks
    the whole pool: the submissions it had not finished go to a fresh pool, `restarts` times, and
    only then are recorded as grader errors.  Returns the pool in use at the end."""
    left = list(batch)
    while left:
        pending: dict[Future, Submission] = {}
        try:
            for sub in left:
                pending[pool.submit(_judge, *tasks.args(sub))] = sub
        except BrokenProcessPool:
            pass  # the rest is resubmitted below
        unsent = left[len(pending) :]
        lost: list[tuple[Submission, str]] = []
        while pending:
            done, _ = wait(pending, return_when=FIRST_COMPLETED)
            for fut in done:
                sub = pending.pop(fut)
                try:
                    storing.finish(fut.result())
                except BrokenProcessPool:
                    lost.append((sub, traceback.format_exc()))
                except Exception:  # noqa: BLE001 - a grader bug costs one submission, not the batch
                    storing.failed(sub, traceback.format_exc())
        left = [sub for sub, _ in lost] + unsent
        if left and restarts <= 0:
            why = {sub.id: tb for sub, tb in lost}
            for sub in left:
                storing.failed(sub, why.get(sub.id, "judge processes kept dying"))
            break
        if left:
            restarts -= 1
            pool.shutdown(wait=False, cancel_futures=True)
            pool = _start_judges(jobs, tasks.assignment, tasks.options)
    return pool


def _start_judges(jobs: int, assignment: Assignment, options: GradeOptions) -> ProcessPoolExecutor:
    """`jobs` judge processes, forked from the forkserver (see judge/pool.py); each collects the tests first."""
    pool = ProcessPoolExecutor(
        max_workers=jobs,
        mp_context=judges.judge_context(),
        initializer=_start_judge,
        initargs=(str(assignment.kit), assignment.id, options, dict(os.environ), os.getpid()),
    )
    for _ in range(jobs):
        pool.submit(int)  # the pool starts a process per task it cannot hand to an idle one
    return pool


def _ready(kit: str, assignment_id: str, options: GradeOptions) -> None:
    """A judge's slow start: torch and pytest imported, one torch thread, the assignment's tests collected."""
    from autograder.judge import session  # torch: a judge's (the forkserver preloaded it)

    judge_threads()
    try:
        session.prepare_tests(load_assignment(assignment_id, Path(kit)), options)
    except Exception:  # noqa: BLE001 - only a head start: grading the first submission reports it
        pass


def _dask_client(address: str, assignment: Assignment, options: GradeOptions) -> tuple:
    """Connect, and have every worker import the judge's modules while the reference pass runs
    (the futures are returned to be held: dask drops a task whose future nobody holds)."""
    from dask.distributed import Client

    client = Client(address)
    return client, [
        client.submit(_ready, str(assignment.kit), assignment.id, options, workers=[w], pure=False)
        for w in client.scheduler_info()["workers"]
    ]


def _run_on_dask(client, tasks: Tasks, batch: list[Submission], storing: _Storing) -> None:
    """One task per submission on a dask.distributed cluster; records come back to this process.

    Workers need the kit at the same path (a shared filesystem, as on a Slurm cluster) and the
    notebook is sent with the task, so workers need no access to the submissions folder.
    """
    from dask.distributed import as_completed

    futures = {}
    for sub in batch:
        kit, assignment_id, _, options, rerun, variant = tasks.args(sub)
        futures[
            client.submit(
                _judge_bytes,
                kit,
                assignment_id,
                sub.id,
                sub.source,
                sub.path.read_bytes(),
                options,
                rerun,
                variant,
                pure=False,
            )
        ] = sub
    for fut in as_completed(futures):
        sub = futures[fut]
        try:
            storing.finish(fut.result())
        except Exception:  # noqa: BLE001 - a lost worker costs one submission, not the batch
            storing.failed(sub, traceback.format_exc())


def _judge_bytes(
    kit: str,
    assignment_id: str,
    sid: str,
    source: str,
    notebook: bytes,
    options: GradeOptions,
    rerun: Rerun | None = None,
    variant: str = "",
) -> dict:
    with Scratch("ag-task-") as tmp:
        path = tmp / "submission.ipynb"
        path.write_bytes(notebook)
        return _judge(kit, assignment_id, Submission(sid, path, source), options, rerun, variant)


def _marks(grades: AssignmentGrades) -> MarkStore:
    return MarkStore(grades.out)


def set_override(
    grades: AssignmentGrades, submission_id: str, *, test: str | None, score: float, comment: str, by: str
) -> Override:
    """Making an override, as every face does it (`autograder override`, the workspace's forms): record it in
    the audit trail (`store.marks`, rules in `grades.overrides`) against the version of the
    submission that counts (`[course] counts`), then rewrite what shows the assignment's grades so they carry
    it at once, in the process that made it (`publish`).

    Record an override of `test` (id, name or unique prefix; None: the whole score) on the counted version
    of `submission_id` in `grades` (`store.folder.assignment_grades`, just read).  `grades.overrides.OverrideError`
    when refused."""
    counted = _counted(grades, submission_id)
    store = _marks(grades)
    shown = grades.derive(counted) if counted is not None else None
    o = store.add_override(
        record(
            store.overrides(grades.assignment.id, submission_id),
            counted,
            shown,
            test_id=test or WHOLE,
            score=score,
            comment=comment,
            by=by,
        )
    )
    publish(grades, {o.submission_id})
    return o


def change_override(
    grades: AssignmentGrades, submission_id: str, *, test: str | None, action: str, by: str
) -> Override:
    """Clear, acknowledge (`ack`) or re-apply (`reapply`) the override of `test` (None: the whole score) of
    `submission_id` (`grades.overrides.change`), then `publish`."""
    counted = _counted(grades, submission_id)
    store = _marks(grades)
    derive = (lambda applied: grades.derive(counted, applied)) if counted is not None else None
    o = store.add_override(
        change(
            store.overrides(grades.assignment.id, submission_id),
            counted,
            test=test or WHOLE,
            action=action,
            by=by,
            derive=derive,
        )
    )
    publish(grades, {o.submission_id})
    return o


def set_group(
    grades: AssignmentGrades, submission_ids: list[str], *, test: str, score: float | None, comment: str, by: str
) -> list[Any]:
    """A group of students with the same answer: with a `score`, one override of `test` per submission, each in
    the trail with its author; without one, the comment is a comment, not an override: the exercise's zero-point
    rubric item with that text (made once, as the comment bank was) applied to each (`rubric_apply`).  One
    `publish` for all; all or nothing: every submission is checked before any is recorded.  Returns one entry
    per submission (its override, or its application)."""
    results = {r.submission_id: r for r in grades.results}
    ids = list(dict.fromkeys(submission_ids))
    plan: list[tuple[SubmissionResult, str, float | None]] = []
    for sid in ids:
        counted, shown = _counted(grades, sid), results.get(sid)
        if counted is None or shown is None:
            raise OverrideError(f"no graded submission {sid}")
        tid = resolve_test(test, counted)
        plan.append((counted, tid, score))
    if score is None:
        exercise = next(t.exercise for t in plan[0][0].tests if t.id == plan[0][1]) if plan else ""
        text = comment.strip()
        if not text:
            raise OverrideError("write the comment: the students read it")
        item = next(
            (
                i
                for i in grades.marks.items
                if not i.deleted and i.exercise == exercise and i.points == 0 and i.comment == text
            ),
            None,
        )
        if item is None:
            item = rubric_add(
                grades, exercise=exercise, title=" ".join(text.split())[:60], points=0.0, comment=text, by=by
            )
            grades = grades.with_overrides_of([])
        rubric_apply(grades, item.id, ids, by=by)
        return [(item.id, sid) for sid in ids]
    store = _marks(grades)
    for counted, tid, new in plan:  # validated as record validates, before the first row is written
        top = next(t.max_score for t in counted.tests if t.id == tid)
        if new is None or not (0 <= new <= top) or counted.provisional or not comment.strip():
            raise OverrideError(
                f"{counted.submission_id}: the score must be between 0 and {top:g}, the result graded "
                "(not provisional), and the comment given"
            )
    done = [
        store.add_override(
            record(
                store.overrides(grades.assignment.id, c.submission_id),
                c,
                results[c.submission_id],
                test_id=tid,
                score=new,
                comment=comment,
                by=by,
            )
        )
        for c, tid, new in plan
        if new is not None
    ]  # every score checked above
    publish(grades, {o.submission_id for o in done})
    return done


def _counted(grades: AssignmentGrades, submission_id: str):
    return next((r for r in grades.counted if r.submission_id == submission_id), None)


def publish(grades: AssignmentGrades, submission_ids: Iterable[str]) -> AssignmentGrades:
    """`grades` with the marks of `submission_ids` read again (`with_overrides_of`, the other rows as they
    are), written where the class's grades are shown: grades.csv, those students' feedback pages (when the
    assignment's feedback folder exists) and report.html (when it exists).  Returns the new grades."""
    ids = set(submission_ids)
    g = grades.with_overrides_of(ids)
    write_assignment_grades_csv(g)
    folder = g.out / g.assignment.id
    if (folder / "feedback").is_dir():
        write_class_feedback(g, folder / "feedback", only=ids)
    if (folder / "report.html").is_file():
        write_report(folder / "report.html", g.rows, title=g.assignment.title)
    return g


# -- the rubric: every change re-scores who it touches, in the trail with their scores before and after

Touched = list[tuple[str, "float | None", "float | None"]]


def _scores(g: AssignmentGrades, ids: Iterable[str]) -> dict[str, float | None]:
    want = set(ids)
    return {r.submission_id: r.score for r in g.rows if r.submission_id in want}


def _rescore(
    grades: AssignmentGrades, ids: list[str], write: Callable[[], None], item_id: int, action: str, detail: str, by: str
) -> tuple[AssignmentGrades, Touched]:
    """Write (`write`), publish the grades of `ids` again, and log the change with their scores before and after."""
    before = _scores(grades, ids)
    write()
    g = publish(grades, ids)
    after = _scores(g, ids)
    touched = [(sid, before.get(sid), after.get(sid)) for sid in ids]
    _marks(grades).log(grades.assignment.id, item_id, action, detail, touched, by)
    return g, touched


def _item(grades: AssignmentGrades, item_id: int | str) -> Item:
    try:
        n = int(str(item_id).lstrip("#"))
    except ValueError:
        raise RubricError(f"{item_id!r} is not an item id (the number `--list` shows)") from None
    hit = next((i for i in grades.marks.items if i.id == n and not i.deleted), None)
    if hit is None:
        raise RubricError(
            f"no rubric item #{n} in {grades.assignment.id} (see `autograder rubric {grades.assignment.id} --list`)"
        )
    return hit


def _holders(grades: AssignmentGrades, item_id: int) -> list[str]:
    return sorted({a.submission_id for a in grades.marks.applied if a.item_id == item_id})


def rubric_add(
    grades: AssignmentGrades,
    *,
    exercise: str,
    title: str,
    points: float,
    comment: str = "",
    note: str = "",
    key: str | None = None,
    by: str,
) -> Item:
    """A new item of `exercise` (one of the assignment's, graded or by hand); adding one changes nobody."""
    known = rubric.exercises(grades.counted, grades.assignment.manual)
    if exercise not in known:
        raise RubricError(f"no exercise {exercise!r} in {grades.assignment.id} (known: {', '.join(known) or 'none'})")
    title, points, comment, note = rubric.check_item(title, points, comment, note)
    items = grades.marks.items
    key = rubric.check_key(items, exercise, key) if key is not None else rubric.next_key(items, exercise)
    item = _marks(grades).add_item(Item(0, grades.assignment.id, exercise, title, points, comment, note, key))
    _marks(grades).log(grades.assignment.id, item.id, "add", f"{exercise}: {title} ({points:+g})", [], by)
    return item


def rubric_edit(
    grades: AssignmentGrades,
    item_id: int | str,
    *,
    by: str,
    title: str | None = None,
    points: float | None = None,
    comment: str | None = None,
    note: str | None = None,
    key: str | None = None,
) -> tuple[Item, Touched]:
    """Change an item: new points re-score everyone who has it; a new text changes their feedback only."""
    old = _item(grades, item_id)
    t, p, c, n = rubric.check_item(
        old.title if title is None else title,
        old.points if points is None else points,
        old.comment if comment is None else comment,
        old.note if note is None else note,
    )
    k = old.key if key is None else rubric.check_key(grades.marks.items, old.exercise, key, old.id)
    new = replace(old, title=t, points=p, comment=c, note=n, key=k)
    said = [
        f"{name} {a:g} -> {b:g}" if isinstance(a, float) else f"{name} {a!r} -> {b!r}"
        for name, a, b in (
            ("title", old.title, t),
            ("points", old.points, p),
            ("comment", old.comment, c),
            ("note", old.note, n),
            ("key", old.key, k),
        )
        if a != b
    ]
    holders = _holders(grades, old.id)
    _, touched = _rescore(
        grades,
        holders,
        lambda: _marks(grades).edit_item(new, holders),
        old.id,
        "edit",
        "; ".join(said) or "nothing changed",
        by,
    )
    return new, touched


def rubric_delete(grades: AssignmentGrades, item_id: int | str, *, by: str) -> Touched:
    """Delete an item: everyone who had it is re-scored without it (its rows stay, so the trail can name it)."""
    old = _item(grades, item_id)
    holders = _holders(grades, old.id)
    return _rescore(
        grades,
        holders,
        lambda: _marks(grades).edit_item(replace(old, deleted=True, key=""), holders),
        old.id,
        "delete",
        f"{old.exercise}: {old.title} ({old.points:+g})",
        by,
    )[1]


def rubric_apply(grades: AssignmentGrades, item_id: int | str, submission_ids: list[str], *, by: str) -> Touched:
    """Apply an item to each submission (one, or a group of identical failures), on the version that counts.
    All or nothing: each must be gradable (graded, not provisional)."""
    item = _item(grades, item_id)
    on = []
    for sid in dict.fromkeys(submission_ids):
        counted = _counted(grades, sid)
        if counted is None or counted.provisional or not counted.tests or not counted.sha256:
            raise RubricError(f"{sid}: no graded submission (or it is provisional: grade it again first)")
        on.append((sid, counted.sha256))
    if not by.strip():
        raise RubricError("--by is required (who applied it)")
    ids = [sid for sid, _ in on]
    return _rescore(
        grades,
        ids,
        lambda: _marks(grades).apply(grades.assignment.id, item.id, on, by.strip()),
        item.id,
        "apply",
        f"{item.exercise}: {item.title} ({item.points:+g})",
        by,
    )[1]


def rubric_unapply(grades: AssignmentGrades, item_id: int | str, submission_ids: list[str], *, by: str) -> Touched:
    item = _item(grades, item_id)
    have = set(_holders(grades, item.id))
    ids = list(dict.fromkeys(submission_ids))
    missing = [sid for sid in ids if sid not in have]
    if missing:
        raise RubricError(f"item #{item.id} is not applied to {', '.join(missing)}")
    return _rescore(
        grades,
        ids,
        lambda: _marks(grades).unapply(grades.assignment.id, item.id, ids),
        item.id,
        "unapply",
        f"{item.exercise}: {item.title} ({item.points:+g})",
        by,
    )[1]


def rubric_import(grades: AssignmentGrades, text: str, *, by: str) -> tuple[int, int]:
    """The items of a rubric file (`grades.rubric.export_items`): an item of the same exercise and title is edited
    to match (re-scoring who has it, in the trail), any other added.  Returns (added, changed)."""
    wanted = rubric.import_items(text)
    added = changed = 0
    for w in wanted:
        live = [i for i in grades.marks.items if not i.deleted]
        same = next((i for i in live if i.exercise == w["exercise"] and i.title == w["title"]), None)
        key = (
            w["key"]
            if w["key"] and not any(i.key == w["key"] and i.exercise == w["exercise"] and i is not same for i in live)
            else None
        )
        if same is None:
            rubric_add(
                grades,
                exercise=w["exercise"],
                title=w["title"],
                points=w["points"],
                comment=w["comment"],
                note=w["note"],
                key=key,
                by=by,
            )
            added += 1
        elif (same.points, same.comment, same.note) != (w["points"], w["comment"], w["note"]):
            rubric_edit(grades, same.id, points=w["points"], comment=w["comment"], note=w["note"], by=by)
            changed += 1
        grades = grades.with_overrides_of([])
    return added, changed


def add_line_note(
    grades: AssignmentGrades, submission_id: str, *, cell: int, line: int, text: str, code: str = "", by: str
) -> LineNote:
    """A comment on line `line` (0: the whole cell) of cell `cell` of the counted version, shown in the student's
    feedback at that line; `code` is the line as the commenter saw it (quoted there)."""
    counted = _counted(grades, submission_id)
    if counted is None or not counted.sha256:
        raise RubricError(f"no graded submission {submission_id}")
    text = text.strip()
    if not text or len(text) > rubric.MAX_TEXT or cell < 0 or line < 0 or not by.strip():
        raise RubricError(
            f"a line comment is 1 to {rubric.MAX_TEXT} characters on a cell and line (0 or more), by someone"
        )
    code = code or _line_of(grades, counted, cell, line)
    import time as _time

    note = _marks(grades).add_note(
        grades.assignment.id,
        LineNote(0, submission_id, counted.sha256, cell, line, code[:500], text, by.strip(), _time.time()),
    )
    publish(grades, {submission_id})
    return note


def remove_line_note(grades: AssignmentGrades, note_id: int) -> str:
    """Delete line comment `note_id` and rewrite its student's feedback; returns their submission id."""
    sid = _marks(grades).remove_note(grades.assignment.id, note_id)
    if not sid:
        raise RubricError(f"no line comment #{note_id} in {grades.assignment.id}")
    publish(grades, {sid})
    return sid


def _line_of(grades: AssignmentGrades, counted: SubmissionResult, cell: int, line: int) -> str:
    """Line `line` (0: the whole cell, its first lines) of code cell `cell` of the kept notebook of `counted`, as
    the feedback quotes it; "" when the version's notebook is not kept.  A cell or line it does not have is refused."""
    from autograder.notebook.parse import InvalidNotebook, code_cells, read_notebook
    from autograder.store.history import kept_notebook

    nb = kept_notebook(grades.out, counted)
    if nb is None:
        return ""
    try:
        cells = {c.index: c.source.splitlines() for c in code_cells(read_notebook(nb))}
    except (InvalidNotebook, OSError):
        return ""
    if cell not in cells:
        raise RubricError(
            f"{counted.submission_id} has no code cell {cell} (its code cells: "
            f"{', '.join(map(str, sorted(cells))) or 'none'})"
        )
    lines = cells[cell]
    if line > len(lines):
        raise RubricError(f"code cell {cell} of {counted.submission_id} has {len(lines)} lines")
    return lines[line - 1][:500] if line else "\n".join(lines[:12])[:500]


def score_changes(
    before: AssignmentGrades | None, after: AssignmentGrades
) -> list[tuple[str, float | None, float | None]]:
    """(submission id, score before, score after) for every student whose score (the one every export sends)
    differs: what a regrade changed, shown before anything is published."""
    old = {r.submission_id: r.score for r in (before.rows if before else []) if r.submission_id}
    return [
        (r.submission_id, old.get(r.submission_id), r.score)
        for r in after.rows
        if r.submission_id and r.submission_id in old and old[r.submission_id] != r.score
    ]


def unsent_changes(
    grades: AssignmentGrades, target: str, missing: str = "blank"
) -> list[tuple[str, float | None, float | None]]:
    """(submission id, the score it last reached the LMS target `target` (its URL) with, its score now) where the
    two differ: what a passback would change in the LMS, confirmed before it is sent."""
    sent = _marks(grades).sent(grades.assignment.id, target)
    return [
        (r.submission_id, sent[r.submission_id], r.export_score(missing))
        for r in grades.rows
        if r.submission_id in sent and sent[r.submission_id] != r.export_score(missing)
    ]


def record_sent(grades: AssignmentGrades, target: str, missing: str = "blank") -> None:
    """Remember each row's score as sent to the LMS target `target` (after a passback that sent all it planned)."""
    _marks(grades).record_sent(
        grades.assignment.id,
        target,
        {
            r.submission_id: r.export_score(missing)
            for r in grades.rows
            if r.submission_id and r.export_score(missing) is not None
        },
    )
