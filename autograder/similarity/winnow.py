"""Fingerprints of code: normalized tokens, k-gram hashes, winnowing (Schleimer, Wilkerson, Aiken 2003).

Identifier names become one token (`V`), so renaming variables changes nothing; attribute names (`.matmul`),
keywords, builtins, operators and numbers stay, so two independent solutions that call different APIs do
not look alike.  Strings become `S`, comments and blank lines vanish.  Each cell is fingerprinted on its
own and the fingerprints are pooled per notebook, so reordering cells changes nothing either.

Runs on hostile text: the notebook was read with `notebook.parse`'s caps, and this module's work is
linear in the tokens it keeps (at most `MAX_TOKENS` a notebook); student code is never evaluated.
"""

from __future__ import annotations

import builtins
import hashlib
import io
import keyword
import re
import tokenize
from dataclasses import dataclass

K = 12  # tokens in a k-gram: about one line of code (a shorter match is noise)
WINDOW = 8  # winnowing window: any match of K + WINDOW - 1 tokens is guaranteed to be found
MAX_TOKENS = 200_000  # per notebook: tokens past it are not compared (bounded work on a hostile file)

_KEEP = frozenset(keyword.kwlist) | frozenset(keyword.softkwlist) | frozenset(dir(builtins))
_SKIP = {tokenize.COMMENT, tokenize.NL, tokenize.ENCODING, tokenize.ENDMARKER}
_FALLBACK = re.compile(r"""[A-Za-z_]\w*|\d[\w.]*|'[^'\n]*'|"[^"\n]*"|\S""")


@dataclass(frozen=True)
class Token:
    text: str  # normalized
    cell: int  # the cell's number, as the student counts cells
    line: int  # 1-based line within the cell


@dataclass(frozen=True)
class Print:
    """One selected fingerprint: its hash and the cell lines its k-gram spans."""

    hash: int
    cell: int
    first: int
    last: int


def _normal(kind: int, text: str, previous: str) -> str:
    if kind == tokenize.NAME:
        return text if text in _KEEP or previous == "." else "V"
    if kind == tokenize.STRING or kind in _FSTRING:
        return "S"
    if kind == tokenize.NEWLINE:
        return ";"
    if kind == tokenize.INDENT:
        return "{"
    if kind == tokenize.DEDENT:
        return "}"
    return text


_FSTRING = {getattr(tokenize, n) for n in ("FSTRING_START", "FSTRING_MIDDLE", "FSTRING_END") if hasattr(tokenize, n)}


def tokens(source: str, cell: int, budget: int = MAX_TOKENS) -> list[Token]:
    """The cell's normalized tokens (at most `budget`).  A cell Python cannot tokenize (IPython magics, a
    syntax error) is split by a plain regular expression instead: it may still be someone's copy."""
    out: list[Token] = []
    previous = ""
    try:
        for t in tokenize.generate_tokens(io.StringIO(source).readline):
            if t.type in _SKIP:
                continue
            norm = _normal(t.type, t.string, previous)
            previous = t.string
            if norm and not (t.type == tokenize.NEWLINE and out and out[-1].text == ";"):
                out.append(Token(norm, cell, t.start[0]))
            if len(out) >= budget:
                return out
        return out
    except (tokenize.TokenError, IndentationError, SyntaxError):
        out = []
    for number, line in enumerate(source.splitlines(), start=1):
        if line.lstrip().startswith("#"):
            continue
        previous = ""
        for m in _FALLBACK.finditer(line):
            text = m.group()
            if text[0] in "'\"":
                norm = "S"
            elif text[0].isalpha() or text[0] == "_":
                norm = text if text in _KEEP or previous == "." else "V"
            else:
                norm = text
            previous = text
            out.append(Token(norm, cell, number))
            if len(out) >= budget:
                return out
        out.append(Token(";", cell, number))
    return out


def kgram_hash(gram: list[Token]) -> int:
    """A stable hash (not Python's salted `hash`: results are compared across runs and archives)."""
    return int.from_bytes(hashlib.blake2b("\x1f".join(t.text for t in gram).encode(), digest_size=8).digest(), "big")


def kgrams(toks: list[Token], k: int = K) -> list[Print]:
    """Every k-gram of one cell's tokens, hashed, with the lines it spans."""
    out = []
    for i in range(len(toks) - k + 1):
        lines = [t.line for t in toks[i : i + k]]  # not in order where operands were put in one order
        out.append(Print(kgram_hash(toks[i : i + k]), toks[i].cell, min(lines), max(lines)))
    return out


def winnow(grams: list[Print], window: int = WINDOW) -> list[Print]:
    """The rightmost minimal hash of every window of `window` consecutive k-grams, each position once."""
    if len(grams) <= window:
        return [min(grams, key=lambda p: p.hash)] if grams else []
    chosen: dict[int, Print] = {}
    for start in range(len(grams) - window + 1):
        best = start
        for i in range(start + 1, start + window):
            if grams[i].hash <= grams[best].hash:
                best = i
        chosen[best] = grams[best]
    return [chosen[i] for i in sorted(chosen)]
