"""Where judge processes come from: forked from a forkserver that imported their modules once.

A judge imports torch, pytest and the engine (~2 s of CPU).  Spawned judges did that each, all at
once and beside the reference pass (then run by the grader): on 2 cores two judges took 4-6 s to be
ready while the reference pass took 2-3 s, so every class waited on them.  (The judges now run the
reference pass themselves, one test file per task: `pipeline._reference_pass`.)  A forkserver is a
fresh single-threaded process (none of the grader's threads, locks or signal handlers) that imports
them once; each judge forked from it is ready in milliseconds and shares those pages.  It runs while a process holds
multiprocessing's liveness pipe: the grader, and every judge (each is handed the pipe).  So the judges watch the grader
themselves and end with it (`die_with`), and the forkserver ends with the last of them.

A fork inherits the forkserver's environment, frozen when it started; a spawned judge had the grader's
as of its start.  Seeds (the course secret) and scratch folders (TMPDIR) derive from it, so each judge
first `adopt`s the grader's environment as it is when the pool starts.

Kept free of torch imports so the grade command can start the forkserver before importing torch.
"""

from __future__ import annotations

import multiprocessing
import multiprocessing.context
import os
import select
import signal
import tempfile
import threading
import time

JUDGE_MODULES = ["autograder.pipeline", "autograder.judge.session"]  # the judge's engine, torch and pytest


def judge_context() -> multiprocessing.context.BaseContext:
    _temp_folder_of_the_kit()
    ctx = multiprocessing.get_context("forkserver")
    ctx.set_forkserver_preload(JUDGE_MODULES)
    return ctx


def _temp_folder_of_the_kit() -> None:
    """multiprocessing's temporary folder of this process, where the forkserver's socket lives, made a scratch
    folder of the kit's (`execute.scratch`), under /tmp as a socket's must be.  Its own (`pymp-*`) goes only
    through Python's teardown: a grader killed with SIGKILL left it behind, where the next run, which prunes
    the kit's folders only, never removed it."""
    from multiprocessing import process

    from autograder.execute import scratch

    config = process.current_process()._config  # type: ignore[attr-defined]  # where util.get_temp_dir keeps it
    if config.get("tempdir") is None:
        config["tempdir"] = str(scratch.make("ag-mp-", scratch.SOCKET_PARENT))


def prestart() -> None:
    """Start the forkserver (and its imports) now, beside the grade command's own and the zygote's."""
    from multiprocessing import forkserver

    judge_context()
    forkserver.ensure_running()


def adopt(environ: dict[str, str]) -> None:
    """In a judge: the grader's environment of now (`environ`), and the temporary folder it names."""
    os.environ.clear()
    os.environ.update(environ)
    tempfile.tempdir = None  # gettempdir() reads TMPDIR again


def stop() -> None:
    """End the forkserver once the judges are done with.  It holds nothing (no file, no answer), so SIGTERM is
    its whole end; left to itself it ends after the grader, through Python's teardown of torch and pytest
    (1.2 s of CPU), and a caller reading the grade command's output waited for it.  The next pool starts
    another."""
    from multiprocessing import forkserver

    server = forkserver._forkserver
    pid = getattr(server, "_forkserver_pid", None)
    if not pid:
        return
    try:
        os.kill(pid, signal.SIGTERM)
    except ProcessLookupError:
        pass
    server._stop()  # type: ignore[attr-defined]  # private, and the one way to reap it; reaps it and removes its socket: the next `ensure_running` starts a fresh one


def die_with(grader: int) -> None:
    """End this judge, at once, when the process that started it ends (kill -9 included), taking its workers along:
    each worker's sandbox dies with its judge.  A judge's parent is the forkserver, not the grader, and it outlived a
    grader killed alone, with every judge and their workers: each judge holds the forkserver's liveness pipe, and
    one waiting for its next task never saw the grader go (its task queue has other writers, the other judges).  So
    a thread of each judge waits on the grader's pidfd (on Linux before 5.3, looks at it every second); and the
    judge dies with the forkserver too (PR_SET_PDEATHSIG: kill -9 of the grader's process group).  What the judge
    leaves (its workers' scratch folders and cgroups) the next run removes, as after a grader's kill -9."""
    try:
        import ctypes

        ctypes.CDLL(None).prctl(1, signal.SIGKILL)  # PR_SET_PDEATHSIG
    except (OSError, AttributeError):
        pass
    try:
        fd: int | None = os.pidfd_open(grader)
    except ProcessLookupError:  # gone already
        os.kill(os.getpid(), signal.SIGKILL)
        return
    except (OSError, AttributeError):
        fd = None

    def watch() -> None:
        if fd is not None:
            select.select([fd], [], [])
        else:
            while _alive(grader):
                time.sleep(1.0)
        os.kill(os.getpid(), signal.SIGKILL)

    threading.Thread(target=watch, name="die-with-grader", daemon=True).start()


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:  # a process of another user has the pid: the grader has gone
        return False
    return True
