"""Grade the whole attack corpus (tests/attacks/corpus.py) in one batch, under the real sandbox.

One `grade_class(..., jobs=2)` call grades every hostile notebook plus two honest ones (a
copy of the master and a "victim" other attacks try to read and overwrite).  Then:

* one test per attack: the score its honest answers earn, the status, the message, extra checks;
* side effects: no file written outside the workers' folders, kit/results/classmate files
  unchanged, the listener never got a connection, nothing unpickled, the secret nowhere in the
  results, no process, cgroup or work folder left behind, the grader and the honest
  submissions unaffected.

Bubblewrap is required: without it this module FAILS (it does not skip).
"""

from __future__ import annotations

import hashlib
import json
import os
import socket
import sqlite3
import tempfile
import time
from pathlib import Path

import nbformat
import pytest
import torch

from autograder.config.assignment import load_assignment
from autograder.execute.sandbox import Bubblewrap
from autograder.intake.submissions import Submission, collect
from autograder.judge.session import GradeOptions, close_references
from autograder.pipeline import grade_class
from tests.attacks.corpus import Ctx, attacks
from tests.attacks.listener import Listener
from tests.attacks.spy import recording

ATTACKS = attacks()
ROOT = Path(__file__).resolve().parents[2]


def host_ips() -> list[str]:
    ips = set()
    try:
        u = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
        u.connect(("10.255.255.255", 1))
        ips.add(u.getsockname()[0])
        u.close()
    except OSError:
        pass
    try:
        ips.update(socket.gethostbyname_ex(socket.gethostname())[2])
    except OSError:
        pass
    return sorted(ip for ip in ips if not ip.startswith("127."))


def digest(paths: list[Path]) -> dict[str, str]:
    return {str(p): hashlib.sha256(p.read_bytes()).hexdigest() for p in paths if p.is_file()}


def procs_under(root: Path) -> list[str]:
    """Live processes whose cwd or command line is inside `root` (our workers and bwraps)."""
    found = []
    for d in Path("/proc").iterdir():
        if not d.name.isdigit() or int(d.name) == os.getpid():
            continue
        try:
            cwd = os.readlink(d / "cwd")
            cmd = (d / "cmdline").read_bytes().replace(b"\0", b" ").decode(errors="replace")
        except OSError:
            continue
        if cwd.startswith(str(root)) or str(root) in cmd:
            found.append(f"{d.name}: {cmd[:200]} (cwd {cwd})")
    return found


@pytest.fixture(scope="module")
def batch(toy_kit: Path, tmp_path_factory: pytest.TempPathFactory):
    if not Bubblewrap.available():
        pytest.fail("bubblewrap (bwrap) is not available: the attack corpus must run under the real sandbox")
    default = GradeOptions().isolation  # the grader's default: bubblewrap (warm where it runs as root)
    assert default.name.startswith("bubblewrap"), default.name
    tmp = tmp_path_factory.mktemp("attacks")
    nbs, out, marker, scratch, work = (tmp / n for n in ("notebooks", "results", "markers", "scratch", "work"))
    for d in (nbs, out, marker, scratch, work):
        d.mkdir()
    assignment = load_assignment("toy_attacks", toy_kit)
    victim_dir = tmp / "classmate"
    victim_dir.mkdir()
    master_nb = nbformat.read(assignment.solution, as_version=4)
    master_nb.cells.insert(1, nbformat.v4.new_markdown_cell("VICTIM-7f3a (a classmate's private notes)"))
    master_nb.cells[1]["id"] = "victim-note"
    victim = victim_dir / "victim.ipynb"
    nbformat.write(master_nb, victim)

    listener = Listener()
    secret = "ag-secret-" + os.urandom(8).hex()
    saved_env = {k: os.environ.get(k) for k in ("AUTOGRADER_SECRET", "TMPDIR")}
    saved_tempdir = tempfile.tempdir
    os.environ["AUTOGRADER_SECRET"] = secret
    os.environ["TMPDIR"] = str(work)  # work folders of every worker (judge processes inherit it)
    tempfile.tempdir = str(work)
    ctx = Ctx(
        tmp=nbs,
        master=assignment.solution,
        kit=toy_kit,
        out=out,
        marker_dir=marker,
        victim=victim,
        port=listener.port,
        host_ips=host_ips(),
        secret=secret,
        intake_scratch=scratch,
    )

    guarded = sorted(
        p
        for p in [*assignment.root.rglob("*"), assignment.solution, victim, ROOT / "autograder" / "__init__.py"]
        if p.is_file() and "__pycache__" not in p.parts
    )
    before = digest(guarded)

    subs: list[Submission] = [
        Submission("master_copy", assignment.solution, "toy_attacks.ipynb"),
        Submission("victim", victim, "victim.ipynb"),
    ]
    owner: dict[str, str] = {}  # submission id -> attack name
    for a in ATTACKS:
        built = a.build(ctx)
        if a.intake:
            found = collect([built], scratch)
            assert len(found) == a.count, (a.name, found)
            for s in found:
                owner[s.id] = a.name
            subs += found
        else:
            subs.append(Submission(a.name, built, built.name))
            owner[a.name] = a.name

    log = tmp / "sandbox-log.jsonl"
    options = GradeOptions(isolation=recording(default, log))
    t0 = time.monotonic()
    try:
        run = grade_class(assignment, subs, out=out, jobs=2, options=options)
    finally:
        close_references()
        options.isolation.close()
        elapsed = time.monotonic() - t0
        listener.close()
        tempfile.tempdir = saved_tempdir
        for k, v in saved_env.items():
            if v is None:
                os.environ.pop(k, None)
            else:
                os.environ[k] = v
    print(f"\nattack batch: {len(subs)} submissions graded in {elapsed:.0f} s")
    by_attack: dict[str, list] = {}
    for r in run.results:
        if r.submission_id in owner:
            by_attack.setdefault(owner[r.submission_id], []).append(r)
    records = [json.loads(line) for line in log.read_text().splitlines()] if log.exists() else []
    return {
        "run": run,
        "by_attack": by_attack,
        "ctx": ctx,
        "out": out,
        "tmp": tmp,
        "work": work,
        "listener": listener,
        "guarded_before": before,
        "guarded": guarded,
        "records": records,
        "scratch": scratch,
        "isolation": default.name,
        "results": {r.submission_id: r for r in run.results},
        "elapsed": elapsed,
    }


def _params() -> list:
    return [
        pytest.param(a, id=a.name, marks=[pytest.mark.xfail(strict=True, reason=a.xfail)] if a.xfail else [])
        for a in ATTACKS
    ]


@pytest.mark.parametrize("attack", _params())
def test_attack_earns_only_honest_credit(batch, attack):
    results = batch["by_attack"].get(attack.name)
    assert results and len(results) == attack.count, f"{attack.name} was not graded"
    for r in results:
        detail = (
            f"{attack.name} ({attack.tries}): {r.status} {r.score}/{r.max_score} {r.message!r}; "
            + "; ".join(f"{t.id}={t.outcome}: {t.message[:120]}" for t in r.tests)
            + " | cells: "
            + "; ".join(f"{c.cell}:{c.status}:{c.type}:{c.message[:80]}" for c in r.cells)
        )
        score, status, message = attack.expect(r)
        assert r.score == score, detail
        allowed = status if isinstance(status, tuple) else (status,)
        assert r.status in allowed, detail
        assert message in r.message, detail
        assert r.environment["isolation"] == batch["isolation"]
        folder = batch["out"] / "toy_attacks" / r.submission_id
        on_disk = json.loads((folder / "results.json").read_text())
        assert on_disk["score"] == score and on_disk["status"] == r.status
        for check in attack.checks:
            check(r, batch["ctx"])


def test_honest_submissions_and_reference_unaffected(batch):
    res = batch["results"]
    assert batch["run"].reference.score == 10
    for sid in ("master_copy", "victim"):
        assert res[sid].score == 10 and res[sid].status == "graded", res[sid]
    assert not any(r.status == "crashed" and "grader itself failed" in r.message for r in res.values()), [
        r.submission_id for r in res.values() if "grader itself failed" in r.message
    ]
    # the trusted process is still the trusted process
    assert not torch.allclose(torch.zeros(1), torch.ones(1))
    assert os.environ.get("AUTOGRADER_SECRET") != batch["ctx"].secret


def test_no_files_changed_or_planted_outside_the_sandbox(batch):
    ctx, tmp = batch["ctx"], batch["tmp"]
    assert digest(batch["guarded"]) == batch["guarded_before"], "a kit / classmate / grader file changed"
    assert list(ctx.marker_dir.iterdir()) == [], "student code ran outside the sandbox (pickle/.pth/conftest/...)"
    planted = [
        ctx.out / "AG_PWNED",
        ctx.out / "toy_attacks" / "AG_PWNED",
        Path("/work/main/results/AG_PWNED"),
        ROOT / "AG_PWNED",
        ctx.kit / "solutions" / "AG_PWNED",
        ctx.kit / "assignments" / "toy_attacks" / "hidden" / "AG_PWNED.py",
        ROOT / "autograder" / "AG_PWNED.py",
        Path("/AG_PWNED"),
        Path("/tmp/AG_PWNED"),
        tmp / "AG_PWNED",
        tmp.parent / "AG_PWNED",
        batch["work"] / "AG_PWNED",
        tmp / "AG_PWNED_zip.ipynb",
        tmp.parent / "AG_PWNED_zip.ipynb",
        Path("/tmp/AG_PWNED_abs.ipynb"),
        Path("/AG_PWNED_zip.ipynb"),
    ]
    import site

    for sp in {*site.getsitepackages(), str(Path(torch.__file__).parents[1])}:
        planted += [Path(sp) / "AG_PWNED.pth", Path(sp) / "ag_attack.pth"]
    assert [p for p in planted if p.exists()] == []
    # intake kept every zip member inside the scratch folder, with safe ids
    zipped = [r for r in batch["by_attack"]["zip_traversal"] + batch["by_attack"]["unicode_filename"]]
    for r in zipped:
        assert r.submission_id.isascii() and "/" not in r.submission_id and not r.submission_id.startswith(".")
    extracted = [p for p in batch["scratch"].rglob("*") if p.is_file()]
    assert all(p.resolve().is_relative_to(batch["scratch"].resolve()) for p in extracted)
    assert len([p for p in extracted if p.parent.name == "traversal.zip"]) == 4
    # the gradebook is intact and holds every submission
    con = sqlite3.connect(ctx.out / "gradebook.sqlite")
    assert con.execute("PRAGMA integrity_check").fetchone()[0] == "ok"
    assert con.execute("SELECT COUNT(*) FROM submissions").fetchone()[0] == len(batch["results"])
    con.close()


def test_listener_never_got_a_connection(batch):
    assert batch["listener"].peers == []


def test_secret_and_grader_environment_never_reach_results(batch):
    secret = batch["ctx"].secret.encode()
    for f in batch["out"].rglob("*"):
        if f.is_file():
            assert secret not in f.read_bytes(), f"the course secret leaked into {f}"
    for r in batch["results"].values():
        assert batch["ctx"].secret not in json.dumps(r.to_record())


def test_nothing_left_behind(batch):
    work = batch["work"]
    deadline = time.monotonic() + 10  # killed namespaces may take a moment to be reaped
    while procs_under(work) and time.monotonic() < deadline:
        time.sleep(0.2)
    assert procs_under(work) == []
    records = batch["records"]
    assert records, "the sandbox log is empty: no worker was started through the recording sandbox"
    assert [r["workdir"] for r in records if Path(r["workdir"]).exists()] == []
    groups = [g for r in records for g in r["groups"]]
    left = [g for g in groups if Path(g).exists()]
    assert left == [], f"{len(left)} of {len(groups)} cgroups left behind, e.g. {left[:3]}"
    assert [p for p in work.iterdir() if p.name.startswith("ag-work-")] == [], "work folders left behind"
    for d in work.glob("ag-zygote-*"):  # warm sandbox: no worker folder may be left inside
        assert list(d.iterdir()) == [], f"worker folders left in {d}"


def test_no_zygote_scratch_left_behind(batch):
    # regression test for ENGINE BUG 3 (found by this corpus, fixed: isolations close when their process ends);
    # since then every kit scratch folder (execute/scratch.py: workdirs, task copies...) must be gone too
    from autograder.execute.scratch import PREFIXES

    assert [p.name for p in batch["work"].iterdir() if p.name.startswith(PREFIXES)] == []


def test_batch_time(batch):
    # a hang guard, not a benchmark: CI has 2 cores and the corpus is budgeted at ~4 minutes on an
    # idle machine; on a machine loaded ~5x it took 18 minutes
    assert batch["elapsed"] < 1500, batch["elapsed"]
