"""What a worker may not ask the kernel for (`autograder/execute/syscalls.py`), under both sandboxes.

Each refusal closes a way around a bound that holds elsewhere: a user namespace of its own (a tmpfs
that `disk_mb` does not bound), a smaller CPU share of its own (a lower priority, fewer CPUs: kept from
the CPU by itself, it would be taken for a starved host, retried and left provisional).  What ordinary code needs still works.
"""

import pytest

from autograder.config.limits import Limits
from autograder.execute import syscalls
from autograder.execute.runner import NotebookRunner
from autograder.notebook.parse import Cell

LIMITS = Limits(cell_timeout=20, submission_timeout=120, max_restarts=1)


def _run(isolation, code: str):
    with NotebookRunner([Cell(index=1, source=code)], probes=None, limits=LIMITS, isolation=isolation) as runner:
        runner.execute()
        (rec,) = runner.cell_records
    return rec


@pytest.mark.parametrize("kind", ["warm", "cold"])
def test_no_user_namespace_of_its_own(sandbox, kind):
    """Refused by syscall and through `unshare(1)`, while threads, processes and torch's thread pool
    still start."""
    code = (
        "import ctypes, subprocess, threading, torch\nlibc = ctypes.CDLL(None, use_errno=True)\n"
        "assert libc.unshare(0x10000000) != 0 and ctypes.get_errno() == 1  # CLONE_NEWUSER: EPERM\n"
        "r = subprocess.run(['unshare', '--user', '--map-root-user', '--mount', 'true'], capture_output=True)\n"
        "assert r.returncode != 0, r\n"
        "assert subprocess.run(['true']).returncode == 0\n"
        "t = threading.Thread(target=print, args=('thread ok',))\nt.start()\nt.join()\n"
        "torch.set_num_threads(2)\nassert (torch.ones(256, 256) @ torch.ones(256, 256))[0, 0] == 256"
    )
    rec = _run(sandbox(kind), code)
    assert rec.status == "ok", rec.error


SMALLER_SHARE = (
    "import ctypes, os, subprocess, threading\nlibc = ctypes.CDLL(None, use_errno=True)\n"
    "def refused(f, *a):\n"
    "    try:\n        f(*a)\n    except PermissionError:\n        return True\n    return False\n"
    "def all_refused():\n"
    "    assert refused(os.nice, 19) and refused(os.setpriority, os.PRIO_PROCESS, 0, 19)\n"
    "    assert refused(os.setpriority, os.PRIO_PGRP, 0, 19) and refused(os.setpriority, os.PRIO_USER, os.getuid(), 19)\n"
    "    for policy in (os.SCHED_IDLE, os.SCHED_BATCH):\n"
    "        assert refused(os.sched_setscheduler, 0, policy, os.sched_param(0))\n"
    "    attr = (ctypes.c_uint32 * 12)(48, 5)  # struct sched_attr: size 48, SCHED_IDLE\n"
    "    assert libc.syscall({setattr}, 0, attr, 0) != 0 and ctypes.get_errno() == 1\n"
    "    assert refused(os.sched_setaffinity, 0, {min(CPUS)})\n"
    "    assert os.getpriority(os.PRIO_PROCESS, 0) == NICE and os.sched_getscheduler(0) == os.SCHED_OTHER\n"
    "    assert os.sched_getaffinity(0) == CPUS\n"
    "NICE, CPUS = os.getpriority(os.PRIO_PROCESS, 0), os.sched_getaffinity(0)\n"
    "all_refused()\n"
    "t = threading.Thread(target=all_refused)\nt.start()\nt.join()\n"
    "pid = os.fork()\n"
    "if pid == 0:\n    all_refused()\n    os._exit(0)\n"
    "assert os.waitpid(pid, 0)[1] == 0\n"
    "r = subprocess.run(['nice', '-n', '19', 'nice'], capture_output=True, text=True)  # it warns, runs it as it is\n"
    "assert r.stdout.split() == [str(NICE)] and 'cannot set niceness' in r.stderr, r\n"
    "assert subprocess.run(['chrt', '--idle', '0', 'true']).returncode != 0\n"
    "assert subprocess.run(['taskset', '-p', '1', str(os.getpid())], capture_output=True).returncode != 0\n"
    "assert os.sched_getaffinity(0) and os.getpriority(os.PRIO_PROCESS, 0) == NICE"
)


@pytest.mark.parametrize("kind", ["warm", "cold"])
def test_no_smaller_cpu_share_of_its_own(sandbox, kind):
    """`nice`, `setpriority` (of itself, its group, its user), `sched_setscheduler` and `sched_setattr` to
    SCHED_IDLE or SCHED_BATCH, and `sched_setaffinity` to one CPU, are refused in the worker, its threads
    and its children: a worker kept from the CPU is kept by the host, never by itself
    (`runner.host_starved`)."""
    import os

    if os.uname().machine not in ("x86_64", "aarch64"):
        pytest.skip("no seccomp filter on this machine")
    setattr_nr = {"x86_64": 314, "aarch64": 274}[os.uname().machine]
    rec = _run(sandbox(kind), SMALLER_SHARE.replace("{setattr}", str(setattr_nr)))
    assert rec.status == "ok", rec.error


def _interpreter(prog):
    """Run the filter on one syscall, as the kernel does (the instructions the filter uses)."""

    def verdict(audit_arch: int, number: int, arg0: int = 0) -> int:
        data = {4: audit_arch, 0: number, 16: arg0 & 0xFFFFFFFF}
        acc, pc = 0, 0
        while True:
            code, jt, jf, k = prog[pc]
            if code == 0x20:
                acc = data[k]
            elif code == 0x54:
                acc &= k
            elif code == 0x06:
                return k
            elif code == 0x05:
                pc += k
            elif code in (0x15, 0x35):
                pc += jt if (acc == k if code == 0x15 else acc >= k) else jf
            else:
                raise AssertionError(f"unknown instruction {code:#x}")
            pc += 1

    return verdict


EPERM, ENOSYS, ALLOW = 0x00050001, 0x00050026, 0x7FFF0000


def test_the_filter_allows_its_list_and_refuses_the_rest():
    """The filter, run by a small interpreter of its instructions, on every syscall number of both native
    tables: the allowlist allowed, the calls taken out of Docker's list and everything else refused (EPERM),
    `clone` only without namespace flags, `socket` but AF_VSOCK, `personality` only Docker's values, `clone3`
    and numbers past the table ENOSYS, another ABI always ENOSYS."""
    for machine, (arch, nr) in syscalls._ARCHES.items():
        verdict = _interpreter(syscalls.program(machine))
        expected = {n: EPERM for n in range(syscalls.NEWEST + 1)}
        expected.update({nr[name]: ALLOW for name in syscalls._ALLOWED if name in nr})
        expected[nr["clone3"]] = ENOSYS
        for name in ("clone", "socket", "personality"):
            del expected[nr[name]]
        assert all(verdict(arch, n) == v for n, v in expected.items()), machine
        for name in (
            "add_key",
            "keyctl",
            "request_key",
            "io_uring_setup",
            "io_uring_enter",
            "io_setup",
            "userfaultfd",
            "perf_event_open",
            "bpf",
            "fanotify_init",
            "mount",
            "setns",
            "unshare",
            "setpriority",
            "sched_setscheduler",
            "sched_setattr",
            "sched_setaffinity",
        ):
            assert verdict(arch, nr[name]) == EPERM, (machine, name)
        for name in (
            "read",
            "write",
            "futex",
            "openat",
            "mmap",
            "execve",
            "wait4",
            "shmget",
            "mq_open",
            "vfork" if machine == "x86_64" else "read",
        ):
            assert verdict(arch, nr[name]) == ALLOW, (machine, name)
        clone = nr["clone"]
        assert verdict(arch, clone, 0x11 | 0x100 | 0x4000) == ALLOW  # SIGCHLD | CLONE_VM | CLONE_VFORK
        for flag in (0x10000000, 0x20000000, 0x40000000, 0x08000000, 0x04000000, 0x02000000, 0x00020000):
            assert verdict(arch, clone, 0x11 | flag) == EPERM, hex(flag)
        assert verdict(arch, nr["socket"], 1) == ALLOW and verdict(arch, nr["socket"], 40) == EPERM
        assert all(verdict(arch, nr["personality"], p) == ALLOW for p in syscalls.PERSONALITIES)
        assert verdict(arch, nr["personality"], 0x0040000) == EPERM  # ADDR_NO_RANDOMIZE
        for n in (syscalls.NEWEST + 1, 1000, 0x40000000 + 1, 0xFFFFFFFF):
            assert verdict(arch, n) == ENOSYS
        assert verdict(0x40000003, nr["read"]) == ENOSYS  # i386


def test_the_tables_match_the_kernel_headers():
    """The x86-64 numbers agree with this machine's kernel headers, where they are installed."""
    import re
    from pathlib import Path

    header = Path("/usr/include/x86_64-linux-gnu/asm/unistd_64.h")
    if not header.exists():
        pytest.skip("no x86-64 kernel headers here")
    known = {m[1]: int(m[2]) for m in re.finditer(r"#define __NR_(\w+)\s+(\d+)", header.read_text())}
    table = syscalls._ARCHES["x86_64"][1]
    assert {k: v for k, v in table.items() if k in known} == {k: known[k] for k in table if k in known}
    assert all(v >= 451 or k == "uretprobe" for k, v in table.items() if k not in known)


CURRICULUM_NEEDS = r'''
import ctypes, multiprocessing, os, subprocess, tempfile, threading
os.environ["TRITON_INTERPRET"] = "1"  # as 02b_kernels does without a GPU
import numpy as np, torch, pytest
import triton, triton.language as tl

here = tempfile.mkdtemp()
with open(os.path.join(here, "k.c"), "w") as f:
    f.write("void scale(float *x, int n, float a) { for (int i = 0; i < n; i++) x[i] *= a; }\n")
subprocess.run(["cc", "-O2", "-shared", "-fPIC", "-o", os.path.join(here, "k.so"), os.path.join(here, "k.c")], check=True)
x = np.arange(4, dtype=np.float32)
ctypes.CDLL(os.path.join(here, "k.so")).scale(x.ctypes.data_as(ctypes.POINTER(ctypes.c_float)), 4, ctypes.c_float(2))
assert x.tolist() == [0, 2, 4, 6]

@triton.jit
def add_one(x_ptr, out_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    tl.store(out_ptr + offs, tl.load(x_ptr + offs, mask=offs < n) + 1, mask=offs < n)

t = torch.arange(10.0)
out = torch.empty(10)
add_one[(1,)](t, out, 10, BLOCK=16)
assert torch.equal(out, t + 1)

torch.set_num_threads(2)
assert (torch.ones(128, 128) @ torch.ones(128, 128))[0, 0] == 128
threads = [threading.Thread(target=lambda: None) for _ in range(16)]
for th in threads: th.start()
for th in threads: th.join()
with multiprocessing.get_context("fork").Pool(2) as pool:
    assert pool.map(abs, [-1, -2]) == [1, 2]
with open(os.path.join(here, "test_it.py"), "w") as f:
    f.write("def test_ok():\n    assert 1 + 1 == 2\n")
assert pytest.main(["-q", "-p", "no:cacheprovider", os.path.join(here, "test_it.py")]) == 0
print("CURRICULUM OK", flush=True)
'''


@pytest.mark.parametrize("kind", ["warm", "cold"])
def test_what_the_curriculum_needs_runs_under_the_allowlist(sandbox, kind):
    """`cc` compiling a C kernel and ctypes calling it, a Triton kernel in the CPU interpreter, torch's thread
    pool, threads, a process pool, pytest: all allowed (Docker's profile was written for what programs do)."""
    import os

    if os.path.exists("/dev/nvidia0"):
        pytest.skip("the Triton kernel here is for the CPU interpreter")
    with NotebookRunner(
        [Cell(index=1, source=CURRICULUM_NEEDS)], probes=None, limits=LIMITS, isolation=sandbox(kind)
    ) as runner:
        runner.execute()
        (rec,) = runner.cell_records
        printed = runner.worker.stdout.text() if runner.worker else ""
    assert rec.status == "ok", rec.error
    assert "CURRICULUM OK" in runner.stdout + printed
