"""Attack class 1 and 5a: a worker that sends too much, too deep, or the wrong types.

Forged frames (a tree over the size cap, a wide one of tiny values, a deep one), honest-looking
answers that are too big (300,000 values, a 3 MiB string), forged and malformed cell records,
huge notes and exception messages repeated over several cells, a malformed probe error, a
forged exit report and a malformed notebook header.  Each must leave the grader bounded (the
wire refuses before building anything: see tests/execute/test_wire.py for the memory measured),
cost only the forging cell or test (honest credit stays), end as the submission's own status
with a clear message, and keep every result file under `config.limits.MAX_RESULT_BYTES`.
"""

from __future__ import annotations

import json
from pathlib import Path

from autograder.config.limits import MAX_ITEMS, MAX_LONG_TEXT, MAX_RESULT_BYTES, MAX_TEXT
from autograder.notebook.parse import load_cells
from tests.attacks.corpus import (
    FULL,
    REPLY_FD,
    Attack,
    Ctx,
    cell_statuses,
    nb,
    test_message,
    test_outcomes,
    write_bytes,
)


def bounded(r, ctx: Ctx) -> None:
    """Result files and record under the cap, every cell string capped, only real cells recorded."""
    folder = ctx.out / "toy_attacks" / r.submission_id
    files = [f for f in folder.rglob("*") if f.is_file()]
    assert files, f"no result files in {folder}"
    for f in files:
        assert f.stat().st_size <= MAX_RESULT_BYTES, (f, f.stat().st_size)
    assert len(json.dumps(r.to_record(), indent=2)) <= MAX_RESULT_BYTES
    for c in r.cells:
        assert len(c.message) <= MAX_TEXT and len(c.type) <= 100 and len(c.code) <= MAX_LONG_TEXT, c.cell
        assert len(c.notes) <= MAX_ITEMS and all(len(n) <= MAX_TEXT for n in c.notes), c.cell
        assert len(c.frames) <= MAX_ITEMS and all(len(f["code"]) <= MAX_TEXT for f in c.frames), c.cell
    real = {c.index for c in load_cells(ctx.tmp / f"{r.submission_id}.ipynb")}
    assert {c.cell for c in r.cells} <= real, ({c.cell for c in r.cells}, real)


def cut_in_cells(r, ctx: Ctx) -> None:
    assert any("[cut:" in c.message or any("[cut:" in n for n in c.notes) for c in r.cells), [
        (c.cell, c.message[-60:]) for c in r.cells
    ]


def cell_message(cell_status: str, needle: str):
    def check(r, ctx):
        msgs = [c.message for c in r.cells if c.status == cell_status]
        assert any(needle in m for m in msgs), msgs

    return check


def _on_public(code: str) -> dict:
    """double() runs `code` on the public test's input (2 elements) only, then answers honestly."""
    body = "\n".join("        " + line for line in code.strip().splitlines())
    return {
        "insert": {2: REPLY_FD + "from autograder.execute import wire"},
        "replace": {"return x * 2": f"if x.numel() == 2:\n{body}\n    return x * 2"},
    }


def _frame(tree: str) -> str:
    """Student code writing a frame whose JSON header is the bytes expression `tree`."""
    return (
        f"head = b'{{\"blobs\": [], \"tree\": ' + {tree} + b'}}'\n"
        "body = struct.pack('>Q', len(head)) + head\n"
        "os.write(_reply_fd(), b'AGW1' + struct.pack('>Q', len(body)) + body)"
    )


# a worker-side describe_exception the student swaps in (run as __main__ cold, as a module warm)
PATCH_DESCRIBE = """
import sys
def _patch_describe(fn):
    for m in (sys.modules.get('__main__'), sys.modules.get('autograder.execute.worker')):
        if m is not None and hasattr(m, 'describe_exception'):
            m.describe_exception = fn
"""

HUGE_ERROR = (
    PATCH_DESCRIBE
    + """
_patch_describe(lambda exc: {'type': 'T' * 1000, 'message': 'M' * 1_000_000,
                             'frames': [{'cell': 6, 'line': 1, 'code': 'C' * 10_000}] * 100})
"""
)

PUBLIC_CRASHED = [test_outcomes(test_double_small="crashed", test_double_random="passed")]


def minor_as_string(ctx: Ctx) -> bytes:
    nbj = json.loads(Path(ctx.master).read_text())
    nbj["nbformat_minor"] = "5"
    return json.dumps(nbj).encode()


def attacks() -> list[Attack]:
    A = Attack
    return [
        A(
            "bounds_tree_over_cap",
            "double() forges a frame whose JSON tree is 5 MiB (the cap is 4 MiB)",
            nb("bounds_tree_over_cap", **_on_public(_frame("b' ' * (5 << 20) + b'0'"))),
            FULL - 1,
            "crashed",
            checks=[*PUBLIC_CRASHED, test_message("public/test_double.py", "MiB limit"), bounded],
        ),
        A(
            "bounds_wide_tree",
            "double() forges a 3.6 MB frame of 1.2 million empty objects (~25x in json.loads)",
            nb("bounds_wide_tree", **_on_public(_frame("b'[' + b','.join([b'{}'] * 1_200_000) + b']'"))),
            FULL - 1,
            "crashed",
            checks=[*PUBLIC_CRASHED, test_message("public/test_double.py", "values in one result"), bounded],
        ),
        A(
            "bounds_deep_tree",
            "double() forges a frame nested 150,000 deep (under the value cap)",
            nb("bounds_deep_tree", **_on_public(_frame("b'[' * 150_000 + b']' * 150_000"))),
            FULL - 1,
            "crashed",
            checks=[*PUBLIC_CRASHED, test_message("public/test_double.py", "unreadable header"), bounded],
        ),
        A(
            "bounds_tensor_dtype_wrong_type",
            "double() forges a frame whose tensor node has a list for its dtype "
            "(a TypeError in the judge would make it a grader error)",
            nb(
                "bounds_tensor_dtype_wrong_type",
                **_on_public(_frame("b'{\"t\": \"tensor\", \"dtype\": [1], \"shape\": [2], \"blob\": 0}'")),
            ),
            FULL - 1,
            "crashed",
            checks=[*PUBLIC_CRASHED, test_message("public/test_double.py", "unknown tensor dtype"), bounded],
        ),
        A(
            "bounds_many_values",
            "double() returns a list of 300,000 floats on the public input",
            nb("bounds_many_values", replace={"return x * 2": ("return [0.5] * 300_000 if x.numel() == 2 else x * 2")}),
            FULL - 1,
            "crashed",
            checks=[*PUBLIC_CRASHED, test_message("public/test_double.py", "values in one result"), bounded],
        ),
        A(
            "bounds_giant_string",
            "double() returns a 3 MiB string on the public input",
            nb("bounds_giant_string", replace={"return x * 2": "return 'x' * (3 << 20) if x.numel() == 2 else x * 2"}),
            FULL - 1,
            "crashed",
            checks=[*PUBLIC_CRASHED, test_message("public/test_double.py", "characters is over"), bounded],
        ),
        A(
            "bounds_forged_cell_records",
            "a cell forges cell records for cells 7777, 1 and -3",
            nb(
                "bounds_forged_cell_records",
                append=[
                    REPLY_FD + "from autograder.execute import wire\nfd = _reply_fd()\n"
                    "for i in (7777, 1, -3):\n"
                    "    os.write(fd, wire.encode({'event': 'cell_end', 'index': i, "
                    "'error': {'type': 'Forged', 'message': 'F' * 100_000, 'frames': []}, "
                    "'notes': ['forged'] * 1000}))"
                ],
            ),
            FULL,
            "crashed",
            "cell 6 (import os, fcntl, struct) crashed the worker",
            checks=[
                cell_statuses("crashed"),
                cell_message("crashed", "cell 7777 reported as finished while cell 6 runs"),
                bounded,
            ],
        ),
        A(
            "bounds_error_wrong_type",
            "a cell forges its own record with `error` a list",
            nb(
                "bounds_error_wrong_type",
                append=[
                    REPLY_FD + "from autograder.execute import wire\n"
                    "os.write(_reply_fd(), wire.encode({'event': 'cell_end', 'index': 6, "
                    "'error': [1, 2], 'notes': []}))"
                ],
            ),
            FULL,
            "crashed",
            "cell 6 (import os, fcntl, struct) crashed the worker",
            checks=[cell_statuses("crashed"), cell_message("crashed", "field 'error' is list"), bounded],
        ),
        A(
            "bounds_huge_notes",
            "six cells each report three 1,000,000-character notes",
            nb("bounds_huge_notes", append=["get_ipython().notes.extend(['N' * 1_000_000] * 3)"] * 6),
            FULL,
            "graded",
            checks=[cut_in_cells, bounded],
        ),
        A(
            "bounds_huge_messages",
            "six cells raise with a swapped describe_exception: a 1 MB message, "
            "a 1000-character type, 100 frames of 10 kB",
            nb("bounds_huge_messages", append=[HUGE_ERROR] + ["raise ValueError('boom')"] * 6),
            FULL,
            "graded",
            checks=[cell_statuses(*["error"] * 6), cut_in_cells, bounded],
        ),
        A(
            "bounds_probe_error_wrong_type",
            "double() raises with an error report whose type is a list",
            nb(
                "bounds_probe_error_wrong_type",
                **{
                    "insert": {2: PATCH_DESCRIBE},
                    "replace": {
                        "return x * 2": (
                            "if x.numel() == 2:\n"
                            "        _patch_describe(lambda exc: {'type': ['not', 'a', 'str'], 'message': 1, 'frames': {}})\n"
                            "        raise ValueError('lie about me')\n    return x * 2"
                        )
                    },
                },
            ),
            FULL - 1,
            "crashed",
            checks=[*PUBLIC_CRASHED, test_message("public/test_double.py", "field 'type' is list"), bounded],
        ),
        A(
            "bounds_forged_exit",
            "double() forges the zygote's exit report with a list for the signal",
            nb(
                "bounds_forged_exit",
                **_on_public(
                    "os.write(_reply_fd(), wire.encode({'event': 'exit', 'signal': [9], 'code': 'x', 'error': {}}))"
                ),
            ),
            FULL - 1,
            "crashed",
            checks=[*PUBLIC_CRASHED, test_message("public/test_double.py", "crashed the grading worker"), bounded],
        ),
        A(
            "bounds_minor_is_a_string",
            "nbformat_minor is the string '5'",
            write_bytes("bounds_minor_is_a_string", minor_as_string),
            0,
            "invalid",
            "nbformat_minor",
        ),
    ]
