"""Attack classes 6 and 7: secrets stay secret, and everything shown to an instructor or an LMS is escaped.

The escaping attacks put rich markup, ANSI/OSC 8 escapes, spreadsheet formulas, HTML/JS and Markdown
links where a student controls the text (printed output, an exception's class name and message, a
value a test message quotes, the file name).  The grader records that text as it came (so the checks
first prove it arrived) and `neutralised` then reads every output made from the result: the class's
grades.csv as the pipeline wrote it, the feedback .md/.html, the instructor report and the score
table rendered by the CLI's `print_table`, asserting that the payload creates no formula, element,
link or escape sequence there.

`seed_of_another_test` tries to predict the hidden inputs of `test_double_random` from the seeds
its worker can read (the cells' seed, and each probe call's); with the public SHA-256 derivation
from a base seed the kit once had, this earned the 3 points of that test.
"""

from __future__ import annotations

import io
import os
import re
from dataclasses import replace
from pathlib import Path

from autograder.grades.rows import grade_rows
from autograder.probe.seeds import Seeds
from autograder.report.feedback import write_feedback
from autograder.report.instructor_report import render_report
from autograder.report.table import print_table
from tests.attacks.corpus import FULL, NO_ANSWER, WRONG_DOUBLE, Attack, Ctx, nb, notebook, output_of
from tests.report.test_escaping import (
    assert_csv_safe,
    assert_same_structure,
    assert_terminal_safe,
    html_structure,
    markdown_html,
)

TERMINAL = (
    "[/x] [link=javascript:alert(1)]AG_ESC[/link] [bold red]RED[/] :skull: \x1b[31mRED\x1b[0m\x1b[2J "
    "\x1b]8;;https://evil.example/\x1b\\click\x1b]8;;\x1b\\ \x9b31m ok\rOVERWRITTEN evil\u202egnp.exe\x07"
)
WEB = (
    '=HYPERLINK("https://evil.example","x") <script>alert(1)</script> <img src=x onerror="alert(1)"> '
    '</pre><a href="javascript:alert(1)">AG_ESC</a> [click](javascript:alert(1)) '
    '![img](https://evil.example/x.png) <https://evil.example>'
)
FENCE = "AG_ESC\n```\n# injected heading\n<b>raw</b>\n````\n~~~\n| a | b |\n[ref]: https://evil.example\n"
# lone surrogates: a Python str (a notebook's "\\ud800", bytes that are not UTF-8 in a file name) no UTF-8 file holds
SURROGATES = "AG_SUR \ud800 a\udcffb \udfff\ud800"
SURROGATE_PAYLOAD = f"""try:
    print({SURROGATES!r})  # the worker's stdout is strict UTF-8, as a terminal's is: this raises
except UnicodeEncodeError:
    print("AG_SUR printed")
raise ValueError({SURROGATES!r})
"""
SURROGATE_NAME = b"AG_SUR_\xff\xfe_\xed\xa0\x80.ipynb"  # not UTF-8 (the last three bytes encode a surrogate)


def surrogate_free(r, ctx: Ctx) -> None:
    """The result holds U+FFFD where the submission had lone surrogates, in its cells' code too."""
    text = (
        output_of(r) + r.source + "".join(c.code for c in r.cells) + "".join(str(f) for c in r.cells for f in c.frames)
    )
    assert "\ufffd AG_RAW" in text, "the JSON's lone surrogate never reached the result: the check is vacuous"
    assert not any("\ud800" <= ch <= "\udfff" for ch in text)


def _surrogate_notebook(ctx: Ctx) -> Path:
    """A cell raising lone surrogates, ANSWER one (the test message quotes it), and one escaped in the JSON itself."""
    raw = "x = 1  # AG_RAW_SURROGATE: the notebook's JSON holds a lone surrogate here (compile() refuses the cell)"
    path = notebook(
        ctx,
        "escape_lone_surrogates",
        insert={3: [raw, SURROGATE_PAYLOAD]},
        replace={"ANSWER = 42": f"ANSWER = {SURROGATES!r}"},
    )
    path.write_text(path.read_text(encoding="utf-8").replace("AG_RAW_SURROGATE", "\\udc80 AG_RAW"), encoding="utf-8")
    return path


FILE_NAME = '=HYPERLINK("evil.example","AG")[bold red]x[link=javascript:alert(1)]y\x1b[31m<b>AG_ESC<b>.ipynb'  # no "/"


def _x(text: str) -> str:
    return "x" if text else ""


def _benign(r):
    """The same result with every student-influenced text replaced by "x" (empty stays empty)."""
    tests = [replace(t, message=_x(t.message)) for t in r.tests]
    cells = [
        replace(c, type=_x(c.type), message=_x(c.message), code=_x(c.code), notes=[_x(n) for n in c.notes])
        for c in r.cells
    ]
    return replace(
        r,
        submission_id="x",
        source="x",
        message=_x(r.message),
        stdout=_x(r.stdout),
        stderr=_x(r.stderr),
        tests=tests,
        cells=cells,
    )


def neutralised(r, ctx: Ctx) -> None:
    """Every output made from this result: no formula, element, link or escape sequence from the payload."""
    # grades.csv, as the pipeline wrote it for the whole class
    grades = assert_csv_safe((ctx.out / r.assignment / "grades.csv").read_bytes().decode("utf-8"))
    row = next(x for x in grades[1:] if x[0] == r.submission_id)
    assert row[1].removeprefix("'") == r.source.replace("\0", "\ufffd"), (row[1], r.source)
    # the feedback pages (student-facing) and the instructor report
    folder = ctx.tmp / "feedback"
    html, md = write_feedback(folder, r)
    bhtml, bmd = write_feedback(folder / "benign", _benign(r))
    page = html.read_text(encoding="utf-8")
    assert_same_structure(page, bhtml.read_text(encoding="utf-8"))
    assert not any(len(t) > 2 and t[2] for t in html_structure(page)[0]), "a link or remote source in the page"
    markdown = md.read_bytes().decode("utf-8")
    assert_same_structure(markdown_html(markdown), markdown_html(bmd.read_bytes().decode("utf-8")))
    assert_terminal_safe(markdown)  # `cat` it: no escape sequence either
    report = render_report([r], title="t")
    benign_report = render_report([_benign(r)], title="t")
    assert [t for t in html_structure(report)[0] if t[0] != "img"] == [
        t for t in html_structure(benign_report)[0] if t[0] != "img"
    ]
    # the score table, through the function `autograder grade` prints with
    buf = io.StringIO()
    print_table(grade_rows([r]), f"{r.assignment}: 1 submission", stream=buf)
    assert_terminal_safe(buf.getvalue())
    assert r.submission_id in buf.getvalue() or len(r.submission_id) > 20


def recorded_raw(*needles: str):
    """The payload did reach the record (escaping happens where it is shown, so the checks are not vacuous)."""

    def check(r, ctx):
        text = output_of(r) + r.source
        missing = [n for n in needles if n not in text]
        assert not missing, f"{missing} not in the result of {r.submission_id}"

    check.__name__ = "recorded_raw"
    return check


RAISE_PAYLOAD = f"""
print({TERMINAL!r})
print({WEB!r})
print({FENCE!r})
raise type({TERMINAL[:90]!r}, (Exception,), {{}})({(TERMINAL + WEB + FENCE)!r})
"""

# (the wire keeps 100 characters of a class name)
QUOTED = "[/x]\x1b[31m\x1b]8;;https://evil.example/\x1b\\=1+1<script>alert(1)</script>[md](javascript:alert(1))"
QUOTED_VALUE = f"ANSWER = type({QUOTED!r}, (), {{}})()  # a value the test message quotes"


# -- the seed attack ----------------------------------------------------------------------------------

SEED_THIEF = '''
import hashlib, torch
def _old_derive(*parts):  # the kit's public derivation from a base seed, before per-test HMACs
    h = hashlib.sha256()
    for p in parts:
        h.update(p if isinstance(p, bytes) else str(p).encode())
        h.update(b"\\0")
    return int.from_bytes(h.digest()[:8], "big") >> 1
_CELL_SEED = torch.initial_seed()
print("SEEN cell", _CELL_SEED)
def _predicted(x):
    """The inputs test_double_random would draw, for every base seed this worker could have been told."""
    seen = torch.initial_seed()
    print("SEEN call", seen)
    guesses = {_CELL_SEED - i for i in range(12)} | {seen}
    for base in guesses:
        for test_seed in (_old_derive(base, "test_double.py", "test_double_random"), base):
            g = torch.Generator().manual_seed(test_seed)
            for shape in [(3,), (2, 5)]:
                t = torch.randn(shape, generator=g)
                if t.shape == x.shape and torch.equal(t, x):
                    return True
    return False
'''


def seeds_seen_are_their_own(r, ctx: Ctx) -> None:
    """What the worker read is the cells' seed (+ cell index) or one of that call's own seeds, never a
    test's seed; so it cannot compute another test's inputs."""
    seen = [(k, int(v)) for k, v in re.findall(r"SEEN (cell|call) (\d+)", r.stdout)]
    assert {k for k, _ in seen} == {"cell", "call"}, r.stdout[-1500:]
    wide = Seeds(ctx.secret.encode(), r.assignment)
    own = Seeds(wide.key, r.assignment, r.environment["variant"])  # a hidden test's: the student's variant
    ids = {f"{Path(t.file).name}::{t.id.split('::')[1].split('[')[0]}" for t in r.tests}
    calls = {s.call(i, k) for s in (wide, own) for i in ids for k in range(8)}
    tests = {s.test(i) for s in (wide, own) for i in ids}
    for kind, v in seen:
        assert v not in tests, f"the worker saw the seed of a test ({kind})"
        assert (v in calls) if kind == "call" else (0 <= v - wide.cells() < 50), (kind, v)


def attacks() -> list[Attack]:
    A = Attack
    return [
        A(
            "escape_cell_output",
            "prints rich markup, ANSI/OSC 8, CR, bidi, formulas, HTML/JS, Markdown links and "
            "fences, then raises an exception whose class name and message carry them",
            nb("escape_cell_output", insert={3: RAISE_PAYLOAD}),
            FULL,
            "graded",
            checks=[recorded_raw("\x1b]8;;", "[/x]", "<script>", "```\n# injected"), neutralised],
        ),
        A(
            "escape_quoted_value",
            "ANSWER is an object whose class name is markup/HTML: the test message quotes it",
            nb("escape_quoted_value", replace={"ANSWER = 42": QUOTED_VALUE}),
            NO_ANSWER,
            "graded",
            checks=[recorded_raw("[/x]", "\x1b[31m"), neutralised],
        ),
        A(
            "escape_file_name",
            "a notebook named with a spreadsheet formula, rich markup, ANSI and HTML",
            lambda ctx: _named_copy(ctx, FILE_NAME),
            FULL,
            "graded",
            intake=True,
            checks=[recorded_raw('=HYPERLINK("evil.example"', "\x1b[31m"), neutralised],
        ),
        A(
            "escape_markdown_fences",
            "a cell error message of Markdown fences, raw HTML, a table row and a link "
            "definition, aimed at the .md feedback",
            nb("escape_markdown_fences", insert={3: f"raise ValueError({FENCE * 3!r} + '````````')"}),
            FULL,
            "graded",
            checks=[recorded_raw("```\n# injected"), neutralised],
        ),
        A(
            "escape_lone_surrogates",
            "raises lone surrogates, sends them as ANSWER and has "
            "one in its JSON (valid in a Python str, in no UTF-8 file): every output is still strict UTF-8, no grade lost",
            _surrogate_notebook,
            NO_ANSWER,
            "graded",
            checks=[recorded_raw("AG_SUR \ufffd a\ufffdb", "AG_SUR printed"), surrogate_free, neutralised],
        ),
        A(
            "escape_surrogate_file_name",
            "a notebook whose file name is not UTF-8 (read back as lone surrogates)",
            lambda ctx: _named_copy(ctx, os.fsdecode(SURROGATE_NAME)),
            FULL,
            "graded",
            intake=True,
            checks=[recorded_raw("AG_SUR_\ufffd"), neutralised],
        ),
        A(
            "seed_of_another_test",
            "reads the seeds its worker runs under (cells, probe calls) and predicts the hidden "
            "inputs of test_double_random to answer them right while double() is wrong",
            nb(
                "seed_of_another_test",
                insert={2: SEED_THIEF},
                replace={"return x * 2": "return x * 2 if _predicted(x) else x * 3"},
            ),
            WRONG_DOUBLE,
            "graded",
            checks=[seeds_seen_are_their_own],
        ),
    ]


def _named_copy(ctx: Ctx, name: str) -> Path:
    folder = ctx.tmp / "escape_file_name"
    folder.mkdir(exist_ok=True)
    path = folder / name
    path.write_bytes(ctx.master.read_bytes())
    return path
