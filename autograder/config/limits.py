"""Every cap in one place: the resource limits of one submission (set per assignment in its manifest's
`[limits]` table) and the sizes one result may hold (`clip`)."""

from __future__ import annotations

from dataclasses import dataclass, fields, replace
from typing import Any

from autograder.config.files import writable

# `check-solutions` fails an assignment whose cell_timeout is under this many times the CPU time of its
# master's slowest cell: a correct solution that much slower than the master must not time out.
CELL_TIMEOUT_MARGIN = 5


@dataclass(frozen=True)
class Limits:
    cell_timeout: float = 60.0  # CPU seconds for one notebook cell (and 3x that in wall time)
    test_timeout: float = 60.0  # wall seconds for one test (all its probe calls)
    submission_timeout: float = 600.0  # wall seconds for everything of one submission
    startup_timeout: float = 120.0  # wall seconds for a worker to import torch and say hello
    memory_mb: int = 4096  # the worker's memory: RLIMIT_AS, on a GPU RLIMIT_DATA (`rlimits`)
    cpu_seconds: int = 900  # CPU time of the worker (RLIMIT_CPU)
    file_mb: int = 64  # largest file the worker may write (RLIMIT_FSIZE)
    disk_mb: int = 512  # all it writes: work folder + /tmp + /dev/shm, one tmpfs (RAM, in memory_mb)
    files: int = 10_000  # files and folders it may create there (the tmpfs's inodes)
    open_files: int = 256  # RLIMIT_NOFILE
    processes: int = 256  # processes and threads: the worker's pids cgroup (RLIMIT_NPROC without cgroups)
    output_kb: int = 64  # stdout and stderr kept, each; the rest is dropped
    payload_mb: int = 64  # largest message (frame) accepted from the worker: see wire.Limits
    threads: int = 1  # torch intra-op threads in the worker
    max_restarts: int = 12  # worker restarts per submission before giving up

    @classmethod
    def from_table(cls, table: dict[str, Any] | None) -> "Limits":
        known = {f.name: f.type for f in fields(cls)}
        unknown = set(table or {}) - set(known)
        if unknown:
            raise ValueError(f"unknown limit(s) in manifest: {', '.join(sorted(unknown))}")
        base = cls()
        return replace(base, **{k: type(getattr(base, k))(v) for k, v in (table or {}).items()})

    def rlimits(self, *, gpu: bool = False) -> dict[str, int]:
        """What the worker applies to itself before student code runs.  With a GPU, memory is capped as
        private writable data (RLIMIT_DATA), not address space: CUDA's start-up reserves far more address
        space than any RLIMIT_AS we would set ("cudaGetDeviceCount(): out of memory" on an H100), while
        that reservation holds no data.  What the notebook allocates on the host is counted either way."""
        return {
            "data_bytes" if gpu else "memory_bytes": self.memory_mb * 2**20,
            "cpu_seconds": self.cpu_seconds,
            "file_bytes": self.file_mb * 2**20,
            "open_files": self.open_files,
            "processes": self.processes,
        }


# What one result may hold.  Every string that comes from a submission or its worker is cut to
# these sizes where results are built (`SubmissionResult.__post_init__`, and `execute.messages` for
# the worker's reports), never in the writers, so results.json, instructor.json, the gradebook row
# and both feedback pages stay bounded whatever a notebook sends.  A cut says what it cut.  The same
# step makes each string writable (`writable`): no writer has to survive text no file can hold.
MAX_TEXT = 2000  # characters of a message, note, frame line, name, hint or type
MAX_LONG_TEXT = 4000  # characters of a test's message, a cell's source, a problem report
MAX_ITEMS = 20  # notes, and frames, kept per cell
MAX_OUTPUT = 64 * 1024  # characters of captured stdout, and of stderr
MAX_RESULT_BYTES = 4 * 2**20  # the whole record as JSON; cell reports past it keep only their status


def clip(text: str, cap: int = MAX_TEXT) -> str:
    """`text` cut to at most `cap` characters, saying how many were cut (clipping twice changes nothing),
    and `writable`."""
    text = writable(text)
    if len(text) <= cap:
        return text
    keep = cap - 40
    return text[:keep] + f"... [cut: {len(text) - keep} more characters]"


def clip_notes(notes: list[str]) -> list[str]:
    """At most MAX_ITEMS notes, each clipped, the last saying how many were cut if any were."""
    if len(notes) <= MAX_ITEMS:
        return [clip(n) for n in notes]
    return [clip(n) for n in notes[: MAX_ITEMS - 1]] + [f"[cut: {len(notes) - MAX_ITEMS + 1} more notes]"]


def clip_frames(frames: list[dict]) -> tuple[list[dict], int]:
    """The innermost MAX_ITEMS frames (cell, line, code clipped) and how many outer ones were cut."""
    kept = [
        {"cell": f.get("cell"), "line": f.get("line"), "code": clip(str(f.get("code", "")))}
        for f in frames[-MAX_ITEMS:]
    ]
    return kept, max(0, len(frames) - MAX_ITEMS)


# -- what a page shows of a submission --------------------------------------------------------------
# A page of the workspace (`autograder serve`) is the TA's time: its cost must not grow with what a student
# put in a notebook.  Everything a submission controls (code, outputs, messages, versions, the similarity
# file's cells and spans) is cut to these before it is compared or rendered; one diff has a wall-clock budget
# on top, after which it stops and the page says so.
SHOWN_TEXT = 20_000  # characters of one cell's code, one output, one message
SHOWN_PAGE_TEXT = 1_000_000  # characters of a notebook's cells and outputs shown on one page, in all
SHOWN_CELLS = 2_000  # cells of one notebook shown (the notebook parser's own cap)
SHOWN_OUTPUTS = 20  # outputs of one cell shown
SHOWN_PNG = 2 * 2**20  # base64 characters of one image shown (PNG or JPEG)
SHOWN_HTML = 200_000  # characters of one HTML output or Markdown cell sanitised and shown (past it: its text)
SHOWN_VERSIONS = 100  # graded versions listed in a submission's history (the latest ones)
DIFF_LINES_IN = 4_000  # code lines of one version compared; the rest is named, not compared
DIFF_LINE_CHARS = 400  # characters of one line compared and shown in a diff
DIFF_LINES = 5_000  # lines of one diff shown
DIFF_SECONDS = 0.5  # wall seconds one diff may take; past it, it stops and says so
SIMILAR_PAIRS = 200  # pairs shown on the similarity page
SIMILAR_SPANS = 5  # matching spans shown of one pair
SIMILAR_RANGES = 200  # line ranges of one span marked

# -- what `autograder similarity` keeps of a class ---------------------------------------------------------------
# Its time and memory must not follow what the notebooks hold: a notebook's fingerprints are bounded (the tokens
# by `similarity.winnow.MAX_TOKENS`, the places kept per fingerprint and in all here), counting the pairs costs
# at most SIMILAR_WORK, and only the best pairs are kept with their spans.
SIMILAR_PRINTS = 50_000  # fingerprint places kept of one notebook (the largest master has 400), smallest cells first
SIMILAR_PLACES = 2  # places kept of one fingerprint in one notebook (a 20,000-zero list is one fingerprint)
SIMILAR_WORK = 200_000_000  # pairs counted, the sum over fingerprints of their holders squared (a few seconds):
# past it, the most shared fingerprints are common code (MOSS's -m, chosen by the class)
SIMILAR_KEPT = 1_000  # pairs kept in similarity.json (the best); how many more were flagged is said
