"""`autograder`: grade a class, release student notebooks, check an assignment's solutions."""
from __future__ import annotations

import argparse
import filecmp
import os
import sys
import tempfile
from pathlib import Path

import autograder
from autograder.assignment import AssignmentError, find_kit, list_assignments, load_assignment
from autograder.course import CourseError
from autograder.intake.submissions import IntakeError, Submission, collect
from autograder.report.escape import terminal
from autograder.score.late import LatePolicyError


class UsageError(Exception):
    pass


def _parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(prog="autograder", description=__doc__)
    p.add_argument("--version", action="version", version=f"%(prog)s {autograder.__version__}",
                   help="print the kit's version and exit")
    p.add_argument("--kit", type=Path, help="kit root (default: found from the current directory)")
    p.add_argument("--course-file", type=Path,
                   help="course settings (default: the nearest course.toml at or above the current directory); "
                        "flags on the command line win over it")
    sub = p.add_subparsers(dest="command", required=True)

    g = sub.add_parser("grade", help="grade notebooks, folders of notebooks, or zips of them",
                       epilog="example: autograder grade 01_tensors canvas_submissions.zip --roster roster.csv "
                              "--jobs auto")
    g.add_argument("assignment", help="assignment id (a folder of assignments/)")
    g.add_argument("submissions", nargs="+", type=Path,
                   help="notebooks, folders of notebooks, or zips (Canvas/Moodle downloads included)")
    g.add_argument("--out", type=Path, help="results folder (default: the course file's, else results/)")
    g.add_argument("--jobs", type=_jobs, default=1,
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
    g.add_argument("--nb-assignment", help="nbgrader: the assignment's name in the course (default: ASSIGNMENT)")

    r = sub.add_parser("release", help="generate student/ notebooks from solutions/",
                       epilog="example: autograder release 01_tensors && autograder release --check")
    r.add_argument("assignments", nargs="*", help="default: all")
    r.add_argument("--check", action="store_true", help="fail if student/ is stale instead of writing it")

    c = sub.add_parser("check-solutions", help="master must score 100%%, released notebook 0%%",
                       epilog="example: autograder check-solutions 01_tensors 02_autograd")
    c.add_argument("assignments", nargs="*", help="default: all")
    c.add_argument("--device", choices=("auto", "cpu", "cuda"), default="auto",
                   help="cpu: CPU only; cuda: CUDA variants only (refuses without CUDA); auto: CPU, and CUDA when present")
    c.add_argument("--allow-weak-isolation", action="store_true", help="as for grade")

    sub.add_parser("list", help="list the kit's assignments", epilog="example: autograder list")
    v = sub.add_parser("validate", help="students: run a notebook top to bottom as the grader does (sandboxed), then its public checks",
                       epilog="example: autograder validate 01_tensors.ipynb   (exit 0: ready to submit)")
    v.add_argument("notebook", type=Path, help="the notebook to check, as you would submit it")
    from autograder.interop.commands import register

    p.set_defaults(extra_handlers=register(sub))
    return p


def main(argv: list[str] | None = None) -> int:
    args = _parser().parse_args(argv)
    try:
        from autograder.course import apply_course, find_course, load_course

        apply_course(args, load_course(args.course_file) if args.course_file else find_course())
        kit = (args.kit or find_kit()).resolve()
        handlers = {"grade": cmd_grade, "release": cmd_release, "check-solutions": cmd_check_solutions,
                    "list": cmd_list, "validate": cmd_validate, **args.extra_handlers}
        return handlers[args.command](args, kit)
    except (UsageError, AssignmentError, IntakeError, LatePolicyError, CourseError) as e:
        print(terminal(f"autograder: error: {e}"), file=sys.stderr)
        return 2


def _assignments(names: list[str], kit: Path) -> list[str]:
    names = names or list_assignments(kit)
    for n in names:
        load_assignment(n, kit)
    return names


def _options(args: argparse.Namespace):
    import torch

    from autograder.execute.sandbox import SandboxUnavailable, choose_isolation
    from autograder.judge.session import GradeOptions

    gpu = args.device == "cuda" or (args.device == "auto" and torch.cuda.is_available())
    try:
        isolation = choose_isolation(args.allow_weak_isolation, gpu=gpu)
    except SandboxUnavailable as e:
        raise UsageError(str(e)) from None
    return GradeOptions(device=args.device, isolation=isolation)


def cmd_list(args: argparse.Namespace, kit: Path) -> int:
    for name in list_assignments(kit):
        print(f"{name}\t{load_assignment(name, kit).title}")
    return 0


def cmd_validate(args: argparse.Namespace, kit: Path) -> int:
    """0 when every exercise is answered and passes its public checks (needs no hidden test, no kit)."""
    from autograder.validate import validate

    return validate(args.notebook)


def _jobs(text: str) -> int:
    if text == "auto":
        return len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else (os.cpu_count() or 1)
    try:
        return int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"not a number or 'auto': {text!r}") from None


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


def cmd_grade(args: argparse.Namespace, kit: Path) -> int:
    assignment = load_assignment(args.assignment, kit)
    _prestart_workers(args, assignment)
    if args.jobs > 1 and args.executor == "local":
        from autograder import judges

        judges.prestart()  # the judges' imports, beside ours
    import torch

    from autograder.pipeline import JUDGE_MB, MasterFailed, available_mb, grade_class, jobs_within
    from autograder.report.progress import progress
    from autograder.report.table import print_table

    if args.jobs < 1:
        raise UsageError("--jobs must be at least 1")
    budget = int(args.memory_budget * 1024) if args.memory_budget else int(0.8 * available_mb())
    from autograder.probe.seeds import variant_count

    workers = 1 if variant_count() == 1 else 2  # per-student variants: the judge keeps the master's worker too
    jobs = jobs_within(args.jobs, assignment.limits.memory_mb, budget, workers)
    if jobs < args.jobs and args.executor == "local":
        print(f"NOTE: --jobs {args.jobs} lowered to {jobs}: each job may use {workers} x {assignment.limits.memory_mb} "
              f"MiB (memory_mb of the student's worker{' and the master' + chr(39) + 's' if workers > 1 else ''}) "
              f"+ {JUDGE_MB} MiB (its judge), within a memory budget of {budget} MiB", file=sys.stderr)
        args.jobs = jobs
    if (args.executor == "dask") != bool(args.scheduler):
        raise UsageError("--executor dask and --scheduler ADDRESS go together")
    if args.device == "cuda" and not torch.cuda.is_available():
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
                run = grade_class(assignment, subs, out=out, jobs=args.jobs, options=_options(args),
                                  force=args.force, on_result=on_result, scheduler=args.scheduler,
                                  course=getattr(args, "course_settings", None))
        except MasterFailed as e:
            for line in f"autograder: error: grading stopped before any submission was graded: {e}".splitlines():
                print(terminal(line), file=sys.stderr)
            return 1
    provisional = [r.submission_id for r in run.results if r.provisional]
    if provisional:
        print(f"NOTE: {len(provisional)} result(s) hit a grader or host fault and are provisional (not final); "
              f"they are graded again on the next run: {', '.join(provisional[:10])}", file=sys.stderr)
    print_table(run.results, f"{assignment.title}: {len(run.results)} submissions ({run.reused} unchanged, reused"
                f"{f'; {run.partial} re-graded on changed tests only' if run.partial else ''})")
    print(f"results: {out / assignment.id}  gradebook: {out / 'gradebook.sqlite'}")
    return 0


def _intake(args: argparse.Namespace, assignment_id: str, out: Path, scratch: Path) -> list[Submission]:
    """LMS downloads (Canvas, Moodle, nbgrader, Gradescope) through `lms.unpack`, the rest through `collect`."""
    from autograder.intake import lms
    from autograder.intake.roster import Roster, record_identities

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
        from datetime import datetime, timezone

        from autograder.intake.roster import match_file_names

        found, unmatched = match_file_names(
            [(s.id, s.source, None if s.problem else datetime.fromtimestamp(s.path.stat().st_mtime, timezone.utc))
             for s in subs], Roster.read_csv(args.roster))
        ids_file = out / assignment_id / "identities.json"
        record_identities(ids_file, found)
        for sid in unmatched:
            print(terminal(f"warning: {sid}: its file name is none of a roster student's ids (login, email, "
                           f"LMS or SIS id): not matched to the roster"), file=sys.stderr)
    return subs


def cmd_release(args: argparse.Namespace, kit: Path) -> int:
    from autograder.notebook.release import release

    stale = []
    for name in _assignments(args.assignments, kit):
        if not args.check:
            for p in release(kit, name):
                print(f"wrote {p.relative_to(kit)}")
            continue
        if (kit / "student" / name).is_dir():
            stale.append(f"student/{name}/ (the student package carries the checks now: remove it)")
        with tempfile.TemporaryDirectory() as tmp:
            for p in release(kit, name, Path(tmp)):
                rel = p.relative_to(tmp)
                current = kit / "student" / rel
                if not current.is_file() or not filecmp.cmp(p, current, shallow=False):
                    stale.append(str(Path("student") / rel))
    if stale:
        print("student/ is stale (run `make student`): " + ", ".join(stale), file=sys.stderr)
        return 1
    if args.check:
        print("student/ is up to date")
    return 0


def cmd_check_solutions(args: argparse.Namespace, kit: Path) -> int:
    from autograder.execute import limits
    from autograder.judge.session import close_references, grade_notebook
    from autograder.notebook.release import release

    ok = True
    for name in _assignments(args.assignments, kit):
        a = load_assignment(name, kit)
        options = _options(args)
        with tempfile.TemporaryDirectory() as tmp:
            student_nb = release(kit, name, Path(tmp))[0]
            master = grade_notebook(a, a.solution, submission_id="master", options=options)
            blank = grade_notebook(a, student_nb, submission_id="student", options=options)
        # a correct solution a few times slower than the master must not time out (cell_timeout counts CPU)
        tight = master.slowest_cell_cpu * limits.CELL_TIMEOUT_MARGIN > a.limits.cell_timeout
        good = (master.score == master.max_score == a.total_points and blank.score == 0 and not master.problems
                and not tight)
        ok &= good
        print(f"{'ok  ' if good else 'FAIL'} {name}: master {master.score:g}/{master.max_score:g} "
              f"({master.status}), student notebook {blank.score:g}/{blank.max_score:g}, expected "
              f"{a.total_points:g} and 0; slowest master cell {master.slowest_cell_cpu:.2f} s of CPU "
              f"(cell_timeout {a.limits.cell_timeout:g} s)")
        for t in master.tests:
            if t.outcome not in ("passed", "skipped"):
                print(f"     master {t.outcome}: {t.id}: {t.message[:300]}")
        for t in blank.tests:
            if t.score > 0:
                print(f"     student notebook earns {t.score:g} on {t.id}")
        for prob in master.problems:
            print(f"     problem: {prob[:500]}")
        if tight:
            print(f"     problem: cell_timeout = {a.limits.cell_timeout:g} s is under {limits.CELL_TIMEOUT_MARGIN}x the master's "
                  f"slowest cell ({master.slowest_cell_cpu:.2f} s of CPU): raise it in the manifest's [limits]")
        close_references()
    return 0 if ok else 1
