"""The reference gate: the master must score full marks before any student is graded.

A master that does not (a wrong solution, a probe that raises, a sandbox that cannot import
the kit) would grade every student against a broken reference and export those grades; the
grader stops instead, with the reason, a non-zero exit and nothing written for students."""

import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from autograder.config.assignment import load_assignment
from autograder.execute.process import WorkerProcess
from autograder.execute.sandbox import RlimitsOnly
from autograder.intake.submissions import Submission
from autograder.judge.session import GradeOptions, close_references
from autograder.pipeline import MasterFailed, grade_class
from tests.nbfactory import edit


def _kit_copy(toy_kit: Path, tmp: Path) -> Path:
    kit = tmp / "kit"
    shutil.copytree(toy_kit, kit)
    return kit


def _grade_cli(kit: Path, subs: Path, out: Path) -> subprocess.CompletedProcess:
    return subprocess.run(
        [
            sys.executable,
            "-m",
            "autograder",
            "--kit",
            str(kit),
            "grade",
            "toy",
            str(subs),
            "--out",
            str(out),
            "--allow-weak-isolation",
        ],  # the gate does not depend on the sandbox
        capture_output=True,
        text=True,
        timeout=600,
    )


def _class(kit: Path, tmp: Path) -> Path:
    subs = tmp / "subs"
    subs.mkdir()
    for name in ("alice", "bob"):
        shutil.copy(kit / "solutions" / "toy.ipynb", subs / f"{name}.ipynb")
    return subs


def _nothing_for_students(out: Path) -> None:
    assert not (out / "gradebook.sqlite").exists()
    assert not (out / "toy").exists() or not any((out / "toy").rglob("results.json"))
    assert not (out / "toy" / "grades.csv").exists()


@pytest.mark.parametrize("jobs", [1, 2])
def test_an_assignment_without_tests_stops_grading_and_says_so(toy_kit, tmp_path, jobs):
    """No test file at all: the master cannot be proven, with or without judges (whose reference pass is
    shared out one test file each), and the reason is said in words."""
    kit = _kit_copy(toy_kit, tmp_path)
    for test in (kit / "assignments" / "toy").glob("*/test_*.py"):
        test.unlink()
    subs = [Submission("alice", kit / "solutions" / "toy.ipynb", "alice.ipynb")]
    out = tmp_path / "out"
    try:
        with pytest.raises(MasterFailed, match="no test ran"):
            grade_class(
                load_assignment("toy", kit), subs, out=out, jobs=jobs, options=GradeOptions(isolation=RlimitsOnly())
            )
    finally:
        close_references()
    _nothing_for_students(out)


@pytest.mark.parametrize(
    "break_what, expect",
    [
        ("master", "public/test_double.py"),  # a wrong master: the double() tests fail
        ("probes", "probe"),  # a probe that raises in the master's worker
    ],
)
def test_broken_master_stops_grading_before_any_student(toy_kit, tmp_path, break_what, expect):
    kit = _kit_copy(toy_kit, tmp_path)
    subs = _class(kit, tmp_path)
    if break_what == "master":
        nb = kit / "solutions" / "toy.ipynb"
        nb.write_text(nb.read_text().replace("return x * 2", "return x * 3"))
    else:
        probes = kit / "assignments" / "toy" / "probes.py"
        probes.write_text(probes.read_text().replace('return ns["ANSWER"]', 'raise RuntimeError("probe broken")'))
    out = tmp_path / "out"
    done = _grade_cli(kit, subs, out)
    assert done.returncode == 1, done.stderr[-3000:]
    assert "grading stopped before any submission was graded" in done.stderr
    assert "the master notebook scores" in done.stderr and expect in done.stderr, done.stderr[-3000:]
    _nothing_for_students(out)


class _NoKitSandbox(RlimitsOnly):
    """A sandbox whose Python cannot import the kit (a virtualenv that points at another tree)."""

    def spawn(self, workdir, probes, limits, env, wire_limits):
        return WorkerProcess.launch(
            argv_prefix=[sys.executable, "-I", "-c", "import sys; sys.exit(\"No module named 'autograder'\")"],
            workdir=workdir,
            env=env,
            output_cap=limits.output_kb * 1024,
            limits=wire_limits,
        )


def test_master_that_cannot_run_in_the_sandbox_stops_grading(toy_kit, tmp_path):
    """The red team's case: workers cannot import the kit, which graded the whole class 0/100
    `crashed` and still exported it.  Now nobody is graded, and the reason names the worker."""
    kit = _kit_copy(toy_kit, tmp_path)
    assignment = load_assignment("toy", kit)
    subs = [Submission(n, kit / "solutions" / "toy.ipynb", f"{n}.ipynb") for n in ("alice", "bob")]
    out = tmp_path / "out"
    try:
        with pytest.raises(MasterFailed, match="master notebook scores 0/10") as err:
            grade_class(assignment, subs, out=out, options=GradeOptions(isolation=_NoKitSandbox()))
    finally:
        close_references()
    assert "No module named" in str(err.value) or "exited" in str(err.value), str(err.value)
    _nothing_for_students(out)


def test_a_reference_proven_elsewhere_does_not_vouch_for_this_run(toy_kit, tmp_path):
    """A reference held by this process from a run in a working sandbox (another results folder) must
    not let a sandbox that cannot run the kit through the gate (the full suite used to hide it)."""
    kit = _kit_copy(toy_kit, tmp_path)
    assignment = load_assignment("toy", kit)
    subs = [Submission("alice", kit / "solutions" / "toy.ipynb", "alice.ipynb")]
    try:
        ok = grade_class(assignment, subs, out=tmp_path / "first", options=GradeOptions(isolation=RlimitsOnly()))
        assert ok.reference.score == ok.reference.max_score
        with pytest.raises(MasterFailed, match="master notebook scores 0/10"):
            grade_class(assignment, subs, out=tmp_path / "second", options=GradeOptions(isolation=_NoKitSandbox()))
    finally:
        close_references()
    _nothing_for_students(tmp_path / "second")


def test_sound_master_grades_the_class(toy_kit, tmp_path):
    kit = _kit_copy(toy_kit, tmp_path)
    subs = _class(kit, tmp_path)
    out = tmp_path / "out"
    done = _grade_cli(kit, subs, out)
    assert done.returncode == 0, done.stderr[-3000:]
    assert (out / "toy" / "alice" / "results.json").is_file() and (out / "gradebook.sqlite").is_file()


def test_the_reference_pass_is_shared_by_the_judges(toy_kit, tmp_path):
    """With judges, each test file of the reference pass is a task for them (the pass used every core's
    idle time but one): this process starts no master worker, and the combined pass is the one-process
    pass, test for test and in the assignment's order."""
    from autograder.judge import session

    kit = _kit_copy(toy_kit, tmp_path)
    assignment = load_assignment("toy", kit)
    subs = [Submission("alice", kit / "solutions" / "toy.ipynb", "alice.ipynb")]
    try:
        alone = grade_class(assignment, subs, out=tmp_path / "alone", options=GradeOptions(isolation=RlimitsOnly()))
        close_references()
        shared = grade_class(
            assignment, subs, out=tmp_path / "shared", jobs=2, options=GradeOptions(isolation=RlimitsOnly())
        )
        assert not session._references, "the reference pass ran in the grader, not in the judges"
    finally:
        close_references()
    as_rows = lambda r: [(t.id, t.outcome, t.score, t.max_score) for t in r.tests]  # noqa: E731
    assert as_rows(shared.reference) == as_rows(alone.reference)
    assert [t.file for t in shared.reference.tests] == sorted(
        (t.file for t in shared.reference.tests), key=list(assignment.test_files()).index
    )
    assert len({t.file for t in shared.reference.tests}) == len(assignment.test_files()) >= 2
    assert shared.reference.score == shared.reference.max_score == 10
    assert shared.results[0].score == 10


def test_starting_the_master_is_no_tests_time(toy_kit, tmp_path):
    """The master's cells run when its worker starts, inside the first test that needs an answer; a
    student's cells run before any test.  That start must not use up the test's time limit (on a busy
    machine it did, and a sound master failed the gate)."""
    kit = _kit_copy(toy_kit, tmp_path)
    manifest = kit / "assignments" / "toy" / "manifest.toml"
    manifest.write_text(manifest.read_text().replace("test_timeout = 5", "test_timeout = 2"))
    nb = kit / "solutions" / "toy.ipynb"
    edit(nb, nb, insert={0: "import time\ntime.sleep(3)"})
    assignment = load_assignment("toy", kit)
    try:
        # two judges: the largest test file (hidden/test_double.py, several calls) is the first task, so
        # the master starts inside a test that calls again after the start
        run = grade_class(assignment, [], out=tmp_path / "out", jobs=2, options=GradeOptions(isolation=RlimitsOnly()))
    finally:
        close_references()
    assert run.reference.score == run.reference.max_score == 10


def test_a_judge_stops_the_masters_worker_once_students_come(toy_kit, tmp_path):
    """A share of the reference pass starts the master's worker in the judge; its answers are cached, so
    the judge stops it before its first student (else each judge would hold two workers for the class)."""
    from autograder import pipeline
    from autograder.judge import session

    kit = _kit_copy(toy_kit, tmp_path)
    assignment = load_assignment("toy", kit)
    options = GradeOptions(isolation=RlimitsOnly(), cache_dir=tmp_path / "cache")
    try:
        for f in assignment.test_files():  # the whole pass, as the judges share it
            share = pipeline._judge_reference(str(kit), "toy", options, [f])
            assert share["score"] == share["max_score"] > 0
        running = lambda: [r for r in session._references.values() if r._runner is not None]  # noqa: E731
        assert running(), "the share should have started the master's worker"
        sub = Submission("alice", kit / "solutions" / "toy.ipynb", "alice.ipynb")
        record = pipeline._judge(str(kit), "toy", sub, options)
        assert not running() and record["score"] == record["max_score"] == 10
    finally:
        close_references()


def test_judges_that_only_shared_the_pass_leave_nothing_behind(toy_kit, tmp_path, monkeypatch):
    """A class with no student to grade: each judge ends holding the master's worker its share started,
    and stops it (with its scratch folder) as it exits, before the zygote goes.  Its workers' cgroups are
    told from a neighbour's (another grading on the host: its live workers have groups too) by the process
    cap they carry, which this kit's copy sets to a value of its own."""
    import tempfile

    from autograder.execute.scratch import PREFIXES

    work = tmp_path / "work"
    work.mkdir()
    monkeypatch.setenv("TMPDIR", str(work))
    monkeypatch.setattr(tempfile, "tempdir", str(work))
    kit = _kit_copy(toy_kit, tmp_path)
    manifest = kit / "assignments" / "toy" / "manifest.toml"
    manifest.write_text(manifest.read_text().replace("[limits]\n", f"[limits]\nprocesses = {_MARK}\n", 1))
    assert load_assignment("toy", kit).limits.processes == _MARK  # else no group carries the mark: nothing to find
    options = GradeOptions()
    try:
        run = grade_class(load_assignment("toy", kit), [], out=tmp_path / "out", jobs=2, options=options)
    finally:
        close_references()
        options.isolation.close()
    assert run.reference.score == run.reference.max_score == 10
    left = [p.name for p in work.iterdir() if p.name.startswith(PREFIXES)]
    assert left == [], f"scratch left behind by the judges: {left}"
    assert _marked_cgroups() == [], "the master's workers' cgroups were left behind"


_MARK = 251  # a worker process cap no assignment uses: the groups of this test's workers carry it


def _marked_cgroups() -> list[str]:
    """The per-worker cgroups (cgroup v1 controllers or v2) of workers started with `_MARK` as their process cap,
    as they are now: the `pids` group holds the cap, a v1 `memory` group has the same name."""
    root = Path("/sys/fs/cgroup")
    groups = [p for pattern in ("*/autograder/*", "autograder/*") for p in root.glob(pattern) if p.is_dir()]

    def cap(g: Path) -> str:
        try:
            return (g / "pids.max").read_text().strip()
        except OSError:  # a v1 memory group, or one removed since the glob
            return ""

    ours = {g.name for g in groups if cap(g) == str(_MARK)}
    return sorted(str(g) for g in groups if g.name in ours)


def test_a_master_passed_for_this_version_is_not_graded_again(toy_kit, tmp_path, monkeypatch):
    """A later run on the same results folder (a resubmission, a regrade) reads the kept reference pass of
    this assignment version, isolation and grader instead of grading the master again; a change of the
    assignment (a new version) grades it again, and a master that fails is never kept."""
    from autograder.judge import session

    kit = _kit_copy(toy_kit, tmp_path)
    subs = [Submission("alice", kit / "solutions" / "toy.ipynb", "alice.ipynb")]
    passes = []
    real = session.grade_notebook

    def counted(*args, **kwargs):
        if kwargs.get("as_reference"):
            passes.append(kwargs.get("test_files"))
        return real(*args, **kwargs)

    monkeypatch.setattr(session, "grade_notebook", counted)
    options = lambda: GradeOptions(isolation=RlimitsOnly())  # noqa: E731
    try:
        first = grade_class(load_assignment("toy", kit), subs, out=tmp_path / "out", options=options(), force=True)
        assert len(passes) == 1
        again = grade_class(load_assignment("toy", kit), subs, out=tmp_path / "out", options=options(), force=True)
        assert len(passes) == 1 and again.reference.score == first.reference.score == first.reference.max_score
        assert again.results[0].score == 10
        nb = kit / "solutions" / "toy.ipynb"  # a new version: the master is graded, and fails, and is not kept
        edit(nb, nb, insert={0: "raise RuntimeError('broken')"})
        for _ in range(2):
            with pytest.raises(MasterFailed):
                grade_class(load_assignment("toy", kit), subs, out=tmp_path / "out", options=options(), force=True)
        assert len(passes) == 3
    finally:
        close_references()
