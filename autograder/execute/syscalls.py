"""What a worker may ask the kernel for: one seccomp filter, an allowlist, installed before student code runs.

The list is the default profile of Docker and containerd (moby/profiles, `seccomp/default.json`: the calls
it allows a container without added capabilities, its `clone` flag rule, its `socket` and `personality`
argument rules, `clone3` answered ENOSYS so libc falls back to `clone`), less what a worker must not share
with, or take from, other workers and the host:

* the kernel's keyrings (`add_key`, `keyctl`, `request_key`): a user's keyring outlives every process of
  that user, so a key one worker stored would be found by a later one;
* Linux AIO (`io_setup` and its calls): its event count is host-wide (`fs.aio-max-nr`), one worker could
  take all of it;
* a smaller share of the CPU of its own making: a lower priority (`setpriority`, `sched_setscheduler`,
  `sched_setattr`) or fewer CPUs (`sched_setaffinity`).  A worker that missed a deadline while other work
  kept it from the CPU is retried as a starved host (`runner.host_starved`); one that made itself
  `nice 19` or `SCHED_IDLE`, or pinned itself to a busy CPU, would be kept from the CPU by its own doing.

Besides, as in Docker, no new namespace of any kind (`unshare`, `setns`, `clone` with a namespace flag: in a
user namespace of its own a notebook could mount a tmpfs that `disk_mb` does not bound), no `mount`, `bpf`,
`perf_event_open`, `userfaultfd`, `fanotify_init`, `io_uring_*` (left out of Docker's list too), no
`AF_VSOCK` socket.  A call not on the list gets EPERM, a call numbered past the newest
this table knows ENOSYS (as runc does: libc then uses an older call), and every call of another ABI (x32,
i386) ENOSYS, which would go around the numbers below.  Native tables: x86-64 and arm64 (from the
kernel's `unistd` headers; numbers from 424 on are the same on every architecture).  On other machines
nothing is filtered: namespaces, the worker's own uid and its cgroups still hold.
"""

from __future__ import annotations

import ctypes
import os

_ALLOWED = frozenset(
    """
    accept accept4 access adjtimex alarm arch_prctl bind brk cachestat capget capset chdir chmod chown clock_adjtime
    clock_getres clock_gettime clock_nanosleep close close_range connect copy_file_range creat dup dup2 dup3
    epoll_create epoll_create1 epoll_ctl epoll_ctl_old epoll_pwait epoll_pwait2 epoll_wait epoll_wait_old eventfd
    eventfd2 execve execveat exit exit_group faccessat faccessat2 fadvise64 fallocate fanotify_mark fchdir fchmod
    fchmodat fchmodat2 fchown fchownat fcntl fdatasync fgetxattr flistxattr flock fork fremovexattr fsetxattr fstat
    fstatfs fsync ftruncate futex futex_requeue futex_wait futex_waitv futex_wake futimesat get_robust_list
    get_thread_area getcpu getcwd getdents getdents64 getegid geteuid getgid getgroups getitimer getpeername getpgid
    getpgrp getpid getppid getpriority getrandom getresgid getresuid getrlimit getrusage getsid getsockname getsockopt
    gettid gettimeofday getuid getxattr getxattrat inotify_add_watch inotify_init inotify_init1 inotify_rm_watch ioctl
    ioprio_get ioprio_set kill landlock_add_rule landlock_create_ruleset landlock_restrict_self lchown lgetxattr link
    linkat listen listmount listxattr listxattrat llistxattr lremovexattr lseek lsetxattr lstat madvise map_shadow_stack
    membarrier memfd_create memfd_secret mincore mkdir mkdirat mknod mknodat mlock mlock2 mlockall mmap modify_ldt
    mprotect mq_getsetattr mq_notify mq_open mq_timedreceive mq_timedsend mq_unlink mremap mseal msgctl msgget msgrcv
    msgsnd msync munlock munlockall munmap name_to_handle_at nanosleep newfstatat open openat openat2 pause pidfd_open
    pidfd_send_signal pipe pipe2 pkey_alloc pkey_free pkey_mprotect poll ppoll prctl pread64 preadv preadv2 prlimit64
    process_mrelease process_vm_readv process_vm_writev pselect6 ptrace pwrite64 pwritev pwritev2 read readahead
    readlink readlinkat readv recvfrom recvmmsg recvmsg remap_file_pages removexattr removexattrat rename renameat
    renameat2 restart_syscall rmdir rseq rt_sigaction rt_sigpending rt_sigprocmask rt_sigqueueinfo rt_sigreturn
    rt_sigsuspend rt_sigtimedwait rt_tgsigqueueinfo sched_get_priority_max sched_get_priority_min sched_getaffinity
    sched_getattr sched_getparam sched_getscheduler sched_rr_get_interval sched_setparam sched_yield seccomp select
    semctl semget semop semtimedop sendfile sendmmsg sendmsg sendto set_robust_list set_thread_area set_tid_address
    setfsgid setfsuid setgid setgroups setitimer setpgid setregid setresgid setresuid setreuid setrlimit setsid
    setsockopt setuid setxattr setxattrat shmat shmctl shmdt shmget shutdown sigaltstack signalfd signalfd4 socketpair
    splice stat statfs statmount statx symlink symlinkat sync sync_file_range syncfs sysinfo tee tgkill time
    timer_create timer_delete timer_getoverrun timer_gettime timer_settime timerfd_create timerfd_gettime
    timerfd_settime times tkill truncate umask uname unlink unlinkat uretprobe utime utimensat utimes vfork vmsplice
    wait4 waitid write writev
""".split()
)
# refused although Docker's profile allows them (see above); EPERM, the answer to any call not allowed
REMOVED = (
    "add_key",
    "keyctl",
    "request_key",
    "io_setup",
    "io_submit",
    "io_cancel",
    "io_destroy",
    "io_getevents",
    "io_pgetevents",
    "setpriority",
    "sched_setscheduler",
    "sched_setattr",
    "sched_setaffinity",
)
NAMESPACE_FLAGS = (
    0x7E020000  # CLONE_NEWNS | NEWCGROUP | NEWUTS | NEWIPC | NEWUSER | NEWPID | NEWNET: `clone` refuses them
)
AF_VSOCK = 40
PERSONALITIES = (0x0, 0x8, 0x20000, 0x20008, 0xFFFFFFFF)  # Docker's: PER_LINUX, UNAME26, ...; 0xffffffff reads it
NEWEST = 469  # the highest syscall number these tables know of (file_setattr, Linux 6.17)


def _table(text: str) -> dict[str, int]:
    return {name: int(nr) for name, nr in (item.split("=") for item in text.split())}


# native arch -> (AUDIT_ARCH_*, {name: number} for every call named in this module)
_ARCHES = {
    "x86_64": (
        0xC000003E,
        _table("""
    read=0 write=1 open=2 close=3 stat=4 fstat=5 lstat=6 poll=7 lseek=8 mmap=9 mprotect=10 munmap=11 brk=12
    rt_sigaction=13 rt_sigprocmask=14 rt_sigreturn=15 ioctl=16 pread64=17 pwrite64=18 readv=19 writev=20 access=21
    pipe=22 select=23 sched_yield=24 mremap=25 msync=26 mincore=27 madvise=28 shmget=29 shmat=30 shmctl=31 dup=32
    dup2=33 pause=34 nanosleep=35 getitimer=36 alarm=37 setitimer=38 getpid=39 sendfile=40 socket=41 connect=42
    accept=43 sendto=44 recvfrom=45 sendmsg=46 recvmsg=47 shutdown=48 bind=49 listen=50 getsockname=51 getpeername=52
    socketpair=53 setsockopt=54 getsockopt=55 clone=56 fork=57 vfork=58 execve=59 exit=60 wait4=61 kill=62 uname=63
    semget=64 semop=65 semctl=66 shmdt=67 msgget=68 msgsnd=69 msgrcv=70 msgctl=71 fcntl=72 flock=73 fsync=74
    fdatasync=75 truncate=76 ftruncate=77 getdents=78 getcwd=79 chdir=80 fchdir=81 rename=82 mkdir=83 rmdir=84 creat=85
    link=86 unlink=87 symlink=88 readlink=89 chmod=90 fchmod=91 chown=92 fchown=93 lchown=94 umask=95 gettimeofday=96
    getrlimit=97 getrusage=98 sysinfo=99 times=100 ptrace=101 getuid=102 getgid=104 setuid=105 setgid=106 geteuid=107
    getegid=108 setpgid=109 getppid=110 getpgrp=111 setsid=112 setreuid=113 setregid=114 getgroups=115 setgroups=116
    setresuid=117 getresuid=118 setresgid=119 getresgid=120 getpgid=121 setfsuid=122 setfsgid=123 getsid=124 capget=125
    capset=126 rt_sigpending=127 rt_sigtimedwait=128 rt_sigqueueinfo=129 rt_sigsuspend=130 sigaltstack=131 utime=132
    mknod=133 personality=135 statfs=137 fstatfs=138 getpriority=140 setpriority=141 sched_setparam=142
    sched_getparam=143 sched_setscheduler=144 sched_getscheduler=145 sched_get_priority_max=146
    sched_get_priority_min=147 sched_rr_get_interval=148 mlock=149 munlock=150 mlockall=151 munlockall=152
    modify_ldt=154 prctl=157 arch_prctl=158 adjtimex=159 setrlimit=160 sync=162 mount=165 gettid=186 readahead=187
    setxattr=188 lsetxattr=189 fsetxattr=190 getxattr=191 lgetxattr=192 fgetxattr=193 listxattr=194 llistxattr=195
    flistxattr=196 removexattr=197 lremovexattr=198 fremovexattr=199 tkill=200 time=201 futex=202 sched_setaffinity=203
    sched_getaffinity=204 set_thread_area=205 io_setup=206 io_destroy=207 io_getevents=208 io_submit=209 io_cancel=210
    get_thread_area=211 epoll_create=213 epoll_ctl_old=214 epoll_wait_old=215 remap_file_pages=216 getdents64=217
    set_tid_address=218 restart_syscall=219 semtimedop=220 fadvise64=221 timer_create=222 timer_settime=223
    timer_gettime=224 timer_getoverrun=225 timer_delete=226 clock_gettime=228 clock_getres=229 clock_nanosleep=230
    exit_group=231 epoll_wait=232 epoll_ctl=233 tgkill=234 utimes=235 mq_open=240 mq_unlink=241 mq_timedsend=242
    mq_timedreceive=243 mq_notify=244 mq_getsetattr=245 waitid=247 add_key=248 request_key=249 keyctl=250 ioprio_set=251
    ioprio_get=252 inotify_init=253 inotify_add_watch=254 inotify_rm_watch=255 openat=257 mkdirat=258 mknodat=259
    fchownat=260 futimesat=261 newfstatat=262 unlinkat=263 renameat=264 linkat=265 symlinkat=266 readlinkat=267
    fchmodat=268 faccessat=269 pselect6=270 ppoll=271 unshare=272 set_robust_list=273 get_robust_list=274 splice=275
    tee=276 sync_file_range=277 vmsplice=278 utimensat=280 epoll_pwait=281 signalfd=282 timerfd_create=283 eventfd=284
    fallocate=285 timerfd_settime=286 timerfd_gettime=287 accept4=288 signalfd4=289 eventfd2=290 epoll_create1=291
    dup3=292 pipe2=293 inotify_init1=294 preadv=295 pwritev=296 rt_tgsigqueueinfo=297 perf_event_open=298 recvmmsg=299
    fanotify_init=300 fanotify_mark=301 prlimit64=302 name_to_handle_at=303 clock_adjtime=305 syncfs=306 sendmmsg=307
    setns=308 getcpu=309 process_vm_readv=310 process_vm_writev=311 sched_setattr=314 sched_getattr=315 renameat2=316
    seccomp=317 getrandom=318 memfd_create=319 bpf=321 execveat=322 userfaultfd=323 membarrier=324 mlock2=325
    copy_file_range=326 preadv2=327 pwritev2=328 pkey_mprotect=329 pkey_alloc=330 pkey_free=331 statx=332
    io_pgetevents=333 rseq=334 uretprobe=335 pidfd_send_signal=424 io_uring_setup=425 io_uring_enter=426
    io_uring_register=427 pidfd_open=434 clone3=435 close_range=436 openat2=437 faccessat2=439 epoll_pwait2=441
    landlock_create_ruleset=444 landlock_add_rule=445 landlock_restrict_self=446 memfd_secret=447 process_mrelease=448
    futex_waitv=449 cachestat=451 fchmodat2=452 map_shadow_stack=453 futex_wake=454 futex_wait=455 futex_requeue=456
    statmount=457 listmount=458 mseal=462 setxattrat=463 getxattrat=464 listxattrat=465 removexattrat=466
"""),
    ),
    "aarch64": (
        0xC00000B7,
        _table("""
    io_setup=0 io_destroy=1 io_submit=2 io_cancel=3 io_getevents=4 setxattr=5 lsetxattr=6 fsetxattr=7 getxattr=8
    lgetxattr=9 fgetxattr=10 listxattr=11 llistxattr=12 flistxattr=13 removexattr=14 lremovexattr=15 fremovexattr=16
    getcwd=17 eventfd2=19 epoll_create1=20 epoll_ctl=21 epoll_pwait=22 dup=23 dup3=24 fcntl=25 inotify_init1=26
    inotify_add_watch=27 inotify_rm_watch=28 ioctl=29 ioprio_set=30 ioprio_get=31 flock=32 mknodat=33 mkdirat=34
    unlinkat=35 symlinkat=36 linkat=37 renameat=38 mount=40 statfs=43 fstatfs=44 truncate=45 ftruncate=46 fallocate=47
    faccessat=48 chdir=49 fchdir=50 fchmod=52 fchmodat=53 fchownat=54 fchown=55 openat=56 close=57 pipe2=59
    getdents64=61 lseek=62 read=63 write=64 readv=65 writev=66 pread64=67 pwrite64=68 preadv=69 pwritev=70 sendfile=71
    pselect6=72 ppoll=73 signalfd4=74 vmsplice=75 splice=76 tee=77 readlinkat=78 newfstatat=79 fstat=80 sync=81 fsync=82
    fdatasync=83 sync_file_range=84 timerfd_create=85 timerfd_settime=86 timerfd_gettime=87 utimensat=88 capget=90
    capset=91 personality=92 exit=93 exit_group=94 waitid=95 set_tid_address=96 unshare=97 futex=98 set_robust_list=99
    get_robust_list=100 nanosleep=101 getitimer=102 setitimer=103 timer_create=107 timer_gettime=108
    timer_getoverrun=109 timer_settime=110 timer_delete=111 clock_gettime=113 clock_getres=114 clock_nanosleep=115
    ptrace=117 sched_setparam=118 sched_setscheduler=119 sched_getscheduler=120 sched_getparam=121 sched_setaffinity=122
    sched_getaffinity=123 sched_yield=124 sched_get_priority_max=125 sched_get_priority_min=126
    sched_rr_get_interval=127 restart_syscall=128 kill=129 tkill=130 tgkill=131 sigaltstack=132 rt_sigsuspend=133
    rt_sigaction=134 rt_sigprocmask=135 rt_sigpending=136 rt_sigtimedwait=137 rt_sigqueueinfo=138 rt_sigreturn=139
    setpriority=140 getpriority=141 setregid=143 setgid=144 setreuid=145 setuid=146 setresuid=147 getresuid=148
    setresgid=149 getresgid=150 setfsuid=151 setfsgid=152 times=153 setpgid=154 getpgid=155 getsid=156 setsid=157
    getgroups=158 setgroups=159 uname=160 getrlimit=163 setrlimit=164 getrusage=165 umask=166 prctl=167 getcpu=168
    gettimeofday=169 adjtimex=171 getpid=172 getppid=173 getuid=174 geteuid=175 getgid=176 getegid=177 gettid=178
    sysinfo=179 mq_open=180 mq_unlink=181 mq_timedsend=182 mq_timedreceive=183 mq_notify=184 mq_getsetattr=185
    msgget=186 msgctl=187 msgrcv=188 msgsnd=189 semget=190 semctl=191 semtimedop=192 semop=193 shmget=194 shmctl=195
    shmat=196 shmdt=197 socket=198 socketpair=199 bind=200 listen=201 accept=202 connect=203 getsockname=204
    getpeername=205 sendto=206 recvfrom=207 setsockopt=208 getsockopt=209 shutdown=210 sendmsg=211 recvmsg=212
    readahead=213 brk=214 munmap=215 mremap=216 add_key=217 request_key=218 keyctl=219 clone=220 execve=221 mmap=222
    fadvise64=223 mprotect=226 msync=227 mlock=228 munlock=229 mlockall=230 munlockall=231 mincore=232 madvise=233
    remap_file_pages=234 rt_tgsigqueueinfo=240 perf_event_open=241 accept4=242 recvmmsg=243 wait4=260 prlimit64=261
    fanotify_init=262 fanotify_mark=263 name_to_handle_at=264 clock_adjtime=266 syncfs=267 setns=268 sendmmsg=269
    process_vm_readv=270 process_vm_writev=271 sched_setattr=274 sched_getattr=275 renameat2=276 seccomp=277
    getrandom=278 memfd_create=279 bpf=280 execveat=281 userfaultfd=282 membarrier=283 mlock2=284 copy_file_range=285
    preadv2=286 pwritev2=287 pkey_mprotect=288 pkey_alloc=289 pkey_free=290 statx=291 io_pgetevents=292 rseq=293
    pidfd_send_signal=424 io_uring_setup=425 io_uring_enter=426 io_uring_register=427 pidfd_open=434 clone3=435
    close_range=436 openat2=437 faccessat2=439 epoll_pwait2=441 landlock_create_ruleset=444 landlock_add_rule=445
    landlock_restrict_self=446 memfd_secret=447 process_mrelease=448 futex_waitv=449 cachestat=451 fchmodat2=452
    map_shadow_stack=453 futex_wake=454 futex_wait=455 futex_requeue=456 statmount=457 listmount=458 mseal=462
    setxattrat=463 getxattrat=464 listxattrat=465 removexattrat=466
"""),
    ),
}
_RETURNS = {"allow": 0x7FFF0000, "eperm": 0x00050000 | 1, "enosys": 0x00050000 | 38}  # SECCOMP_RET_*, by label
_LD, _JA, _JEQ, _JGE, _AND, _RET = 0x20, 0x05, 0x15, 0x35, 0x54, 0x06
_ARCH_AT, _NR_AT, _ARG0_AT = 4, 0, 16  # offsets in struct seccomp_data (an argument's low 32 bits: little-endian)
_LEAF = 4  # ranges of numbers tested one after another at the end of a search


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


def verdicts(machine: str) -> dict[int, str]:
    """What each syscall number up to `NEWEST` gets: allow, eperm, enosys, or the name of the argument rule
    that decides (clone, socket, personality)."""
    nr = _ARCHES[machine][1]
    out = dict.fromkeys(range(NEWEST + 1), "eperm")
    for name in _ALLOWED:
        if name in nr:
            out[nr[name]] = "allow"
    out[nr["clone3"]] = "enosys"
    for name in ("clone", "socket", "personality"):
        out[nr[name]] = name
    return out


def _rules() -> dict[str, list]:
    """The argument rules, each ending in a return (the syscall's first argument's low 32 bits: an int, or
    clone's flags, whose namespace bits are all there)."""
    allow, eperm = (_RET, _RETURNS["allow"]), (_RET, _RETURNS["eperm"])
    n = len(PERSONALITIES)
    return {
        "clone": [(_LD, _ARG0_AT), (_AND, NAMESPACE_FLAGS), (_JEQ, 0, None, 1), allow, eperm],
        "socket": [(_LD, _ARG0_AT), (_JEQ, AF_VSOCK, None, 1), eperm, allow],
        "personality": [(_LD, _ARG0_AT), *[(_JEQ, p, n - i, None) for i, p in enumerate(PERSONALITIES)], eperm, allow],
    }


def _search(ranges: list[tuple[int, str]]) -> list:
    """A binary search over `ranges` ((first number, verdict), sorted; each runs up to the next), for a
    number already known to be at least the first one's.  A conditional jump reaches only 255 instructions:
    the way to the upper half is an unconditional jump (32 bits)."""

    def target(verdict: str) -> tuple:
        return (_RET, _RETURNS[verdict]) if verdict in _RETURNS else (_JA, verdict)

    if len(ranges) <= _LEAF:
        out: list = []
        for (_, verdict), (after, _) in zip(ranges, ranges[1:]):
            out += [(_JGE, after, 1, None), target(verdict)]
        return out + [target(ranges[-1][1])]
    mid = len(ranges) // 2
    upper = f"from {ranges[mid][0]}"
    return [(_JGE, ranges[mid][0], None, 1), (_JA, upper), *_search(ranges[:mid]), upper, *_search(ranges[mid:])]


def program(machine: str) -> list[tuple[int, int, int, int]]:
    """The filter for `machine` as (code, jt, jf, k) instructions.  Written with labels (a jump names the
    label it goes to, or how many instructions it skips; None: the next one) and resolved here."""
    arch, _ = _ARCHES[machine]
    ranges: list[tuple[int, str]] = []
    for number, verdict in sorted(verdicts(machine).items()):
        if not ranges or ranges[-1][1] != verdict:
            ranges.append((number, verdict))
    ranges.append((NEWEST + 1, "enosys"))  # newer calls, and x32's (numbered from 0x40000000)
    lines: list = [(_LD, _ARCH_AT), (_JEQ, arch, 1, None), (_RET, _RETURNS["enosys"]), (_LD, _NR_AT), *_search(ranges)]
    for label, rule in _rules().items():
        lines += [label, *rule]
    at: dict[str, int] = {}
    code: list[tuple] = []
    for line in lines:
        if isinstance(line, str):
            at[line] = len(code)
        else:
            code.append(line)
    out = []
    for i, ins in enumerate(code):
        if ins[0] == _JA:
            out.append((_JA, 0, 0, at[ins[1]] - i - 1))
        elif ins[0] in (_JEQ, _JGE):
            jt, jf = (0 if t is None else t for t in ins[2:])
            assert 0 <= jt < 256 and 0 <= jf < 256, ins
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
