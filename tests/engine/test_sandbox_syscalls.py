"""What a worker may not ask the kernel for (`autograder/execute/syscalls.py`), under both sandboxes.

Each refusal closes a way around a bound that holds elsewhere: a user namespace of its own (a tmpfs
that `disk_mb` does not bound), a smaller CPU share of its own (a lower priority, fewer CPUs: kept from
the CPU by itself, it would be taken for a starved host, retried and left provisional).  What ordinary code needs still works.
"""
import pytest

from autograder.execute import syscalls
from autograder.execute.limits import Limits
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
        "torch.set_num_threads(2)\nassert (torch.ones(256, 256) @ torch.ones(256, 256))[0, 0] == 256")
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
    "assert os.sched_getaffinity(0) and os.getpriority(os.PRIO_PROCESS, 0) == NICE")


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


def test_the_filter_refuses_what_it_says_and_allows_the_rest():
    """The filter, run by a small interpreter of its instructions: each rule's syscall is refused as
    documented, unshare/clone only with CLONE_NEWUSER, another ABI always, everything else allowed."""
    for machine, (arch, nr) in syscalls._ARCHES.items():
        prog = syscalls.program(machine)

        def verdict(number: int, arg0: int = 0, audit_arch: int = arch) -> int:
            data = {4: audit_arch, 0: number, 16: arg0}
            acc, pc = 0, 0
            while True:
                code, jt, jf, k = prog[pc]
                if code == 0x20:
                    acc = data[k]
                elif code == 0x54:
                    acc &= k
                elif code == 0x06:
                    return k
                elif code in (0x15, 0x35):
                    pc += jt if (acc == k if code == 0x15 else acc >= k) else jf
                pc += 1

        eperm, enosys, allow = 0x00050001, 0x00050026, 0x7FFF0000
        for name in ("setpriority", "sched_setscheduler", "sched_setattr", "sched_setaffinity"):
            assert verdict(nr[name]) == eperm, (machine, name)
        assert verdict(nr["clone3"]) == enosys
        for name in ("unshare", "clone"):
            assert verdict(nr[name], syscalls.CLONE_NEWUSER | 0x11) == eperm
            assert verdict(nr[name], 0x11) == allow
        assert verdict(0x40000000 + 1) == enosys and verdict(1, audit_arch=0x40000003) == enosys
        assert all(verdict(n) == allow for n in range(0, 460) if n not in nr.values())
