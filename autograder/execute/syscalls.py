"""What a worker may not ask the kernel for: one seccomp filter, installed before student code runs.

Each rule closes a way for a notebook to escape a bound that holds elsewhere:

* a user namespace of its own (`unshare`/`clone` with CLONE_NEWUSER: EPERM; `clone3`: ENOSYS, so libc
  falls back to `clone`): in one it could mount a tmpfs that `disk_mb` does not bound;
* a smaller share of the CPU of its own making: a lower priority (`setpriority`, `sched_setscheduler`,
  `sched_setattr`) or fewer CPUs (`sched_setaffinity`), all EPERM.  A worker that missed a deadline while
  other work kept it from the CPU is retried as a starved host (`runner.host_starved`); one that made
  itself `nice 19` or `SCHED_IDLE`, or pinned itself to a busy CPU, would be kept from the CPU by its
  own doing and be retried, then left provisional, a status of the grader's;
* every syscall of another ABI (x32, i386: ENOSYS), which would go around the numbers above.

On machines other than x86-64 and arm64 nothing is filtered: the memory cgroup (`memory_mb`) still
bounds a tmpfs, and a deprioritized worker is at worst graded again.
"""
from __future__ import annotations

import ctypes
import os

CLONE_NEWUSER = 0x10000000
# native arch -> (AUDIT_ARCH_*, {name: syscall number})
_ARCHES = {
    "x86_64": (0xC000003E, {"unshare": 272, "clone": 56, "clone3": 435, "setpriority": 141,
                            "sched_setscheduler": 144, "sched_setattr": 314, "sched_setaffinity": 203}),
    "aarch64": (0xC00000B7, {"unshare": 97, "clone": 220, "clone3": 435, "setpriority": 140,
                             "sched_setscheduler": 119, "sched_setattr": 274, "sched_setaffinity": 122}),
}
_RETURNS = {"allow": 0x7FFF0000, "eperm": 0x00050000 | 1, "enosys": 0x00050000 | 38}  # SECCOMP_RET_*, by label
_LD, _JEQ, _JGE, _AND, _RET = 0x20, 0x15, 0x35, 0x54, 0x06
_ARCH_AT, _NR_AT, _ARG0_AT = 4, 0, 16  # offsets in struct seccomp_data
_X32 = 0x40000000
_REFUSED = {"clone3": "enosys", "setpriority": "eperm", "sched_setscheduler": "eperm", "sched_setattr": "eperm",
            "sched_setaffinity": "eperm"}
_NEWUSER_FLAG_AT = ("unshare", "clone")  # refused only with CLONE_NEWUSER in their first argument


_libc = ctypes.CDLL(None, use_errno=True)


def check(ret: int, what: str) -> None:
    """Raise the OSError of a libc call that returned non-zero."""
    if ret != 0:
        err = ctypes.get_errno()
        raise OSError(err, f"{what}: {os.strerror(err)}")


class _SockFilter(ctypes.Structure):
    _fields_ = [("code", ctypes.c_uint16), ("jt", ctypes.c_uint8), ("jf", ctypes.c_uint8), ("k", ctypes.c_uint32)]


class _SockFprog(ctypes.Structure):
    _fields_ = [("len", ctypes.c_uint16), ("filter", ctypes.POINTER(_SockFilter))]


def program(machine: str) -> list[tuple[int, int, int, int]]:
    """The filter for `machine` as (code, jt, jf, k) instructions.  Written with labels (a jump names
    the label it goes to; None: the next instruction) and resolved here, so a rule is one line."""
    arch, nr = _ARCHES[machine]
    lines: list[tuple] = [(_LD, _ARCH_AT), (_JEQ, arch, None, "enosys"), (_LD, _NR_AT), (_JGE, _X32, "enosys", None)]
    lines += [(_JEQ, nr[name], how, None) for name, how in _REFUSED.items()]
    lines += [(_JEQ, nr[name], "flags", None) for name in _NEWUSER_FLAG_AT]
    lines += [(_RET, _RETURNS["allow"]), "flags", (_LD, _ARG0_AT), (_AND, CLONE_NEWUSER), (_JEQ, 0, "allow", "eperm")]
    for label, value in _RETURNS.items():
        lines += [label, (_RET, value)]
    at: dict[str, int] = {}
    code: list[tuple] = []
    for line in lines:
        if isinstance(line, str):
            at[line] = len(code)
        else:
            code.append(line)
    out = []
    for i, ins in enumerate(code):
        if ins[0] == _JEQ or ins[0] == _JGE:
            jt, jf = ((0 if t is None else at[t] - i - 1) for t in ins[2:])
            out.append((ins[0], jt, jf, ins[1]))
        else:
            out.append((ins[0], 0, 0, ins[1]))
    return out


def restrict() -> None:
    """Install the filter on this thread (and whatever it starts); it cannot be removed."""
    if os.uname().machine not in _ARCHES:
        return
    prog = program(os.uname().machine)
    filters = (_SockFilter * len(prog))(*[_SockFilter(*i) for i in prog])
    check(_libc.prctl(38, 1, 0, 0, 0), "no_new_privs")  # PR_SET_NO_NEW_PRIVS
    check(_libc.prctl(22, 2, ctypes.byref(_SockFprog(len(prog), filters)), 0, 0), "seccomp")  # SECCOMP_MODE_FILTER
