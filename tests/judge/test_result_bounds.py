"""Results stay bounded and statuses stay the submission's own, whatever its worker sends.

Unit level: `judge.results` caps every string and the whole record; `execute.messages` checks
every field of every worker message.  Engine level: real (rlimits-only) workers running cells
that forge and garble protocol messages, against `NotebookRunner`.
"""

from __future__ import annotations

import json
import signal
import subprocess

import nbformat
import pytest

from autograder.config.limits import MAX_ITEMS, MAX_LONG_TEXT, MAX_OUTPUT, MAX_RESULT_BYTES, MAX_TEXT, Limits, clip
from autograder.execute import messages, wire
from autograder.execute.backend import ProbeCrashed, ProbeError
from autograder.execute.process import WorkerDied
from autograder.execute.runner import NotebookRunner
from autograder.execute.sandbox import RlimitsOnly
from autograder.judge import results
from autograder.judge.results import CellIssue, SubmissionResult
from autograder.notebook.parse import load_cells
from tests.execute.live import handle_on

# ---------------------------------------------------------------- caps of judge.results


def test_clip_says_what_it_cut_and_is_idempotent():
    assert clip("short") == "short"
    cut = clip("x" * 10_000)
    assert len(cut) <= MAX_TEXT and cut.endswith(f"[cut: {10_000 - (MAX_TEXT - 40)} more characters]")
    assert clip(cut) == cut


def _result(**kw) -> SubmissionResult:
    base = dict(
        assignment="a",
        submission_id="s",
        source="s.ipynb",
        sha256="0",
        status="graded",
        message="",
        tests=[],
        cells=[],
        execution_time=0.0,
        environment={},
    )
    return SubmissionResult(**{**base, **kw})


def test_every_string_of_a_result_is_capped():
    huge = "M" * 5_000_000
    frames = [{"cell": 3, "line": i, "code": huge} for i in range(50)]
    r = _result(
        message=huge,
        stdout=huge,
        stderr=huge,
        problems=[huge],
        tests=[results.TestResult("public/test_a.py::t", huge, "a", "public", 1, 0, "failed", huge, huge)],
        cells=[CellIssue(3, "error", huge, huge, huge, frames, [huge] * 100)],
    )
    t, c = r.tests[0], r.cells[0]
    assert len(r.message) <= MAX_TEXT and len(r.stdout) <= MAX_OUTPUT and len(r.stderr) <= MAX_OUTPUT
    assert len(t.message) <= MAX_LONG_TEXT and len(t.name) <= MAX_TEXT and len(t.hint) <= MAX_TEXT
    assert len(c.type) <= 100 and len(c.message) <= MAX_TEXT and len(c.code) <= MAX_LONG_TEXT
    assert len(c.frames) == MAX_ITEMS and all(len(f["code"]) <= MAX_TEXT for f in c.frames)
    assert c.frames[-1]["line"] == 49  # the innermost frames are kept
    assert len(c.notes) == MAX_ITEMS and c.notes[-1] == "[cut: 81 more notes]"
    assert "more characters]" in c.message and "[cut: 30 more frames]" in c.message
    assert len(json.dumps(r.to_record(), indent=2)) < MAX_RESULT_BYTES
    # a stored record read back is the same (bounding twice changes nothing)
    assert SubmissionResult.from_record(r.to_record()).to_record() == r.to_record()


def test_the_whole_result_has_a_cap_and_every_cell_keeps_its_status():
    note = "N" * MAX_TEXT
    cells = [
        CellIssue(
            i, "error", "E", note, note * 2, [{"cell": i, "line": 1, "code": note}] * MAX_ITEMS, [note] * MAX_ITEMS
        )
        for i in range(1, 2001)
    ]
    r = _result(cells=cells, stdout="\U0001f600" * MAX_OUTPUT, stderr="\x00" * MAX_OUTPUT)
    size = len(json.dumps(r.to_record(), indent=2))
    assert size <= MAX_RESULT_BYTES, size
    assert [c.cell for c in r.cells] == list(range(1, 2001)) and all(c.status == "error" for c in r.cells)
    assert r.cells[0].notes and r.cells[-1].message == "[cut: this cell's report is past the result's size limit]"
    for writer in (r.to_results_json, r.to_record):  # what the result files hold
        assert len(json.dumps(writer(), indent=2, ensure_ascii=False).encode()) <= MAX_RESULT_BYTES


# ---------------------------------------------------------------- schema of worker messages

GOOD_ERROR = {"type": "ValueError", "message": "bad", "frames": [{"cell": 2, "line": 1, "code": "x"}]}


@pytest.mark.parametrize(
    "msg, why",
    [
        ({"event": "cell_end", "index": 2, "error": [1, 2], "notes": []}, "field 'error' is list"),
        ({"event": "cell_end", "index": "2", "error": None, "notes": []}, "field 'index' is str"),
        ({"event": "cell_end", "index": True, "error": None, "notes": []}, "field 'index' is bool"),
        ({"event": "cell_end", "index": 2, "error": None, "notes": "x"}, "field 'notes' is str"),
        ({"event": "cell_end", "index": 2, "error": None, "notes": [1]}, "a note is not a string"),
        (
            {"event": "cell_end", "index": 2, "error": {**GOOD_ERROR, "type": ["x"]}, "notes": []},
            "field 'type' is list",
        ),
        ({"event": "cell_end", "index": 2, "error": {**GOOD_ERROR, "frames": [1]}, "notes": []}, "a frame is int"),
        (
            {
                "event": "cell_end",
                "index": 2,
                "error": {**GOOD_ERROR, "frames": [{"cell": 1, "line": "1", "code": ""}]},
                "notes": [],
            },
            "field 'line' is str",
        ),
    ],
)
def test_malformed_cell_records_are_refused(msg, why):
    assert messages.event(msg) == "cell_end"
    with pytest.raises(wire.PayloadError, match=why):
        messages.cell_end(msg)


def test_cell_records_are_rebuilt_from_known_fields_and_clipped():
    err = {**GOOD_ERROR, "message": "m" * 10**6, "extra": "x" * 10**6}
    idx, e, notes = messages.cell_end(
        {"event": "cell_end", "index": 4, "error": err, "notes": ["n" * 10**6] * 30, "junk": 1}
    )
    assert idx == 4 and set(e) == {"type", "message", "frames"} and len(e["message"]) <= MAX_TEXT
    assert len(notes) == MAX_ITEMS and all(len(n) <= MAX_TEXT for n in notes)
    with pytest.raises(wire.PayloadError, match="unexpected message"):
        messages.event({"event": "cell_middle"})
    with pytest.raises(wire.PayloadError, match="not a message"):
        messages.event([1])


def test_replies_are_checked():
    assert messages.reply({"id": 3, "ok": True, "value": [1]}, 3) == (True, [1])
    assert messages.reply({"id": 3, "ok": False, "error": GOOD_ERROR}, 3) == (False, GOOD_ERROR)
    for msg, why in [
        ({"id": 2, "ok": True}, "does not answer"),
        ({"ok": True}, "does not answer"),
        ({"id": 3, "ok": 1}, "field 'ok' is int"),
        ({"id": 3, "ok": False, "error": "x"}, "is str"),
        ({"id": 3, "ok": False, "error": {**GOOD_ERROR, "message": None}}, "field 'message' is NoneType"),
    ]:
        with pytest.raises(wire.PayloadError, match=why):
            messages.reply(msg, 3)


# ---------------------------------------------------------------- the trusted side's reads


@pytest.fixture
def fake_worker():
    """A WorkerProcess whose channel we write to ourselves (its 'process' is a sleep we own)."""
    with handle_on(subprocess.Popen(["sleep", "60"], start_new_session=True)) as (w, theirs):
        yield w, theirs
        w.kill()


def test_frames_are_read_exactly_and_oversized_ones_refused_unread(fake_worker):
    w, peer = fake_worker
    peer.sendall(wire.encode({"a": 1}) + wire.encode({"b": 2}))
    deadline = __import__("time").monotonic() + 5
    assert w.recv(deadline) == {"a": 1} and w.recv(deadline) == {"b": 2}
    peer.sendall(b"AGW1" + (wire.DEFAULT_LIMITS.max_bytes + 1).to_bytes(8, "big"))
    with pytest.raises(wire.PayloadError, match="over the 64 MiB limit"):
        w.recv(deadline)


def test_a_deadline_holds_while_frames_keep_arriving(fake_worker):
    """Frames that have arrived are read without waiting, but not past the deadline: a worker that
    keeps its channel full cannot outrun it; a frame that arrives later is waited for."""
    import threading
    import time

    from autograder.execute.process import WorkerTimeout

    w, peer = fake_worker
    peer.sendall(wire.encode({"a": 1}))
    assert w.recv(time.monotonic() + 5) == {"a": 1}
    threading.Timer(0.2, peer.sendall, [wire.encode({"late": 1})]).start()
    assert w.recv(time.monotonic() + 5) == {"late": 1}
    peer.sendall(wire.encode({"b": 2}))
    with pytest.raises(WorkerTimeout):
        w.recv(time.monotonic() - 0.001)  # there to read, but too late
    assert w.popen.wait(5) == -signal.SIGKILL


def test_a_forged_exit_report_cannot_crash_the_grader(fake_worker):
    w, peer = fake_worker
    peer.sendall(wire.encode({"event": "exit", "signal": [9], "code": "x", "error": {"a": 1}}))
    with pytest.raises(WorkerDied) as e:
        w.recv(__import__("time").monotonic() + 5)
    assert "worker" in str(e.value)
    assert w.popen.wait(5) == -signal.SIGKILL


# ---------------------------------------------------------------- real workers that forge

FIND_FD = """
import os
from autograder.execute import wire
def _send(msg):
    for name in os.listdir('/proc/self/fd'):
        if int(name) > 2 and os.readlink(f'/proc/self/fd/{name}').startswith('socket:'):
            os.write(int(name), wire.encode(msg))
            return
"""


def _notebook(tmp_path, *sources):
    path = tmp_path / "nb.ipynb"
    nbformat.write(nbformat.v4.new_notebook(cells=[nbformat.v4.new_code_cell(s) for s in sources]), path)
    return load_cells(path)


def test_forged_and_malformed_cell_records_cost_only_the_cell_that_sent_them(tmp_path):
    cells = _notebook(
        tmp_path,
        FIND_FD + "a = 1",
        "_send({'event': 'cell_end', 'index': 9999, 'error': None, 'notes': ['forged'] * 1000})",  # 2: made-up index
        "b = 2",
        "_send({'event': 'cell_end', 'index': 4, 'error': [1, 2], 'notes': []})",  # 4: error of the wrong type
        "\n".join(["!echo hi"] * 30),  # 5: honest, 30 notes
        "_send({'event': 'cell_start', 'index': 7})",  # 6: announces a later cell
        "c = 3",
        "_send({'event': 'executed'})",  # 8: claims the notebook is done
        "d = 4",
    )
    probes = tmp_path / "probes.py"
    probes.write_text("def get(ns, name):\n    return ns[name]\n")
    with NotebookRunner(
        cells, probes=probes, limits=Limits(cell_timeout=30, startup_timeout=60), isolation=RlimitsOnly()
    ) as runner:
        runner.execute()
        records = {r.index: r for r in runner.cell_records}
        assert set(records) == {1, 2, 3, 4, 5, 6, 7, 8, 9}
        crashed = {i: r.error["message"] for i, r in records.items() if r.status == "crashed"}
        assert set(crashed) == {2, 4, 6, 8}, {i: (r.status, r.error) for i, r in records.items()}
        assert "cell 9999 reported as finished while cell 2 runs" in crashed[2]
        assert "field 'error' is list" in crashed[4]
        assert "cell 7 announced out of turn" in crashed[6]
        assert "executed before all its cells ran" in crashed[8]
        assert len(records[5].notes) == MAX_ITEMS and records[5].notes[-1] == "[cut: 11 more notes]"
        assert [runner.call("get", (n,)) for n in "abcd"] == [1, 2, 3, 4]


def test_malformed_probe_errors_crash_only_that_probe(tmp_path):
    cells = _notebook(
        tmp_path,
        "import sys\n"
        "w = sys.modules['__main__']\n"  # the worker module (run as python -m)
        "real = w.describe_exception\n"
        "def liar(exc):\n"
        "    return {'type': ['not', 'a', 'string'], 'message': 'x', 'frames': []}\n"
        "def boom(kind):\n"
        "    w.describe_exception = liar if kind == 'lie' else real\n"
        "    raise ValueError('m' * 10**6)\n",
    )
    probes = tmp_path / "probes.py"
    probes.write_text("def call(ns, kind):\n    return ns['boom'](kind)\n")
    with NotebookRunner(cells, probes=probes, limits=Limits(startup_timeout=60), isolation=RlimitsOnly()) as runner:
        with pytest.raises(ProbeCrashed, match="field 'type' is list"):
            runner.call("call", ("lie",))
        with pytest.raises(ProbeError) as e:  # a fresh worker; an honest error is kept, clipped
            runner.call("call", ("honest",))
        assert e.value.error["type"] == "ValueError" and len(e.value.error["message"]) <= MAX_TEXT
