"""`autograder grade`: grade a class (notebooks, folders, zips, LMS downloads) into the results folder."""
from __future__ import annotations

import argparse
import sys
from datetime import datetime, timezone
from pathlib import Path

from autograder.cli import common
from autograder.cli.common import UsageError, options_of, parse_jobs
from autograder.config.assignment import load_assignment
from autograder.intake.roster import (COPY_WINDOW_SECONDS, Roster, copied_times, match_file_names,
                                      read_submission_times, record_identities, with_times)
from autograder.intake.submissions import Submission, collect
from autograder.report.escape import terminal


def add(subparsers: argparse._SubParsersAction) -> None:
    g = subparsers.add_parser("grade", help="grade notebooks, folders of notebooks, or zips of them",
                              epilog="example: autograder grade 01_tensors canvas_submissions.zip --roster roster.csv "
                                     "--jobs auto")
    g.add_argument("assignment", help="assignment id (a folder of assignments/)")
    g.add_argument("submissions", nargs="+", type=Path,
                   help="notebooks, folders of notebooks, or zips (Canvas/Moodle downloads included)")
    g.add_argument("--out", type=Path, help="results folder (default: the course file's, else results/)")
    g.add_argument("--jobs", type=parse_jobs, default=1,
                   help="submissions graded in parallel, or 'auto' (one per CPU); capped by --memory-budget")
    g.add_argument("--memory-budget", type=float, metavar="GIB",
                   help="memory the jobs may use together (default: 80%% of the memory available now)")
    g.add_argument("--device", choices=("auto", "cpu", "cuda"), default="auto",
                   help="cpu: CPU only; cuda: CUDA variants only (refuses without CUDA); auto: CPU, and CUDA when present")
    g.add_argument("--force", action="store_true", help="regrade even if a valid grade is stored")
    g.add_argument("--executor", choices=("local", "dask"), default="local",
                   help="local processes (--jobs) or a Dask cluster (--scheduler)")
    g.add_argument("--scheduler", help="Dask scheduler address, e.g. tcp://10.0.0.5:8786 (with --executor dask)")
    g.add_argument("--allow-weak-isolation", action="store_true",
                   help="grade even without bubblewrap (rlimits only: student code is NOT sandboxed)")
    g.add_argument("--format", choices=("auto", "canvas", "moodle", "nbgrader", "gradescope", "folder"),
                   default="auto", help="what an LMS handed out (default: detected)")
    g.add_argument("--roster", type=Path, help="roster CSV mapping submissions to students (default: the course "
                                               "file's, with an LMS download)")
    g.add_argument("--submission-times", type=Path,
                   help="a folder of notebooks: CSV of when each was submitted (columns student: any of the "
                        "student's ids or the file name; submitted_at: ISO 8601 with a time zone), instead of "
                        "the files' times")
    g.add_argument("--nb-assignment", help="nbgrader: the assignment's name in the course (default: ASSIGNMENT)")
    g.set_defaults(run=run)


def run(args: argparse.Namespace, kit: Path) -> int:
    assignment = load_assignment(args.assignment, kit)
    _prestart_workers(args, assignment)
    from autograder.judge import pool

    judges = args.jobs > 1 and args.executor == "local"  # as asked: a lowered --jobs still started the forkserver
    if judges:
        pool.prestart()  # the judges' imports, beside ours (this process imports no torch: the judges grade)
    from autograder.pipeline import JUDGE_MB, MASTER_WORKER_MB, MasterFailed, available_mb, grade_class, jobs_within
    from autograder.report.progress import progress
    from autograder.report.table import print_table

    if args.jobs < 1:
        raise UsageError("--jobs must be at least 1")
    budget = int(args.memory_budget * 1024) if args.memory_budget else int(0.8 * available_mb())
    from autograder.probe.seeds import variant_count

    workers = 1 if variant_count() == 1 else 2  # per-student variants: the judge keeps the master's worker too
    jobs = jobs_within(args.jobs, assignment.limits.memory_mb, budget, workers)
    if jobs < args.jobs and args.executor == "local":
        print(f"NOTE: --jobs {args.jobs} lowered to {jobs}: each job may use {assignment.limits.memory_mb} MiB (memory_mb "
              f"of the student's worker){f' + {min(assignment.limits.memory_mb, MASTER_WORKER_MB)} MiB (the master' + chr(39) + 's worker)' if workers > 1 else ''} "
              f"+ {JUDGE_MB} MiB (its judge), within a memory budget of {budget} MiB", file=sys.stderr)
        args.jobs = jobs
    if (args.executor == "dask") != bool(args.scheduler):
        raise UsageError("--executor dask and --scheduler ADDRESS go together")
    if args.device == "cuda" and not common.cuda_available():
        raise UsageError("--device cuda was asked for, but CUDA is not available here")
    out = args.out.resolve()
    from autograder.probe.seeds import course_secret

    if course_secret()[1] == "default":
        print("warning: no course secret (AUTOGRADER_SECRET, AUTOGRADER_SECRET_FILE or the course file's "
              "secret_file): hidden test inputs come from the public default seed", file=sys.stderr)
    from autograder.execute.scratch import Scratch

    with Scratch("ag-intake-") as scratch:  # copies of every notebook: pruned if we are killed
        subs = _intake(args, assignment.id, out, scratch)
        if not subs:
            raise UsageError("no notebooks found in " + ", ".join(map(str, args.submissions)))
        try:
            with progress(len(subs), f"grading {assignment.id}") as on_result:
                run = grade_class(assignment, subs, out=out, jobs=args.jobs, options=options_of(args),
                                  force=args.force, on_result=on_result, scheduler=args.scheduler,
                                  course=getattr(args, "course_settings", None))
        except MasterFailed as e:
            for line in f"autograder: error: grading stopped before any submission was graded: {e}".splitlines():
                print(terminal(line), file=sys.stderr)
            return 1
        finally:
            if judges:
                pool.stop()  # the judges have ended with grade_class
    provisional = [r.submission_id for r in run.results if r.provisional]
    if provisional:
        print(f"NOTE: {len(provisional)} result(s) hit a grader or host fault and are provisional (not final); "
              f"they are graded again on the next run: {', '.join(provisional[:10])}", file=sys.stderr)
    print_table(run.results, f"{assignment.title}: {len(run.results)} submissions ({run.reused} unchanged, reused"
                f"{f'; {run.partial} re-graded on changed tests only' if run.partial else ''})")
    print(f"results: {out / assignment.id}  gradebook: {out / 'gradebook.sqlite'}")
    return 0


def _prestart_workers(args: argparse.Namespace, assignment) -> None:  # type: ignore[no-untyped-def]
    """Start the sandbox's torch-loaded zygote before this process imports torch, so the two imports
    overlap.  Whether workers see a GPU is guessed from the device files; `_options` decides it again
    from torch, and a wrong guess only leaves an idle zygote behind."""
    from autograder.execute import nvidia
    from autograder.execute.sandbox import SandboxUnavailable, choose_isolation

    gpu = args.device != "cpu" and nvidia.visible()
    try:
        choose_isolation(args.allow_weak_isolation, gpu=gpu).prestart(assignment.probes, assignment.limits)
    except SandboxUnavailable:
        pass  # `_options` reports it


def _intake(args: argparse.Namespace, assignment_id: str, out: Path, scratch: Path) -> list[Submission]:
    """LMS downloads (Canvas, Moodle, nbgrader, Gradescope) through `lms.unpack`, the rest through `collect`."""
    from autograder.intake import downloads as lms

    fmt = None if args.format == "auto" else args.format
    if len(args.submissions) == 1 and (fmt or lms.detect(args.submissions[0])) != "folder":
        roster = Roster.read_csv(args.roster) if args.roster else None
        batch = lms.unpack(args.submissions[0], scratch, fmt=fmt, roster=roster,
                           assignment=args.nb_assignment or assignment_id)
        ids_file = out / assignment_id / "identities.json"
        record_identities(ids_file, batch.identities)
        for line in batch.report():
            print(terminal(line), file=sys.stderr)  # zip member names, roster fields
        return batch.submissions
    subs = collect(args.submissions, scratch)
    if args.roster:   # a folder of notebooks named after their students (docs/interop.md)
        stamps = [(s.id, s.source, None if s.problem else datetime.fromtimestamp(s.path.stat().st_mtime, timezone.utc))
                  for s in subs]
        found, unmatched, notes = match_file_names(stamps, Roster.read_csv(args.roster))
        if getattr(args, "submission_times", None):
            try:
                times = read_submission_times(args.submission_times)
            except (OSError, ValueError) as e:
                raise UsageError(f"--submission-times: {e}") from None
            found, untimed = with_times(found, {s.id: s.source for s in subs}, times)
            notes += [f"{sid}: no time in {args.submission_times}: its file's time decides lateness" for sid in untimed]
        elif copied_times([w for _, _, w in stamps if w]):
            notes.append(f"the {len(stamps)} notebooks' file times lie within {COPY_WINDOW_SECONDS} s of each other: "
                         "they say when the folder was copied, not when each was submitted, and would decide "
                         "lateness. Give the times: --submission-times CSV (columns student, submitted_at), or "
                         "grade the LMS's own download (Canvas, Moodle, nbgrader, Gradescope), or drop the "
                         "[deadline] from course.toml / the manifest for this assignment")
        ids_file = out / assignment_id / "identities.json"
        record_identities(ids_file, found)
        for note in notes:
            print(terminal(f"warning: {note}"), file=sys.stderr)
        for sid in unmatched:
            print(terminal(f"warning: {sid}: its file name is none of a roster student's ids (login, email, "
                           f"LMS or SIS id): not matched to the roster"), file=sys.stderr)
    return subs
