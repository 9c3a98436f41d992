"""The student worker: executes one notebook's cells, then answers probe requests.

This module is the only code of the kit that shares a process with student code, so it
does as little as possible and trusts nothing afterwards: whatever it sends back is
re-validated by the trusted side (`wire.decode`), and every limit that matters (wall
clock, output volume, payload size) is enforced from outside.  It is started with
`python -I` (no cwd or user site on `sys.path`) and imports torch and numpy *before* any
student code runs, so a stray `torch.py` beside the notebook cannot shadow them.

Protocol (all messages in `wire` format): the trusted side sends one `start` message
(the cells' sources as the student wrote them), the worker answers `cell_start`/`cell_end`
events and `executed`, then serves `probe` requests (a batch of calls each, every call answered as soon
as it returns) until its input closes.  IPython syntax
(`%magic`, `!shell`) is rewritten here, after `cell_start`, so IPython's transformer (whose
cost grows quadratically in a cell of magic lines) runs under the cell's CPU deadline.
"""

from __future__ import annotations

import builtins
import os
import re
import resource
import shlex
import signal
import sys
import textwrap
import types
from typing import Any

from autograder.execute import nvidia
from autograder.execute.quiet import flush_output, quiet_stderr

os.environ.setdefault("MPLBACKEND", "Agg")
nvidia.choose_triton_mode()

import numpy as np  # noqa: E402,F401  (imported before student code on purpose)
import torch  # noqa: E402
from IPython.core.inputtransformer2 import (  # noqa: E402
    ESCAPE_DOUBLES,
    ESCAPE_SINGLES,
    TransformerManager,
    classic_prompt,
    ipython_prompt,
)

from autograder.execute import wire  # noqa: E402
from autograder.execute.namespace import StudentNamespace, cell_filename, describe_exception  # noqa: E402
from autograder.execute.rng import seed_all  # noqa: E402

# ---------------------------------------------------------------- process set-up


def _die_with_parent() -> None:
    """Ask the kernel to SIGKILL us when the trusted process dies (Linux only)."""
    try:
        import ctypes

        libc = ctypes.CDLL(None, use_errno=True)
        libc.prctl(1, signal.SIGKILL)  # PR_SET_PDEATHSIG
    except (OSError, AttributeError):
        pass


def _apply_limits(limits: dict[str, int]) -> None:
    """rlimits the worker puts on itself before student code runs (the sandbox adds more)."""
    table = {
        "memory_bytes": resource.RLIMIT_AS,
        "data_bytes": resource.RLIMIT_DATA,  # with a GPU (Limits.rlimits)
        "cpu_seconds": resource.RLIMIT_CPU,
        "file_bytes": resource.RLIMIT_FSIZE,
        "open_files": resource.RLIMIT_NOFILE,
        "processes": resource.RLIMIT_NPROC,
    }
    resource.setrlimit(resource.RLIMIT_CORE, (0, 0))
    for key, which in table.items():
        value = limits.get(key)
        if value:
            soft, hard = resource.getrlimit(which)
            cap = value if hard == resource.RLIM_INFINITY else min(value, hard)
            try:
                resource.setrlimit(which, (cap, cap))
            except (ValueError, OSError):
                pass


# ---------------------------------------------------------------- TensorFlow (a TensorFlow assignment's workers)

TENSORFLOW = "tensorflow"


def import_tensorflow() -> Any:
    """Import TensorFlow and Keras with their import-time chatter (C++ log lines printed before logging is
    set up, Python warnings) sent to /dev/null: in the zygote, once; in a cold worker, before any student
    code, where the chatter would otherwise reach the notebook's output.  Runs no TF op: TF's context (its
    thread pools, its devices) must come to be in each worker, after the fork (`start_tensorflow`)."""
    import warnings

    with quiet_stderr(), warnings.catch_warnings():
        warnings.simplefilter("ignore")
        import keras  # noqa: F401
        import tensorflow as tf
    tf.get_logger().setLevel("ERROR")
    try:
        from absl import logging as absl_logging

        absl_logging.set_verbosity(absl_logging.ERROR)
    except ImportError:
        pass
    return tf


_WITHOUT_AUTOTUNE = "_autograder_without_autotune"  # where a dataset keeps its options dataset without autotuning


def _iterate_without_autotune() -> None:
    """Every tf.data iterator of this worker made with autotuning off, as TF's own debug mode makes them.

    An autotuned iterator runs a model thread that sleeps on a timer between its rounds, and destroying the
    iterator (each epoch of a `for x, y in ds:` loop, each epoch of a Keras fit) waits for that sleep to end
    without waking it: the process stays off the CPU meanwhile (perf: the main thread blocked in
    `~RootDataset::Iterator` until the model thread's timer, 14-25 ms each time).  A 50-notebook tf03 class left
    the two cores idle 27-33 of its 155-183 core-seconds; three small Keras fits on one core took 4.7 s of wall
    time for 2.6 of CPU, 2.4 and 2.4 without (docs/performance.md).  What autotuning decides is how far ahead and
    in how many threads elements are made, never which elements or in what order (tf.data is deterministic
    unless a pipeline opts out), and the student's and the master's workers iterate the same way.

    TF applies its debug mode's options at the same place (`_apply_debug_options`, called for every iterator,
    `reduce` and save).  The options dataset is made once per dataset (eagerly; a traced function makes its
    own): a new one each epoch had TF rewrite and finalize the pipeline again, 3.3 ms an iterator, more than
    the sleeps cost a Keras fit.  A student who restores TF's method only slows their own worker."""
    from tensorflow.python.data.ops import dataset_ops
    from tensorflow.python.data.ops import options as options_lib
    from tensorflow.python.eager import context

    apply_debug_options = dataset_ops.DatasetV2._apply_debug_options

    def without_autotune(dataset: Any) -> Any:
        eager = context.executing_eagerly()
        made = dataset.__dict__.get(_WITHOUT_AUTOTUNE) if eager else None
        if made is None:
            off = options_lib.Options()
            off.autotune.enabled = False
            made = dataset_ops._OptionsDataset(apply_debug_options(dataset), off)
            if eager:
                object.__setattr__(dataset, _WITHOUT_AUTOTUNE, made)
        return made

    without_autotune.__wrapped__ = apply_debug_options  # type: ignore[attr-defined]  # what the tests compare with
    dataset_ops.DatasetV2._apply_debug_options = without_autotune


def start_tensorflow(threads: int) -> None:
    """Before any student code of a TensorFlow assignment (`assignment.Framework`, told by the environment):
    its caches in the worker's own disk, its thread pools at the worker's share, deterministic ops, tf.data
    without autotuning (`_iterate_without_autotune`), and the logical CPU devices of `[tensorflow] logical_cpus`
    (configured before TF's context exists, as TF requires).  A GPU, where one is seen, grows its memory as needed
    instead of taking all of it."""
    tmp = os.environ.get("TMPDIR") or "/tmp"
    os.environ.setdefault("KERAS_HOME", os.path.join(tmp, ".keras"))  # a cold worker; the zygote set /tmp's
    os.environ.setdefault("XDG_CACHE_HOME", os.path.join(tmp, ".cache"))
    tf = sys.modules.get(TENSORFLOW) or import_tensorflow()
    tf.config.threading.set_intra_op_parallelism_threads(threads)
    tf.config.threading.set_inter_op_parallelism_threads(threads)
    tf.config.experimental.enable_op_determinism()
    # Grappler, TF's graph optimizer, rewrites every function each time it is instantiated: each traced
    # train/test/predict step, and each tf.data iterator's map function, which Keras makes anew every epoch
    # for NumPy inputs (16 ms an epoch of the ~35 a small model's epoch costs).  Graded graphs are a few ops
    # on small tensors, which its rewrites do not speed up: off, a 25-epoch fit of a small Keras model costs
    # 0.7 s of CPU instead of 1.2 (docs/performance.md).  The student's and the master's workers run the same
    # graphs the same way, and no fused or reordered kernel changes a compared value.
    tf.config.optimizer.set_experimental_options({"disable_meta_optimizer": True})
    _iterate_without_autotune()
    for gpu in tf.config.list_physical_devices("GPU"):
        tf.config.experimental.set_memory_growth(gpu, True)
    logical = int(os.environ.get("AUTOGRADER_TF_LOGICAL_CPUS", "1"))
    if logical > 1:
        cpu = tf.config.list_physical_devices("CPU")[0]
        tf.config.set_logical_device_configuration(cpu, [tf.config.LogicalDeviceConfiguration()] * logical)


# ---------------------------------------------------------------- IPython shims


class _Shell:
    """Just enough of `get_ipython()` for what IPython's transformer emits.

    Magics that only affect display (%matplotlib, %config, %load_ext ...) are no-ops;
    %time/%timeit/%%time/%%capture run their code once; shell escapes and %pip are not
    run but noted, so the instructor sees them in the report.
    """

    _RUN = {"time", "timeit", "prun"}

    def __init__(self, ns: dict, notes: list[str]) -> None:
        self.ns, self.notes = ns, notes
        self.user_ns = ns

    def run_line_magic(self, name: str, line: str, _stack_depth: int = 1) -> Any:
        if name in self._RUN:
            code = _strip_magic_options(line)
            try:
                return eval(compile(code, "<magic>", "eval", dont_inherit=True), self.ns)
            except SyntaxError:
                exec(compile(code, "<magic>", "exec", dont_inherit=True), self.ns)
                return None
        if name in ("pip", "conda", "mamba", "sx", "system"):
            self.notes.append(f"%{name} {line} was not run (installing or shell commands are disabled while grading)")
        elif name not in (
            "matplotlib",
            "config",
            "load_ext",
            "reload_ext",
            "autoreload",
            "aimport",
            "precision",
            "who",
            "whos",
            "env",
            "pwd",
        ):
            self.notes.append(f"%{name} magic ignored while grading")
        return None

    def run_cell_magic(self, name: str, line: str, cell: str) -> Any:
        if name in self._RUN | {"capture"}:
            exec(compile(cell, "<magic>", "exec", dont_inherit=True), self.ns)
        elif name == "writefile":
            path = line.split()[-1] if line.split() else "untitled.txt"
            with open(path, "w", encoding="utf-8") as f:
                f.write(cell)
        else:
            self.notes.append(f"%%{name} cell magic was not run while grading")
        return None

    def system(self, cmd: str) -> None:
        self.notes.append(f"!{cmd} was not run (shell commands are disabled while grading)")

    def getoutput(self, cmd: str) -> list[str]:
        self.system(cmd)
        return []

    def magic(self, line: str) -> Any:
        name, _, rest = line.partition(" ")
        return self.run_line_magic(name.lstrip("%"), rest)


# Where IPython's transformer may change a cell: an escape (%magic, !shell, ?help, /call, ,quote) at a
# line's start, `x = %magic` / `x = !shell`, help at a line's end, or a prompt (>>>, ..., In [1]:) it strips.
_IPYTHON_SYNTAX = re.compile(
    r"(?m)^[ \t]*[" + re.escape("".join({e[0] for e in ESCAPE_SINGLES | ESCAPE_DOUBLES})) + r"]|=[ \t]*[%!]|\?[ \t]*$"
)
_PROMPTS = (classic_prompt.prompt_re, ipython_prompt.prompt_re, re.compile(r"^\s*>>>"))


def _python(source: str) -> str:
    """The cell as plain Python calling `get_ipython()`; as written if IPython cannot rewrite it
    (then `compile` reports the syntax error against the student's own lines).  A cell without anything
    IPython rewrites (`_plain`) is only dedented, as IPython does: its transformer tokenizes the whole cell,
    a third of a plain cell's cost in the worker (tests/execute/test_cell_transform.py holds the two equal)."""
    cell = source if source.endswith("\n") else source + "\n"
    if _plain(cell):
        return textwrap.dedent(cell)
    try:
        return TransformerManager().transform_cell(source)
    except Exception:  # noqa: BLE001 - e.g. "still changing after 500 iterations"
        return source


def _plain(cell: str) -> bool:
    """Whether IPython's transformer would only dedent this cell (ending in a newline): its first line starts
    with code, its lines break at newlines only, and no line holds what `_IPYTHON_SYNTAX` or a prompt matches."""
    if not cell[:1].strip() or "\r" in cell or len(cell.splitlines()) != cell.count("\n"):
        return False
    if _IPYTHON_SYNTAX.search(cell):
        return False
    return not any(p.match(line) for line in cell.split("\n") for p in _PROMPTS)


def _strip_magic_options(line: str) -> str:
    parts = shlex.split(line, posix=True) if line.strip().startswith("-") else None
    if not parts:
        return line
    while parts and parts[0].startswith("-"):
        opt = parts.pop(0)
        if opt in ("-n", "-r", "-o") and parts and not opt.startswith("--"):
            parts.pop(0)
    return " ".join(parts)


# ---------------------------------------------------------------- main loop

_PRECOMPILED: dict[str, tuple[str, Any]] = {}  # probes.py by path: (its source, its code), compiled in the zygote


def precompile_probes(path: str) -> None:
    """Compile probes.py in the zygote, once for every worker forked from it (4-14 ms a worker otherwise).
    A worker uses this code only while the file still holds the source it was compiled from."""
    with open(path, encoding="utf-8") as f:
        source = f.read()
    _PRECOMPILED[os.path.realpath(path)] = (source, compile(source, path, "exec", dont_inherit=True))


def _compile_probes(path: str | None) -> Any:
    """probes.py compiled once, before any cell runs (its imports too, by one run of it)."""
    if not path:
        return None
    with open(path, encoding="utf-8") as f:
        source = f.read()
    source_then, code = _PRECOMPILED.get(os.path.realpath(path), (None, None))
    if source_then != source:
        code = compile(source, path, "exec", dont_inherit=True)
    _fresh_probes(code)
    return code


def _fresh_probes(code: Any) -> Any:
    """A new probes module for each request (one test's batch of calls), made after the cells ran: no
    cell can reach a module a probe runs from, and a call can tamper only with the module of its own
    test's later calls.  (Student code can still patch what probes use, and forge any fact a probe
    reports; tests award points only for values the judge verifies.)  Per request, not per call: a
    module with a class in it costs 0.2 ms to run, 0.08 s of a 01_tensors submission's 468 calls."""
    if code is None:
        return None
    mod = types.ModuleType("probes")
    mod.__file__ = code.co_filename
    exec(code, mod.__dict__)
    return mod


def serve(inp: Any, out: Any) -> None:
    for stream in (sys.stdout, sys.stderr):
        try:
            stream.reconfigure(line_buffering=True)  # type: ignore[union-attr]  # a TextIOWrapper here
        except Exception:  # noqa: BLE001
            pass
    start = wire.decode(wire.read_frame(inp), wire.FROM_GRADER)
    threads = max(1, int(start.get("threads", 1)))
    torch.set_num_threads(threads)
    if os.environ.get("AUTOGRADER_FRAMEWORK") == TENSORFLOW:
        start_tensorflow(threads)  # TF's ops deterministic; torch, only the wire's value type here, is left as is
    else:
        torch.use_deterministic_algorithms(True, warn_only=True)
    probe_code = _compile_probes(start.get("probes"))
    ns = StudentNamespace(__name__="__main__", __builtins__=builtins)
    notes: list[str] = []
    shell = _Shell(ns, notes)
    ns["get_ipython"] = lambda: shell
    _apply_limits(start.get("limits", {}))
    sys.argv = ["notebook"]

    skip = set(start.get("skip", []))
    for cell in start["cells"]:
        index = cell["index"]
        if index in skip:
            continue
        wire.write_message(out, {"event": "cell_start", "index": index})
        seed_all(start.get("seed", 0) + index)
        del notes[:]
        error = None
        try:
            source = _python(cell["source"])
            exec(compile(source, cell_filename(index, source), "exec", dont_inherit=True), ns)
        except BaseException as exc:  # noqa: BLE001 - SystemExit, KeyboardInterrupt included
            error = describe_exception(exc)
        flush_output()
        wire.write_message(out, {"event": "cell_end", "index": index, "error": error, "notes": list(notes)})
    wire.write_message(out, {"event": "executed"})

    while True:
        try:
            req = wire.decode(wire.read_frame(inp), wire.FROM_GRADER)
        except EOFError:
            return
        rid = req.get("id")
        probes: Any = None
        for name, args, kwargs, seed in req.get("calls", ()):  # a test's batch: each call as if it came alone,
            seed_all(seed)  # answered at once
            try:
                if probes is None:  # made in the try: a cell may have broken what probes.py imports
                    probes = _fresh_probes(probe_code)
                fn = getattr(probes, name)
                value = fn(ns, *args, **kwargs)
                reply = wire.encode({"id": rid, "ok": True, "value": value})
            except BaseException as exc:  # noqa: BLE001
                reply = wire.encode({"id": rid, "ok": False, "error": describe_exception(exc)})
            flush_output()
            out.write(reply)
            out.flush()


def finish() -> None:
    """Leave once the trusted side has closed the channel: output first, so the trusted side has all of
    it without waiting for the process to be taken apart (`WorkerProcess.stop`); then without atexit
    handlers or threads the student may have registered."""
    flush_output()
    for fd in (1, 2):
        try:
            os.close(fd)
        except OSError:
            pass
    os._exit(0)


def main() -> None:
    _die_with_parent()
    fd_in, fd_out = int(sys.argv[1]), int(sys.argv[2])
    inp = os.fdopen(fd_in, "rb", buffering=0)
    out = os.fdopen(os.dup(fd_out), "wb")  # buffered: a flush writes everything, even after a signal
    serve(inp, out)
    finish()


if __name__ == "__main__":
    main()
