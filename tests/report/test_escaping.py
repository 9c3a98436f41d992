"""Every output an instructor or an LMS sees, fed every kind of hostile text (hypothesis): nothing
crashes, the payload creates no markup, link, formula or escape sequence, and the text stays readable.

The `assert_*_safe` checkers are shared with the attack corpus (tests/attacks/corpus_escape.py).
"""

from __future__ import annotations

import csv
import html
import io
import unicodedata
from dataclasses import replace
from html.parser import HTMLParser

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from autograder.grades.rows import grade_rows
from autograder.intake.roster import Identity
from autograder.judge.results import CellIssue
from autograder.report import escape
from autograder.report.canvas_csv import canvas_table, write_canvas_csv
from autograder.report.exports import write_generic_csv
from autograder.report.feedback import render_html, render_markdown
from autograder.report.grades_csv import write_grades_csv
from autograder.report.instructor_report import render_report
from autograder.report.moodle_csv import write_moodle_csv
from autograder.report.progress import progress
from autograder.report.table import print_table
from tests.grades.factory import result

PAYLOADS = [
    "[/x]",
    "[bold red]RED[/]",
    "[link=javascript:alert(1)]click[/link]",
    ":skull:",
    "\\[red]x",
    "\x1b[31mRED\x1b[0m",
    "\x1b[2J\x1b[H",
    "\x1b]8;;https://evil.example/\x1b\\click\x1b]8;;\x1b\\",
    "\x9b31m",
    "\x1b]0;title\x07",
    "ok\rOVERWRITTEN",
    "evil\u202egnp.exe",
    "\u2066x\u2069",
    "a\0b",
    "line1\nline2",
    "\x7f",
    '=HYPERLINK("https://evil.example","x")',
    "+cmd|' /C calc'!A0",
    "-2+3+cmd|' /C calc'!A0",
    "@SUM(A1)",
    "\t=1+1",
    "\r=1+1",
    "-1",
    "3.5",
    "<script>alert(1)</script>",
    '<img src=x onerror="alert(1)">',
    '</pre><a href="javascript:alert(1)">x</a>',
    "&lt;b&gt;",
    "{{ 7*7 }}",
    "{% raw %}",
    "[click](javascript:alert(1))",
    "![img](https://evil.example/x.png)",
    "<https://evil.example>",
    "```\n# injected\n```",
    "~~~\n<b>x</b>",
    "`` ` ``",
    "| a | b |",
    "\\| x",
    "# heading",
    "> quote",
    "- item",
    "*emph* __strong__",
    "<!-- comment",
    "[ref]: https://evil.example",
    "https://evil.example/x",
    # lone surrogates: valid in a Python str (a notebook's "\\ud800", a non-UTF-8 file name), in no UTF-8 file
    "\ud800",
    "a\udcffb",
    "\udfff\ud800",
]
LONG = "A" * 5000 + "[/x]\x1b[2J=1"

hostile = st.lists(
    st.one_of(st.sampled_from(PAYLOADS), st.text(max_size=20), st.characters(codec="utf-8"), st.just(LONG)),
    min_size=1,
    max_size=6,
).map("".join)
# a hostile text that still shows something (fields rendered only when non-empty)
shown = hostile.filter(lambda s: s.strip() != "")


def as_written(s: str) -> str:
    """How a field holding `s` reads back from a CSV: lone surrogates and NUL as U+FFFD."""
    from autograder.config.files import writable

    return writable(s).replace("\0", "\ufffd")


FAST = settings(max_examples=50, deadline=None, suppress_health_check=[HealthCheck.too_slow])
FIXTURES = settings(FAST, suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture])


# ------------------------------------------------------------------ checkers


def _controls(text: str, keep: str = "") -> list[str]:
    return [c for c in text if c not in keep and (unicodedata.category(c) in ("Cc", "Cs") or c in escape._BIDI)]


def assert_terminal_safe(text: str) -> None:
    """No control character (ESC, CSI, OSC 8, BEL, CR, NUL) or bidi override reached the terminal
    (newline and tab are harmless)."""
    assert _controls(text, keep="\n\t") == [], repr(text[:300])


def _readable(original: str, shown: str) -> None:
    """Every printable character of the payload is still there, in order (controls are written out)."""
    it = iter(shown)
    missing = [c for c in original if not _controls(c) and c not in ("\u2028", "\u2029") and c not in it]
    assert not missing, (original[:200], shown[:200])


def assert_csv_safe(text: str) -> list[list[str]]:
    """Parse the CSV back: no field a spreadsheet would run as a formula."""
    rows = list(csv.reader(io.StringIO(text, newline="")))
    for row in rows:
        for cell in row:
            assert not cell.startswith(escape.FORMULA_PREFIXES) or escape._is_number(cell), repr(cell)
            assert "\0" not in cell
    return rows


class _Tags(HTMLParser):
    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.tags: list[tuple] = []
        self.text: list[str] = []

    def handle_starttag(self, tag, attrs):
        self.tags.append(
            (
                tag,
                tuple(sorted(k for k, _ in attrs)),
                tuple(v for k, v in attrs if k in ("href", "src") and not (v or "").startswith("data:")),
            )
        )

    def handle_endtag(self, tag):
        self.tags.append(("/" + tag,))

    def handle_data(self, data):
        self.text.append(data)


def html_structure(page: str) -> tuple[list[tuple], str]:
    p = _Tags()
    p.feed(page)
    p.close()
    return p.tags, "".join(p.text)


def assert_same_structure(page: str, benign_page: str) -> None:
    """The hostile page has exactly the elements, attributes and links of the benign one."""
    assert html_structure(page)[0] == html_structure(benign_page)[0]


def markdown_html(md: str) -> str:
    from markdown_it import MarkdownIt

    return MarkdownIt("commonmark", {"html": True}).enable("table").render(md)


# ------------------------------------------------------------------ escape.py itself


@FAST
@given(hostile)
def test_terminal_escapes_every_control_and_keeps_the_text(s):
    out = escape.terminal(s)
    assert_terminal_safe(out)
    assert "\n" not in out and "\t" not in out
    _readable(s, out)
    assert escape.terminal(out) == out  # idempotent: nothing left to escape


def test_terminal_leaves_plain_text_alone():
    assert escape.terminal("élève ☃ [red] 1/2") == "élève ☃ [red] 1/2"
    assert escape.terminal("a\x1b[31mb\u202ec\rd") == "a\\x1b[31mb\\u202ec\\rd"


@FAST
@given(hostile)
def test_csv_cell_neutralises_formulas_and_round_trips(s):
    cell = escape.csv_cell(s)
    assert not cell.startswith(escape.FORMULA_PREFIXES) or escape._is_number(cell)
    assert cell.removeprefix("'") == s.replace("\0", "\ufffd") or cell == s.replace("\0", "\ufffd")


@FAST
@given(shown, hostile)
def test_markdown_inline_and_block_are_only_code(a, b):
    md = f"x {escape.md_inline(a)} y\n\n{escape.md_block(b)}\n\n| h |\n|---|\n| {escape.md_cell(a)} |\n"
    tags, text = html_structure(markdown_html(md))
    names = [t[0] for t in tags]
    allowed = {
        "p",
        "/p",
        "code",
        "/code",
        "pre",
        "/pre",
        "table",
        "/table",
        "thead",
        "/thead",
        "tbody",
        "/tbody",
        "tr",
        "/tr",
        "th",
        "/th",
        "td",
        "/td",
    }
    assert set(names) <= allowed, names
    assert names.count("code") == 3 and names.count("td") == 1, (md[:500], names)


# ------------------------------------------------------------------ every writer


def hostile_result(text: str, *, sid: str | None = None):
    """A graded result with `text` in every field a student can influence."""
    base = result("s1", (0, 0.5, 1, 0, 1), message="m", policy="messages")
    tests = [replace(t, message=text, name=text if i == 0 else t.name) for i, t in enumerate(base.tests)]
    cells = [CellIssue(cell=3, status="error", type=text, message=text, code=text, frames=[], notes=[text])]
    return replace(
        base,
        submission_id=text if sid is None else sid,
        source=text,
        message=text,
        tests=tests,
        cells=cells,
        stdout=text,
        stderr=text,
    )


def hostile_identity(text: str) -> Identity:
    return Identity(student_id=text, name=text, email=text, sis_id=text, login_id=text, section=text, lms_user_id=text)


@FAST
@given(hostile)
def test_score_table_never_crashes_nor_obeys_markup_or_escapes(s):
    for rich in (True, False):
        buf = io.StringIO()
        r = hostile_result(s)
        if rich:
            print_table(grade_rows([r]), s, stream=buf)
        else:
            import builtins

            real_import = builtins.__import__

            def no_rich(name, *a, **k):
                if name.startswith("rich"):
                    raise ImportError(name)
                return real_import(name, *a, **k)  # noqa: B023 - the import of this pass, restored after it

            builtins.__import__ = no_rich
            try:
                print_table(grade_rows([r]), s, stream=buf)
            finally:
                builtins.__import__ = real_import
        assert_terminal_safe(buf.getvalue())


def test_score_table_shows_markup_as_text():
    buf = io.StringIO()
    print_table(
        grade_rows([hostile_result("[/x] [link=https://e.example]y[/link]", sid="[red]id[/red]")]), "t [/]", stream=buf
    )
    out = buf.getvalue()
    assert "[red]id[/red]" in out and "t [/]" in out and "[/x]" in out


@FIXTURES
@given(s=shown)
def test_progress_lines_and_bar(s, capsys):
    for interactive in (False, True):
        with progress(1, s, interactive=interactive) as on_result:
            on_result(hostile_result(s), False)
        captured = capsys.readouterr()
        assert_terminal_safe(captured.err.replace("\t", " "))
        if interactive:
            assert_terminal_safe(captured.out.replace("\r", ""))  # rich's own redraws use CR
        else:
            _readable(s[:1000], captured.err)


@FIXTURES
@given(s=hostile)
def test_grades_csv(s, tmp_path_factory):
    path = tmp_path_factory.mktemp("csv") / "grades.csv"
    r = hostile_result(s)
    write_grades_csv(path, [r, result("plain")])
    rows = assert_csv_safe(path.read_bytes().decode("utf-8"))
    assert len(rows) == 3 and len({len(r) for r in rows}) == 1  # no injected row or column
    header = rows[0]
    got = rows[1][header.index("source")]
    want = r.source.replace("\0", "\ufffd")  # (the result may have clipped a long name)
    assert got.removeprefix("'") == want or got == want


@FIXTURES
@given(s=hostile)
def test_lms_csvs(s, tmp_path_factory):
    folder = tmp_path_factory.mktemp("lms")
    who = hostile_identity(s)
    rows = grade_rows([hostile_result(s, sid="s1")], {"s1": who}, roster=[hostile_identity(s + "x")])
    write_canvas_csv(folder / "canvas.csv", rows, assignment_name=s, assignment_id=s)
    write_moodle_csv(folder / "moodle.csv", rows, item_name=s or "x", identity="sis_id")
    write_generic_csv(folder / "export.csv", rows)
    for name in ("canvas.csv", "moodle.csv", "export.csv"):
        parsed = assert_csv_safe(folder.joinpath(name).read_bytes().decode("utf-8").removeprefix("\ufeff"))
        assert len({len(r) for r in parsed}) == 1, name
    canvas = list(csv.reader(io.StringIO(folder.joinpath("canvas.csv").read_bytes().decode("utf-8"), newline="")))
    if s.strip():
        assert canvas[0][:5] == ["Student", "ID", "SIS User ID", "SIS Login ID", "Section"]
        for cell in canvas[2][1:4]:  # ID, SIS User ID, SIS Login ID
            assert cell.removeprefix("'") == as_written(s) or cell == as_written(s)


def test_canvas_ids_are_neutralised():
    rows = grade_rows(
        [result("s1")],
        {"s1": Identity("s1", "=1+1", sis_id="=HYPERLINK(\"x\")", login_id="@SUM(1)", lms_user_id="+1+cmd")},
    )
    body = canvas_table(rows, assignment_name="A").rows[1]
    assert body[:4] == ["=1+1", "+1+cmd", "=HYPERLINK(\"x\")", "@SUM(1)"]  # the writer escapes, not the table


@FAST
@given(shown)
def test_feedback_html_gets_no_markup_from_the_payload(s):
    who = hostile_identity(s)
    page = render_html(hostile_result(s), who, title=s)
    benign = render_html(hostile_result("x"), hostile_identity("x"), title="x")
    assert_same_structure(page, benign)
    assert s[:200] in html.unescape(page)  # shown as text


@FAST
@given(shown)
def test_feedback_markdown_shows_the_payload_only_as_code(s):
    md = render_markdown(hostile_result(s), hostile_identity(s), title=s)
    benign = render_markdown(hostile_result("x"), hostile_identity("x"), title="x")
    assert_same_structure(markdown_html(md), markdown_html(benign))
    assert_terminal_safe(md.replace("\t", " "))  # `cat feedback.md` is safe too


@settings(max_examples=4, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(shown)
def test_instructor_report(s):
    pytest.importorskip("matplotlib")
    page = render_report(
        [hostile_result(s, sid="s1")],
        title=s,
        identities={"s1": hostile_identity(s)},
        missing=[hostile_identity(s + "m")],
    )
    benign = render_report(
        [hostile_result("x", sid="s1")],
        title="x",
        identities={"s1": hostile_identity("x")},
        missing=[hostile_identity("xm")],
    )
    strip = [t for t in html_structure(page)[0] if t[0] != "img"]
    assert strip == [t for t in html_structure(benign)[0] if t[0] != "img"]


def test_every_template_is_autoescaped():
    env = escape.html_environment()
    names = env.list_templates()
    assert "feedback.html.j2" in names and "instructor_report.html.j2" in names
    for name in names:
        assert env.autoescape is True or env.autoescape(name), name
        source = env.loader.get_source(env, name)[0].replace(" ", "")
        assert "|safe" not in source and "autoescapefalse" not in source, name


SURROGATES = [p for p in PAYLOADS if any("\ud800" <= c <= "\udfff" for c in p)]


@pytest.mark.parametrize("s", SURROGATES)
def test_lone_surrogates_reach_every_writer_as_replacement_characters(s, tmp_path):
    """A lone surrogate (a notebook's "\\ud800", a non-UTF-8 file name) fits no UTF-8 file: the first
    writer to meet one raised, and the submission became a grader error, graded again forever.  Every
    writer now gets U+FFFD in its place, and every file it writes is strict UTF-8."""
    from autograder.config.files import write_atomic
    from autograder.report.feedback import write_feedback
    from autograder.store.database import Gradebook
    from autograder.store.result_files import write_submission

    r, who = hostile_result(s, sid="s1"), hostile_identity(s)
    assert "\ufffd" in r.message and not any("\ud800" <= c <= "\udfff" for c in who.name + r.source)
    write_submission(tmp_path, r)
    write_grades_csv(tmp_path / "grades.csv", [r])
    rows = grade_rows([r], {"s1": who}, roster=[hostile_identity(s + "x")])
    write_canvas_csv(tmp_path / "canvas.csv", rows, assignment_name=s, assignment_id=s)
    write_moodle_csv(tmp_path / "moodle.csv", rows, item_name=s, identity="sis_id")
    write_generic_csv(tmp_path / "export.csv", rows)
    write_feedback(tmp_path / "feedback", r, who, title=s)
    write_atomic(tmp_path / "report.html", render_report([r], title=s, identities={"s1": who}))
    gb = Gradebook(tmp_path / "gradebook.sqlite")
    gb.put(r)
    assert gb.get(r.assignment, "s1").message == r.message
    gb.close()
    files = [p for p in tmp_path.rglob("*") if p.is_file() and p.suffix != ".sqlite"]
    assert len(files) == 9
    for p in files:
        text = p.read_bytes().decode("utf-8")  # strict
        assert "\ufffd" in text, p.name
