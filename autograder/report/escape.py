"""The one place for each kind of escaping of text a student controls.

Submission ids and file names, messages, printed output, exception types, test messages that
quote student values and roster fields are all hostile.  Every writer passes *every* field it
shows through the function for its output kind, so no caller has to remember which fields are
dangerous:

| output | function | what it neutralises |
|---|---|---|
| terminal (print, progress lines) | `terminal` | control characters (ANSI/OSC 8 escapes, `\\r`, NUL), bidi overrides |
| rich renderables (score table, progress bar) | `rich_text` | the above, plus rich markup and emoji codes (a `Text` is never parsed) |
| CSV (grades.csv, LMS imports) | `csv_cell` | spreadsheet formulas (`=`, `+`, `-`, `@`, tab, CR first), NUL; the `csv` module quotes |
| HTML (feedback, instructor report) | `html_environment` | Jinja2 autoescape on for every template (no HTML is built outside one) |
| a notebook's Markdown and HTML outputs (workspace) | `markdown_html`, `clean_html` | rendered, then nh3 (a maintained allow-list sanitiser): no script, handler, style, form, frame, SVG; no image; links only http(s)/mailto/# |
| plot labels (matplotlib, instructor report) | `plot_label` | mathtext (`$`), control glyphs; long labels wrapped |
| Markdown (feedback .md) | `md_block`, `md_inline`, `md_cell` | raw HTML, links, images, emphasis: student text only inside code fences/spans |
| code on a page (workspace: submission, grade by exercise, similarity) | `code_html` (filter `code`), `hidden_warning` | characters that make code read otherwise than it runs (Trojan Source, CVE-2021-42574): bidi controls, zero-width and other invisible characters, unusual spaces, look-alikes of ASCII letters, each drawn as a visible `⟨U+202E⟩` mark; the cell flagged |
"""

from __future__ import annotations

import csv
import functools
import io
import re
import unicodedata
from pathlib import Path
from typing import Any

from autograder.config.files import write_atomic

FORMULA_PREFIXES = ("=", "+", "-", "@", "\t", "\r")

# bidi embeddings/overrides/isolates and marks: they reorder what is shown ("Trojan Source")
_BIDI = "\u061c\u200e\u200f\u202a\u202b\u202c\u202d\u202e\u2066\u2067\u2068\u2069"


def _visible(ch: str) -> str:
    """A control character written out as a Python-style escape, so it is shown, never obeyed."""
    return {"\n": "\\n", "\r": "\\r", "\t": "\\t"}.get(ch) or (
        f"\\x{ord(ch):02x}" if ord(ch) < 0x100 else f"\\u{ord(ch):04x}"
    )


def _is_control(ch: str, keep: str) -> bool:
    return ch not in keep and (ch in _BIDI or unicodedata.category(ch) in ("Cc", "Cs") or ch in "\u2028\u2029")


def controls(text: str, keep: str = "") -> str:
    """`text` with every control character (C0, C1, DEL, bidi controls, line/paragraph separators,
    lone surrogates) except those in `keep` written out visibly (`\\x1b`, `\\u202e`)."""
    return "".join(_visible(c) if _is_control(c, keep) else c for c in str(text))


# -- terminal ------------------------------------------------------------------------


def terminal(text: Any) -> str:
    """One line safe to print on an instructor's terminal: no escape sequence, hyperlink, carriage
    return, newline or bidi override can act (each is shown as `\\x1b`, `\\r`, `\\u202e`...)."""
    return controls(str(text))


def rich_text(text: Any, style: str = "") -> Any:
    """A rich `Text` (never parsed for markup or emoji) holding `terminal(text)`."""
    from rich.text import Text

    return Text(terminal(text), style=style)


# -- CSV -----------------------------------------------------------------------------

_NUMBER = re.compile(r"[-+]?(\d+\.?\d*|\.\d+)([eE][-+]?\d+)?", re.ASCII)


def _is_number(text: str) -> bool:
    return _NUMBER.fullmatch(text) is not None


def csv_cell(value: Any) -> str:
    """A CSV field a spreadsheet will not run as a formula (CSV injection): `'` before a leading
    `=`, `+`, `-`, `@`, tab or CR (numbers such as `-2` are left alone); NUL, which some readers
    reject, becomes U+FFFD.  Quoting is the `csv` module's job."""
    text = "" if value is None else str(value)
    text = text.replace("\0", "\ufffd")
    if text.startswith(FORMULA_PREFIXES) and not _is_number(text):
        return "'" + text
    return text


def csv_row(values: list[Any]) -> list[str]:
    return [csv_cell(v) for v in values]


# -- HTML ----------------------------------------------------------------------------


def html_environment(package: str = "autograder.report", folder: str = "templates", **filters: Any) -> Any:
    """The Jinja2 environment for every HTML page: autoescape is on for every template, whatever
    its name, so a template can only show student text escaped (templates never use `|safe`)."""
    from jinja2 import Environment, PackageLoader, StrictUndefined

    env = Environment(
        loader=PackageLoader(package, folder),
        autoescape=True,
        undefined=StrictUndefined,
        trim_blocks=True,
        lstrip_blocks=True,
        keep_trailing_newline=True,
    )
    env.filters.update(code=code_html, hidden_warning=hidden_warning, **filters)
    return env


# -- code shown on a page: what reads otherwise than it runs ---------------------------------

# Letters of other scripts that look like ASCII ones (Unicode's confusables for the Latin alphabet, the
# Cyrillic and Greek ones students' keyboards type): an identifier spelled with them is another name.
_LOOKALIKES = dict(
    zip("АВЕЅІЈКМНОРСТХУасеԁһіјӏорԛѕԝхуΑΒΕΖΗΙΚΜΝΟΡΤΥΧαονρτυχ", "ABESIJKMHOPCTXYacedhijlopqswxyABEZHIKMNOPTYXaovptux")
)
_UNUSUAL = re.compile(r"[^\x20-\x7e\n\t\r]")  # where `_hidden` may find something: the rest is plain ASCII


@functools.lru_cache(maxsize=4096)
def _hidden(ch: str) -> str:
    """Why `ch` in code is not what a reader sees ("" when it is): a bidi control, invisible, an unusual space,
    or a look-alike of an ASCII character."""
    if ch in "\n\t\r" or " " <= ch <= "~":
        return ""
    if ch in _BIDI or unicodedata.bidirectional(ch) in ("LRE", "RLE", "LRO", "RLO", "PDF", "LRI", "RLI", "FSI", "PDI"):
        return "bidirectional control"
    category = unicodedata.category(ch)
    if (
        category in ("Cf", "Cc", "Cs", "Co", "Cn", "Zl", "Zp")
        or ch in "\u115f\u1160\u3164\uffa0\u2800"
        or "\ufe00" <= ch <= "\ufe0f"
        or "\U000e0100" <= ch <= "\U000e01ef"
    ):
        return "invisible"
    if category == "Zs":
        return "unusual space"
    like = _LOOKALIKES.get(ch) or (unicodedata.normalize("NFKC", ch) if category[0] == "L" or category == "Nd" else "")
    return f"looks like {like!r}" if like.isascii() and like.isprintable() and like.strip() else ""


def _label(ch: str) -> str:
    return f"U+{ord(ch):04X} {unicodedata.name(ch, 'unnamed')}"


def hidden_characters(text: Any) -> list[str]:
    """The characters of `text` that make code read otherwise than it runs, each once ("U+202E RIGHT-TO-LEFT
    OVERRIDE (bidirectional control)"), at most 20 (then how many more kinds)."""
    found: dict[str, str] = {}
    for ch in set(_UNUSUAL.findall(str(text))):
        if why := _hidden(ch):
            found[ch] = f"{_label(ch)} ({why})"
    kinds = sorted(found.values())
    return kinds[:20] + ([f"{len(kinds) - 20} more kinds"] if len(kinds) > 20 else [])


def code_html(text: Any) -> Any:
    """Code for a `<pre>`: escaped, and every character `hidden_characters` names drawn visibly as a marked
    `⟨U+202E⟩` (a look-alike letter is kept, marked and followed by its code point), so no reordering,
    hiding or impersonation acts on the page.  `Markup`, built here alone."""
    from markupsafe import Markup, escape

    text, out, at = str(text), [], 0
    for m in _UNUSUAL.finditer(text):
        ch, why = m.group(), _hidden(m.group())
        if not why:
            continue
        out.append(escape(text[at : m.start()]))
        at = m.end()
        if why.startswith("looks like"):
            out.append(
                Markup('<mark class="uc" title="{}">{}⟨U+{:04X}⟩</mark>').format(f"{_label(ch)}, {why}", ch, ord(ch))
            )
        else:
            out.append(Markup('<mark class="uc" title="{}">⟨U+{:04X}⟩</mark>').format(f"{_label(ch)}, {why}", ord(ch)))
    out.append(escape(text[at:]))
    return Markup("").join(out)


def hidden_warning(text: Any) -> Any:
    """The flag on a cell whose code holds such characters (empty `Markup` when it holds none), as code hosts
    warn of bidirectional and hidden Unicode."""
    from markupsafe import Markup

    kinds = hidden_characters(text)
    if not kinds:
        return Markup("")
    return Markup(
        '<p class="uc-warn">This code holds characters that make it read otherwise than it runs '
        '(hidden, bidirectional or look-alike Unicode), each shown as ⟨U+…⟩: {}.</p>'
    ).format("; ".join(kinds))


# -- a notebook's own HTML (the workspace's rendered notebook) ---------------------------

_TAGS = {
    "a",
    "abbr",
    "b",
    "blockquote",
    "br",
    "code",
    "dd",
    "del",
    "details",
    "div",
    "dl",
    "dt",
    "em",
    "h1",
    "h2",
    "h3",
    "h4",
    "h5",
    "h6",
    "hr",
    "i",
    "kbd",
    "li",
    "ol",
    "p",
    "pre",
    "s",
    "span",
    "strong",
    "sub",
    "summary",
    "sup",
    "table",
    "tbody",
    "td",
    "tfoot",
    "th",
    "thead",
    "tr",
    "u",
    "ul",
}
_ATTRIBUTES = {"a": {"href", "title"}, "td": {"colspan", "rowspan"}, "th": {"colspan", "rowspan"}, "ol": {"start"}}


def _attribute(tag: str, name: str, value: str) -> str | None:
    """nh3's attribute filter: a link goes to http(s), mailto or an anchor only (no `javascript:`, no `data:`).
    No image is kept: a notebook's images are its outputs' PNG and JPEG (`serve.notebook_view`)."""
    if tag == "a" and name == "href":
        return value if value.startswith(("http://", "https://", "mailto:", "#")) else None
    return value


def clean_html(html: str) -> Any:
    """A notebook's HTML (a `text/html` output, rendered Markdown) sanitised for a page: `Markup`, the one kind
    of student HTML a template shows unescaped."""
    import nh3
    from markupsafe import Markup

    return Markup(
        nh3.clean(
            html,
            tags=_TAGS,
            attributes=_ATTRIBUTES,
            url_schemes={"http", "https", "mailto"},
            attribute_filter=_attribute,
            link_rel="noopener noreferrer nofollow",
            strip_comments=True,
        )
    )


def markdown_html(text: str) -> Any:
    """A Markdown cell as Jupyter shows it (CommonMark, tables, the raw HTML in it), through `clean_html`."""
    from markdown_it import MarkdownIt

    return clean_html(MarkdownIt("commonmark", {"html": True}).enable("table").enable("strikethrough").render(text))


# -- plots -------------------------------------------------------------------------


def plot_label(text: Any, width: int = 28, lines: int = 2) -> str:
    """A matplotlib tick/axis label: controls shown escaped, `$` literal (no mathtext parsing), wrapped
    at `width` characters on at most `lines` lines, the rest cut with an ellipsis."""
    import textwrap

    body = controls(str(text))
    parts = textwrap.wrap(body, width, break_long_words=True, break_on_hyphens=False) or [""]
    if len(parts) > lines:
        parts = parts[:lines]
        parts[-1] = parts[-1][: width - 1] + "…"
    return "\n".join(parts).replace("$", r"\$")


# -- Markdown ------------------------------------------------------------------------


def _longest_run(text: str, ch: str) -> int:
    return max((len(m) for m in re.findall(re.escape(ch) + "+", text)), default=0)


def md_block(text: Any, lang: str = "") -> str:
    """A fenced code block holding `text` verbatim (controls other than newline/tab made visible):
    the fence is longer than any backtick run inside, so the content cannot close it, and a
    renderer shows fenced content as text (no HTML, links or images)."""
    body = controls(str(text), keep="\n\t").rstrip()
    ticks = "`" * max(3, _longest_run(body, "`") + 1)
    return f"{ticks}{lang}\n{body}\n{ticks}"


def md_inline(text: Any) -> str:
    """`text` on one line as a code span (no HTML, links, images or emphasis), delimited by more
    backticks than any run inside; empty text stays empty."""
    body = controls(str(text))
    if not body:
        return ""
    ticks = "`" * (_longest_run(body, "`") + 1)
    return f"{ticks} {body} {ticks}"


_MD_MARKUP = re.compile(r"([\\`*\[\]<>|~#@$])")  # what can open markup anywhere on a line (GFM included)
_MD_UNDERSCORE = re.compile(r"(?<![0-9A-Za-z])_|_(?![0-9A-Za-z])")  # `_` inside a word is no emphasis
_MD_ENTITY = re.compile(r"&(?=#?[0-9A-Za-z]+;)")  # `&amp;`, `&#60;`: an entity, not `a & b`
_MD_AUTOLINK = re.compile(r"(?i)(://|(?<![0-9A-Za-z])www\.)")  # GFM's bare URLs
_MD_LEAD = re.compile(r"^(?:([-+=])|(\d+)([.)]))")  # a list item or setext line, at the start


def md_text(text: Any) -> str:
    """`text` as plain Markdown prose on one line (a title, a student's name, a hint): each character that
    could start markup there (emphasis, code, links and bare URLs, HTML and entities, headings, tables, a
    list marker at its start) backslash-escaped, so nothing in it is markup; the rest (`-`, `;`, `.`, `!`,
    `:`) as written, so the file reads as written."""
    t = _MD_MARKUP.sub(r"\\\1", " ".join(controls(str(text)).split()))
    t = _MD_ENTITY.sub(r"\\&", _MD_UNDERSCORE.sub(r"\\_", t))
    t = _MD_AUTOLINK.sub(lambda m: m.group(1).replace(":", "\\:").replace(".", "\\."), t)
    return _MD_LEAD.sub(lambda m: "\\" + m.group(1) if m.group(1) else m.group(2) + "\\" + m.group(3), t)


def md_cell(text: Any) -> str:
    """`md_inline` for a GFM table cell: a `|` would split the cell even inside a code span (and
    `\\|` can be defeated by a backslash before it), so it is shown as the look-alike `│`."""
    return md_inline(str(text).replace("|", "\u2502"))


def write_csv(path: Path, header: list[str], body: list[list[str]], *, bom: bool = False) -> None:
    """Every field, header included, goes through `escape.csv_cell` here, not in the callers."""
    buf = io.StringIO()
    w = csv.writer(buf, quoting=csv.QUOTE_MINIMAL, lineterminator="\r\n")
    w.writerow(csv_row(header))
    w.writerows(csv_row(line) for line in body)
    write_atomic(path, ("\ufeff" if bom else "") + buf.getvalue())
