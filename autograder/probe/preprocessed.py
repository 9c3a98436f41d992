"""What the preprocessor made of a kernel's source: the files it entered and the source's own lines.

A check on a source's text matches spellings; the preprocessor decides what is compiled (token pasting, macros,
line splices, a comment or a digit separator a text scanner misreads).  So the kit runs the compiler's own `-E`
with the build's own flags and reads its output: the linemarkers say which file each line came from and which
files the source itself entered; the source's own lines hold its tokens after every macro is expanded.  A
refused include never reaches a message: the compiler's messages about it are dropped (`own_diagnostics`), as
they quote the file.
"""

from __future__ import annotations

import re
from collections.abc import Callable

MARKER = re.compile(r'# (\d+) "((?:\\.|[^"\\])*)"((?: \d)*)')
# raw strings (refused: their text could hide a quote from the scan), numbers (digit separators are no quotes),
# names, string and character literals
_TOKEN = re.compile(
    r"(?P<raw>\b(?:u8|u|U|L)?R\")|\.?\d(?:[eEpP][+-]|'\w|[\w.])*|(?P<name>[A-Za-z_]\w*)|"
    r"(?:u8|u|U|L)?\"(?:\\.|[^\"\\\n])*\"|(?:u8|u|U|L)?'(?:\\.|[^'\\\n])*'"
)
ASM = frozenset({"asm", "__asm", "__asm__"})


def own_lines(text: str, src: str, may_include: Callable[[str], bool], what: str) -> tuple[str, str]:
    """(why the preprocessed `text` of the file `src` reaches outside it, or ''; the source's own lines).  Each
    file the source itself enters must pass `may_include(path)`; no #line moves its lines to another file; no
    directive is left in its lines (#pragma, _Pragma's); no raw string and no asm (so no .incbin) among its tokens.
    `what` names the source in the messages ("op_source()")."""
    stack, own, started = ["<start>"], [], False  # started: past the command line's preamble, in the source
    for line in text.splitlines():
        if not line.startswith("#"):
            if stack[-1] == src:
                own.append(line)
            continue
        m = MARKER.fullmatch(line)
        here = stack[-1] == src
        if not m:
            if here:
                return (
                    f"{what} holds the directive {' '.join(line.split()[:2])}: the grader compiles no #pragma or _Pragma",
                    "",
                )
            continue
        name, flags = m.group(2), m.group(3).split()
        if "1" in flags:
            if here and not may_include(name):
                return f"{what} includes {name.rsplit('/', 1)[-1]}, a file the grader does not compile", ""
            stack.append(name)
        elif "2" in flags:
            stack.pop()
            if not stack:
                return "the grader could not follow the preprocessed source", ""
            stack[-1] = name
        else:
            if started and here and name != src:
                return f"{what} renames its own lines with #line, which the grader does not compile", ""
            started = started or (stack[-1] == "<command-line>" and name == src)
            stack[-1] = name
    body = "\n".join(own)
    for m in _TOKEN.finditer(body):
        if m.group("raw"):
            return f"{what} holds a raw string literal, which the grader does not compile", ""
        if m.group("name") in ASM:
            return (
                f"{what} holds asm, which the grader does not compile: a kernel is written in the language itself",
                "",
            )
    return "", body


def own_diagnostics(stderr: str, src: str, what: str) -> str:
    """The compiler's messages located in the source's own lines only (`src` shown as `what`): a message located
    in a file it entered would quote that file."""
    lines = [line.replace(src, what, 1) for line in stderr.splitlines() if line.startswith(src + ":")]
    return "\n".join(lines)[-1500:] or f"(no message about {what}'s own lines)"
