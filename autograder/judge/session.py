"""Grade one notebook: execute it in a worker, run the assignment's tests against it.

This runs in a trusted process.  It parses the notebook (never executes it), starts the
student's worker through the configured isolation, runs pytest over the public and
hidden tests with the grading plugin, and assembles a `SubmissionResult`.  The reference
(master notebook) is shared by every submission graded in this process and its answers
are cached on disk per assignment version.
"""

from __future__ import annotations

import hashlib
import importlib.util
import os
import sys
import time
from dataclasses import replace
from pathlib import Path
from types import ModuleType
from typing import Any

import torch

import autograder
from autograder.config.assignment import Assignment
from autograder.execute.backend import ProbeBackend, ProbeCrashed, ProbeError, ProbeTimeout
from autograder.execute.runner import NotebookRunner
from autograder.intake.submissions import file_sha256
from autograder.judge.options import GradeOptions
from autograder.judge.plugin import GradingPlugin
from autograder.judge.results import WORSE, CellIssue, SubmissionResult, in_file_order, submission_status
from autograder.judge.suite import TestSuite, close_suite, open_suite
from autograder.notebook.cells import cell_name
from autograder.notebook.parse import InvalidNotebook, load_cells
from autograder.probe.reference import CachedReference
from autograder.probe.seeds import Seeds, fingerprint


class _Unreadable(ProbeBackend):
    """Student backend for a notebook that could not be read: every probe fails with why."""

    def __init__(self, why: str) -> None:
        self.why = why

    def call(
        self, probe: str, args: tuple = (), kwargs: dict | None = None, *, seed: int = 0, timeout: float | None = None
    ) -> Any:
        raise ProbeError({"type": "InvalidNotebook", "message": self.why, "frames": []})


_references: dict[tuple[str, ...], CachedReference] = {}
_probe_modules: dict[tuple[str, str], ModuleType] = {}


def load_probes(assignment: Assignment, version: str) -> ModuleType | None:
    """Import the assignment's probes.py in the trusted process (instructor code), once per version."""
    if not assignment.probes.is_file():
        return None
    key = (assignment.id, version)
    if key not in _probe_modules:
        name = f"autograder_probes_{assignment.id}_{version}"
        spec = importlib.util.spec_from_file_location(name, assignment.probes)
        assert spec and spec.loader
        mod = importlib.util.module_from_spec(spec)
        sys.modules[name] = mod
        spec.loader.exec_module(mod)
        _probe_modules[key] = mod
    return _probe_modules[key]


def reference_for(assignment: Assignment, version: str, options: GradeOptions) -> CachedReference:
    """The master's answers for this assignment version, run in *this* isolation with *this* cache: a
    reference proven elsewhere (another sandbox, another results folder) must not vouch for this run."""
    key = (
        assignment.id,
        version,
        type(options.isolation).__qualname__,
        options.isolation.name,
        str(options.cache_dir),
        fingerprint(options.secret.value),
    )
    if key not in _references:
        seed = Seeds.for_course(
            options.secret, assignment.id
        ).cells()  # the same cell seeds as every student's notebook
        limits = replace(
            assignment.limits, submission_timeout=10 * assignment.limits.submission_timeout, max_restarts=2
        )

        def make() -> NotebookRunner:
            runner = NotebookRunner(
                load_cells(assignment.solution),
                probes=assignment.probes,
                limits=limits,
                isolation=options.isolation,
                seed=seed,
            )
            runner.execute()
            broken = [r for r in runner.cell_records if r.status != "ok"]
            if broken:
                r = broken[0]
                raise ProbeCrashed(f"the master notebook failed in cell {r.index}: {r.error}")
            return runner

        cache = options.cache_dir / assignment.id / version if options.cache_dir else None
        _references[key] = CachedReference(make, cache)
    return _references[key]


def release_reference_workers() -> None:
    """Stop the master's workers this process holds and keep their answers (a miss starts one again).
    A judge's share of the reference pass leaves one running that students' tests almost never need
    with one variant for the class (every master, blank and alternative notebook: 0 misses), at the
    memory of a second worker; with a variant per student it answers each student's hidden tests."""
    for ref in _references.values():
        ref.close()


def close_references() -> None:
    """Forget this process's references and collected tests (the next grade starts afresh)."""
    close_suite()
    for ref in _references.values():
        ref.close()
    _references.clear()


def environment(assignment: Assignment, version: str, options: GradeOptions) -> dict[str, Any]:
    """How this grade was made.  No seed is recorded (each test's seed is a one-way function of the
    secret, see `probe.seeds`): only where the secret came from and a fingerprint of it."""
    return {
        "assignment_version": version,
        "base_version": assignment.base_version(),  # these two decide what a re-grade may keep
        "test_files": assignment.test_files(),
        "grader_version": autograder.__version__,
        "device": "+".join(d for d in options.devices() if d == "cpu" or torch.cuda.is_available()),
        "seed_source": options.secret.source,
        "secret_fingerprint": fingerprint(options.secret.value),
        "torch_version": str(torch.__version__),  # a plain str: torch's TorchVersion would pickle torch along
        "cuda_version": torch.version.cuda,
        "python_version": sys.version.split()[0],
        "determinism": {
            **(
                {"tf_op_determinism": True}
                if assignment.framework.name == "tensorflow"
                else {"use_deterministic_algorithms": "warn_only", "cudnn_benchmark": False}
            ),
            "threads": assignment.limits.threads,
        },
        "isolation": options.isolation.name,
    }


def prepare_tests(assignment: Assignment, options: GradeOptions) -> TestSuite:
    """The assignment's tests, collected once per process (a judge does it before its first task)."""
    version = assignment.version()
    paths = [assignment.public_dir, assignment.hidden_dir]
    probes = load_probes(assignment, version)
    kernels = "cuda" if options.isolation.sees_gpu() and torch.cuda.is_available() else "cpu"
    return open_suite(
        (assignment.id, version, tuple(map(str, paths)), options.devices(), kernels, str(assignment.root)),
        paths,
        lambda: GradingPlugin(
            student=_Unreadable("no submission yet"),
            reference=None,
            probes=probes,
            seeds=Seeds.for_course(options.secret, assignment.id),
            test_timeout=assignment.limits.test_timeout,
            devices=options.devices(),
            hidden_dir=assignment.hidden_dir,
            kernel_device=kernels,
        ),
        assignment.root,
    )


def grade_notebook(
    assignment: Assignment,
    notebook: Path,
    *,
    submission_id: str,
    source: str | None = None,
    options: GradeOptions | None = None,
    as_reference: bool = False,
    only: list[str] | None = None,
    variant: str = "",
) -> SubmissionResult:
    """Grade one notebook file.  `as_reference` grades the master through the reference itself;
    `only` runs only those test files or tests (`TestSuite.run`); `variant` is the student's
    variant of the hidden inputs (`Seeds.variant_of`; "" the course-wide ones), kept in instructor.json."""
    options = options or GradeOptions()
    t0 = time.monotonic()
    version = assignment.version()
    env = {**environment(assignment, version, options), "variant": variant}
    seeds = Seeds.for_course(options.secret, assignment.id, variant)
    reference = reference_for(assignment, version, options)
    reference.new_submission(variant)
    sha = file_sha256(notebook) if notebook.is_file() else hashlib.sha256(b"").hexdigest()  # streamed: any size

    runner: NotebookRunner | None = None
    invalid = ""
    setup_message = ""
    if as_reference:
        student_backend: Any = reference
    else:
        try:
            notebook_cells = load_cells(notebook)
        except InvalidNotebook as e:
            invalid = str(e)
        except OSError as e:
            invalid = f"the file could not be read: {e.strerror}"
        if invalid:
            student_backend = _Unreadable(invalid)
        else:
            runner = NotebookRunner(
                notebook_cells,
                probes=assignment.probes,
                limits=assignment.limits,
                isolation=options.isolation,
                seed=seeds.cells(),
            )
            student_backend = runner
            try:
                runner.execute()
            except (ProbeTimeout, ProbeCrashed) as e:
                setup_message = str(e)

    try:
        suite = prepare_tests(assignment, options)
        # the master itself (the reference pass, check-solutions): a check that raises is the assignment's bug
        master = as_reference or os.path.realpath(notebook) == os.path.realpath(assignment.solution)
        suite.plugin.bind(student_backend, reference, seeds, master=master)
        log = suite.run(only)
        results, problems = suite.plugin.results, list(suite.plugin.problems)
        host_fault = suite.plugin.host_fault
    finally:
        if runner is not None:
            runner.close()

    cells: list[CellIssue] = []
    if runner is not None:
        for rec in runner.cell_records:
            if rec.status != "ok" or rec.notes:
                err = rec.error or {}
                cells.append(
                    CellIssue(
                        cell=rec.index,
                        status=rec.status if rec.status != "ok" else "note",
                        type=str(err.get("type", "")),
                        message=str(err.get("message", "")),
                        code=rec.source,
                        frames=list(err.get("frames") or []),
                        notes=rec.notes,
                    )
                )
    status = submission_status(
        invalid=bool(invalid), tests=results, cells=cells, out_of_time=bool(runner and runner.out_of_time)
    )
    message = invalid or setup_message or _status_message(status, cells)
    if not results and not problems and only is None:
        problems.append("no tests were collected")
    return SubmissionResult(
        assignment=assignment.id,
        submission_id=submission_id,
        source=source or notebook.name,
        sha256=sha,
        status=status,
        message=message,
        tests=results,
        cells=cells,
        execution_time=time.monotonic() - t0,
        environment=env,
        hidden_policy=assignment.hidden_feedback,
        stdout=runner.stdout if runner else "",
        stderr=runner.stderr if runner else "",
        problems=problems + ([log[-3000:]] if problems else []),
        provisional=(runner.host_fault if runner else "") or host_fault,
        cell_time=round(runner.cell_time, 4) if runner else 0.0,
        slowest_cell_cpu=round(max((r.cpu or 0.0 for r in runner.cell_records), default=0.0), 4) if runner else 0.0,
    )


def _status_message(status: str, cells: list[CellIssue]) -> str:
    if status == "timeout":
        hung = [cell_name(c.cell, c.code) for c in cells if c.status == "timeout"]  # as feedback and validate
        return (
            f"{', '.join(hung)} did not finish in time; it was skipped and the rest graded"
            if hung
            else "some tests ran out of time"
        )
    if status == "crashed":
        dead = [cell_name(c.cell, c.code) for c in cells if c.status == "crashed"]
        return (
            f"{', '.join(dead)} crashed the worker; it was skipped and the rest graded"
            if dead
            else "some tests crashed the worker"
        )
    return ""


def regrade_notebook(
    assignment: Assignment,
    notebook: Path,
    stored: SubmissionResult,
    test_files: list[str],
    *,
    options: GradeOptions | None = None,
    variant: str = "",
) -> SubmissionResult:
    """Run `test_files` on the notebook again and keep the stored results of every other current test
    (graded under the same `variant`: the caller keeps nothing of a grade made under another)."""
    fresh = grade_notebook(
        assignment,
        notebook,
        submission_id=stored.submission_id,
        source=stored.source,
        options=options,
        only=test_files,
        variant=variant,
    )
    current, rerun = assignment.test_files(), set(test_files)
    kept = [t for t in stored.tests if t.file in current and t.file not in rerun]
    tests = in_file_order(assignment, kept + fresh.tests)
    status = max(
        fresh.status, submission_status(invalid=False, tests=kept, cells=[], out_of_time=False), key=WORSE.__getitem__
    )
    fresh.environment["tests_kept"] = len(kept)
    return replace(fresh, tests=tests, status=status, message=fresh.message or _status_message(status, fresh.cells))
