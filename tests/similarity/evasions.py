"""The evasion corpus: ways a copier disguises a notebook's code (`OBFUSCATIONS`, each taking and giving
the code cells' sources), alone or together (`disguise`, `COMBOS`).  Used by tests/similarity and by
bench/similarity_corpus.py, which measures detection on every assignment's master.  All but "reordered
statements", "split cells", "merged cells" and "padding cell" leave the syntax-tree fingerprint unchanged by
construction (`SAME_TREE`: the property test holds the normaliser to that)."""

from __future__ import annotations

import ast
import io
import re
import tokenize
from typing import Callable

Cells = list[str]  # a notebook's code cells
_KEEP = set(dir(__import__("builtins"))) | {"self", "cls"}


def _per_cell(f: Callable[[str], str]) -> Callable[[Cells], Cells]:
    def apply(cells: Cells) -> Cells:
        out = []
        for c in cells:
            try:
                out.append(f(c))
            except SyntaxError:  # not Python (IPython lines): left as it is
                out.append(c)
        return out

    return apply


def _statements(tree: ast.AST) -> list[ast.stmt]:
    return [
        s
        for n in ast.walk(tree)
        for f in ("body", "orelse", "finalbody")
        if isinstance(getattr(n, f, None), list)
        for s in getattr(n, f)
    ]


def _insert_after_each(line_of: Callable[[str], str]) -> Callable[[str], str]:
    """A line after every simple statement, at its indentation."""

    def f(src: str) -> str:
        lines = src.splitlines()
        after: dict[int, str] = {}
        for s in _statements(ast.parse(src)):
            if not hasattr(s, "body"):
                after[s.end_lineno] = " " * s.col_offset + line_of(" " * s.col_offset)
        return "\n".join(x for i, line in enumerate(lines, 1) for x in ([line, after[i]] if i in after else [line]))

    return f


def _edit_tokens(kind: int, new: Callable[[str], str | None]) -> Callable[[str], str]:
    def f(src: str) -> str:
        lines = src.splitlines(keepends=True)
        for t in reversed(list(tokenize.generate_tokens(io.StringIO(src).readline))):
            if t.type == kind and t.start[0] == t.end[0] and (text := new(t.string)) is not None:
                row = lines[t.start[0] - 1]
                lines[t.start[0] - 1] = row[: t.start[1]] + text + row[t.end[1] :]
        return "".join(lines)

    return f


def _number(text: str) -> str | None:
    try:
        value = ast.literal_eval(text)
    except (ValueError, SyntaxError):
        return None
    if isinstance(value, int):
        return hex(value)
    if not isinstance(value, float):
        return None
    mantissa, _, exponent = repr(value).partition("e")  # 2.0 -> 2.00e0, 1e-06 -> 1.0e-06
    return mantissa + ("0" if "." in mantissa else ".0") + "e" + (exponent or "0")


def _string(text: str) -> str | None:
    m = re.match(r"(?i)([rbuf]*)('''|\"\"\"|'|\")", text)
    return text[: m.end()] + "~" + text[m.end() :] if m and "b" not in m.group(1).lower() else None


def _parens(src: str) -> str:
    """Every assigned or returned value in parentheses: `a = (b)`, `return (x)`."""
    edits = [
        s.value
        for s in _statements(ast.parse(src))
        if isinstance(s, (ast.Assign, ast.Return, ast.AugAssign))
        and s.value is not None
        and s.value.lineno == s.value.end_lineno
    ]
    lines = src.splitlines(keepends=True)
    for v in sorted(edits, key=lambda v: (v.lineno, v.col_offset), reverse=True):
        row = lines[v.lineno - 1].encode()
        lines[v.lineno - 1] = (
            row[: v.col_offset] + b"(" + row[v.col_offset : v.end_col_offset] + b")" + row[v.end_col_offset :]
        ).decode()
    return "".join(lines)


def _rename(cells: Cells) -> Cells:
    """Every name the notebook binds renamed (variables, functions, parameters, import aliases, keyword
    arguments of its own functions), consistently across cells: the program still runs the same."""
    trees = [ast.parse(c) for c in cells]
    bound: set[str] = set()
    for t in trees:
        for n in ast.walk(t):
            if isinstance(n, ast.Name) and not isinstance(n.ctx, ast.Load) or isinstance(n, ast.arg):
                bound.add(n.id if isinstance(n, ast.Name) else n.arg)
            elif isinstance(n, (ast.FunctionDef, ast.ClassDef)) and n in t.body:  # not methods: they
                bound.add(n.name)  # override a library's
            elif isinstance(n, ast.alias) and n.asname:
                bound.add(n.asname)
    bound -= _KEEP
    new = {b: f"my_{b}_x" for b in bound}
    for t in trees:
        for n in ast.walk(t):
            if isinstance(n, ast.Name) and n.id in new:
                n.id = new[n.id]
            elif isinstance(n, ast.arg) and n.arg in new:
                n.arg = new[n.arg]
            elif isinstance(n, (ast.FunctionDef, ast.ClassDef)) and n.name in new:
                n.name = new[n.name]
            elif isinstance(n, ast.alias) and n.asname in new:
                n.asname = new[n.asname]
            elif isinstance(n, ast.Call) and isinstance(n.func, ast.Name) and n.func.id in new.values():
                for k in n.keywords:
                    k.arg = new.get(k.arg, k.arg)
    return [ast.unparse(t) for t in trees]


def _reorder(src: str) -> str:
    """Independent neighbours swapped: top-level definitions in reverse order, and each pair of adjacent
    assignments where neither reads or writes a name the other writes."""
    tree = ast.parse(src)
    defs = [s for s in tree.body if isinstance(s, (ast.FunctionDef, ast.ClassDef))]
    if len(defs) == len(tree.body):
        tree.body.reverse()

    def names(s: ast.AST, store: bool) -> set[str]:
        return {n.id for n in ast.walk(s) if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Load) != store}

    for node in ast.walk(tree):
        body = getattr(node, "body", None)
        if not isinstance(body, list):
            continue
        i = 0
        while i + 1 < len(body):
            a, b = body[i], body[i + 1]
            if (
                isinstance(a, ast.Assign)
                and isinstance(b, ast.Assign)
                and not (names(a, True) & (names(b, False) | names(b, True)))
                and not (names(b, True) & names(a, False))
            ):
                body[i], body[i + 1] = b, a
                i += 2
            else:
                i += 1
    return ast.unparse(tree)


class _Swap(ast.NodeTransformer):
    def visit_BinOp(self, node: ast.BinOp) -> ast.BinOp:
        self.generic_visit(node)
        if isinstance(node.op, (ast.Add, ast.Mult)):
            node.left, node.right = node.right, node.left
        return node


def _split(cells: Cells) -> Cells:
    out = []
    for c in cells:
        try:
            tree = ast.parse(c)
        except SyntaxError:
            out.append(c)
            continue
        out += [ast.get_source_segment(c, s, padded=True) or "" for s in tree.body] or [c]
    return out


def _comments(src: str) -> str:
    with_docs = ast.parse(src)
    for n in ast.walk(with_docs):
        if isinstance(n, ast.FunctionDef):
            n.body.insert(0, ast.Expr(ast.Constant("My own implementation, written from scratch.")))
    return "\n".join(x for line in ast.unparse(with_docs).splitlines() for x in (line, "# " + "thinking " * 3))


PAD = "PADDING = [" + "0, " * 100_000 + "]\n"  # 200,000 tokens

OBFUSCATIONS: dict[str, Callable[[Cells], Cells]] = {
    "reformat": _per_cell(lambda c: ast.unparse(ast.parse(c))),
    "parens": _per_cell(_parens),
    "dead statements": _per_cell(_insert_after_each(lambda ind: "_ = None")),
    "no-op calls": _per_cell(_insert_after_each(lambda ind: 'print(end="")')),
    "renames": _rename,
    "respelled numbers": _per_cell(_edit_tokens(tokenize.NUMBER, _number)),
    "changed strings": _per_cell(_edit_tokens(tokenize.STRING, _string)),
    "reordered statements": _per_cell(_reorder),
    "swapped operands": _per_cell(lambda c: ast.unparse(_Swap().visit(ast.parse(c)))),
    "comments and docstrings": _per_cell(_comments),
    "extra imports": _per_cell(lambda c: "import os, sys, math, json, re, itertools\n" + c),
    "split cells": _split,
    "merged cells": lambda cells: ["\n".join(cells)],
    "padding cell": lambda cells: [PAD, *cells],
}
COMBOS = {
    "renames + numbers + dead": ["renames", "respelled numbers", "dead statements"],
    "parens + no-op + comments + imports + strings": [
        "parens",
        "no-op calls",
        "comments and docstrings",
        "extra imports",
        "changed strings",
    ],
    "all but merge": [n for n in OBFUSCATIONS if n not in ("reformat", "merged cells")],
}


def disguise(cells: Cells, names: list[str]) -> Cells:
    order = [n for n in OBFUSCATIONS if n in names]  # syntax-tree rewrites first, cell layout last
    order.sort(key=lambda n: n in ("split cells", "merged cells", "padding cell"))
    for n in order:
        cells = OBFUSCATIONS[n](cells)
    return cells


SAME_TREE = [
    n for n in OBFUSCATIONS if n not in ("reordered statements", "split cells", "merged cells", "padding cell")
]


# -- what a trivial helper of the notebook's own does, and a library call respelled (issue 49) -----------------

WRAPPERS = {  # a helper that changes nothing: its definition, and how a value `{}` goes through it
    "identity": ("def _k(v):\n    return v\n", "_k({})"),
    "lambda": ("_k = lambda v: v\n", "_k({})"),
    "forwarding": ("def _same(v):\n    return v\n\n\ndef _k(*a, **kw):\n    return _same(*a, **kw)\n", "_k({})"),
    "no-op statement": (
        'def _k(v):\n    """Checks the value."""\n    _seen = v\n    print(end="")\n    return v\n',
        "_k({})",
    ),
    "chain": (
        "def _a(v):\n    return v\n\n\ndef _b(v):\n    t = _a(v)\n    return t\n\n\ndef _k(v):\n    return _b(_a(v))\n",
        "_k({})",
    ),
    "trivial class": (
        "class _Pass:\n    def through(self, v):\n        return v\n\n\n_p = _Pass()\n",
        "_p.through({})",
    ),
}


def wrapped(kind: str) -> Callable[[Cells], Cells]:
    """Every returned and assigned value passed through a helper of `WRAPPERS` (defined in a cell of its own,
    first): the program computes the very same."""
    definition, call = WRAPPERS[kind]

    def through(value: ast.expr) -> ast.expr:
        template = ast.parse(call.format("__v__"), mode="eval").body
        for n in ast.walk(template):
            for name, old in ast.iter_fields(n):
                if isinstance(old, ast.Name) and old.id == "__v__":
                    setattr(n, name, value)
                elif isinstance(old, list):
                    setattr(n, name, [value if isinstance(x, ast.Name) and x.id == "__v__" else x for x in old])
        return template

    class Wrap(ast.NodeTransformer):
        def _value(self, node: ast.AST) -> ast.AST:
            self.generic_visit(node)
            if node.value is not None:
                node.value = through(node.value)
            return node

        visit_Return = visit_Assign = visit_AugAssign = visit_AnnAssign = _value

    def apply(cells: Cells) -> Cells:
        out = [definition]
        for c in cells:
            try:
                out.append(ast.unparse(Wrap().visit(ast.parse(c))))
            except SyntaxError:
                out.append(c)
        return out

    return apply


# functions a torch tensor also has as methods, with the same arguments after the tensor
_TORCH_METHODS = {
    "sum",
    "mean",
    "matmul",
    "exp",
    "log",
    "clamp",
    "abs",
    "sqrt",
    "max",
    "min",
    "argmax",
    "softmax",
    "log_softmax",
    "transpose",
    "unsqueeze",
    "squeeze",
    "flatten",
    "relu",
    "sigmoid",
    "tanh",
    "where",
    "masked_select",
    "index_select",
    "gather",
    "pow",
    "mm",
    "t",
    "cumsum",
    "prod",
    "std",
    "var",
    "norm",
    "round",
    "floor",
    "ceil",
    "neg",
    "add",
    "sub",
    "mul",
    "div",
}

_TF_AXIS = {"reduce_sum", "reduce_mean", "reduce_max", "reduce_min", "argmax", "argmin", "concat", "softmax"}


class _Respell(ast.NodeTransformer):
    """Each library call written the other legal way: `torch.f(x, ...)` as `x.f(...)` and `x.f(...)` as
    `torch.f(x, ...)`, `a @ b` as `torch.matmul(a, b)` (`tf.matmul` in a TensorFlow notebook), `x.sum(dim=0)`
    as `x.sum(0)` and `x.sum(0)` as `x.sum(dim=0)`, `tf.reduce_sum(x, axis=0)` as `tf.reduce_sum(x, 0)`, `.view`
    as `.reshape`; `module` is the name the notebook imports torch or tensorflow as, `imported` every name its
    imports bind (a module's own functions, `np.sum(x)`, are left alone)."""

    def __init__(self, module: str, tf: bool, imported: set[str]) -> None:
        self.module, self.tf, self.imported = module, tf, imported

    def _lib(self, node: ast.expr) -> bool:
        return isinstance(node, ast.Name) and node.id == self.module

    def visit_BinOp(self, node: ast.BinOp) -> ast.AST:
        self.generic_visit(node)
        if isinstance(node.op, ast.MatMult):
            return ast.Call(
                ast.Attribute(ast.Name(self.module, ast.Load()), "matmul", ast.Load()), [node.left, node.right], []
            )
        return node

    def visit_Call(self, node: ast.Call) -> ast.AST:
        self.generic_visit(node)
        f = node.func
        if not isinstance(f, ast.Attribute):
            return node
        if f.attr == "view":
            f.attr = "reshape"
        if self.tf:
            if (
                self._lib(f.value)
                and f.attr in _TF_AXIS
                and len(node.args) == 1
                and [k.arg for k in node.keywords] == ["axis"]
            ):
                node.args, node.keywords = [node.args[0], node.keywords[0].value], []
            return node
        if (
            self._lib(f.value)
            and f.attr in _TORCH_METHODS
            and node.args
            and not isinstance(node.args[0], (ast.Starred, ast.Constant))
        ):
            return ast.Call(ast.Attribute(node.args[0], f.attr, ast.Load()), node.args[1:], node.keywords)
        if f.attr in _TORCH_METHODS and not (
            isinstance(f.value, (ast.Name, ast.Attribute)) and _root(f.value) in self.imported | {"self"}
        ):
            if f.attr in ("sum", "mean") and len(node.args) == 1 and not node.keywords:
                node.keywords, node.args = [ast.keyword("dim", node.args[0])], []
            elif f.attr in ("sum", "mean") and not node.args and [k.arg for k in node.keywords] == ["dim"]:
                node.args, node.keywords = [node.keywords[0].value], []
            elif not isinstance(f.value, ast.Constant):
                return ast.Call(
                    ast.Attribute(ast.Name(self.module, ast.Load()), f.attr, ast.Load()),
                    [f.value, *node.args],
                    node.keywords,
                )
        return node


def _root(node: ast.expr) -> str:
    while isinstance(node, ast.Attribute):
        node = node.value
    return node.id if isinstance(node, ast.Name) else ""


def _respelled(cells: Cells) -> Cells:
    imported: set[str] = set()
    aliases = {"torch": "torch"}
    for c in cells:
        try:
            tree = ast.parse(c)
        except SyntaxError:
            continue
        for n in ast.walk(tree):
            if isinstance(n, (ast.Import, ast.ImportFrom)):
                imported.update((a.asname or a.name).split(".")[0] for a in n.names)
            if isinstance(n, ast.Import):
                aliases.update({a.name: a.asname or a.name for a in n.names if a.name in ("torch", "tensorflow")})
    tf = "tensorflow" in aliases
    module = aliases["tensorflow" if tf else "torch"]
    return _per_cell(lambda c: ast.unparse(_Respell(module, tf, imported).visit(ast.parse(c))))(cells)


OBFUSCATIONS["respelled calls"] = _respelled
SAME_TREE.append("respelled calls")
for _kind in WRAPPERS:
    OBFUSCATIONS[f"{_kind} wrapper"] = wrapped(_kind)
