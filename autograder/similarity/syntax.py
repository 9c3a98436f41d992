"""What a notebook's code does, as tokens: a pre-order walk of each cell's syntax tree (`ast`), one token per
node kind, as JPlag and Dolos compare programs, so a copier cannot dodge it by respelling tokens.

Spelling that changes nothing disappears in the tree or is made canonical here:
- parentheses (the tree has none), comments, docstrings, formatting, line and cell breaks inside a statement;
- every name is `V` (variables, functions, parameters, classes, imported modules, keyword arguments, and
  the attributes the notebook itself defines, `self.w`), as JPlag and Dolos emit no names; a builtin the
  notebook does not rebind keeps its name, and so does a library's attribute (`.reshape`, `.matmul`): a
  copier cannot rename an API, and two independent solutions differ most in the APIs they call;
- every number (and bool) is `N`, every string `S`, and an expression of constants only (`2 - 1`, `0x1`,
  a 200,000-element literal) is one such token;
- the operands of `+ * & | ^ and or == !=` are put in one order, and `a > b` is written `b < a`.

Statements without effect are dropped (each rule is conservative: a real statement is never dropped):
- `pass`, imports (they only bind names, see above), `global`, a bare annotation;
- an expression statement whose value is pure (constants, names, attribute reads, subscripts, operators,
  containers, calls of side-effect-free builtins such as `len` on pure arguments), docstrings included;
- `print(...)` whose arguments are all constants (`print(end="")`): it prints a literal, computes nothing;
- an assignment of a pure value to names that no code of the notebook reads (`_ = None`), and `a = a`;
- the branch an `if`/`while` on a constant never takes (`if 0:`).

Bounded on hostile text: the parser's memory grows with the cell (a 1 MiB literal takes about 0.5 GB), so
only cells of at most `MAX_PARSE_CHARS` are parsed (one tree in memory at a time), and at most
`MAX_PARSE_TOTAL` characters a notebook, smallest cells first, so that padding cells are the ones left out;
the tree's depth is capped in the walk (`MAX_DEPTH`).  A cell that is not parsed (too big, a syntax error,
IPython syntax the kit does not strip) takes `winnow.tokens`, the lexical path.  Every cell emits at most
`CELL_TOKENS` tokens and the notebook at most `winnow.MAX_TOKENS`, smallest cells first, each cell at most a
fair share of what is left: whatever the other cells hold, a cell keeps its first `MAX_TOKENS / MAX_CELLS`
(100) tokens, and all of them in any notebook a person could have written.  Nothing is evaluated: the one
value ever looked at is a literal constant's truth in `if 0:`.
"""

from __future__ import annotations

import ast
import builtins
from collections import Counter

from autograder.notebook.imports import without_ipython
from autograder.similarity.canon import Canon, Helpers
from autograder.similarity.winnow import MAX_TOKENS, Token, tokens

MAX_PARSE_CHARS = 32_000  # one cell (the curriculum's largest cell is 2,500): its tree takes ~16 MB at worst
MAX_PARSE_TOTAL = 2**20  # a notebook's parsed cells (the largest master's code is 12,000): about 1 s
CELL_TOKENS = 20_000  # tokens of one cell
MAX_DEPTH = 100  # levels of the syntax tree walked; a deeper subtree is one token

_BUILTINS = frozenset(dir(builtins))
# Builtins that compute a value and change nothing: a statement that only calls one of them has no effect.
_PURE_CALLS = frozenset(
    {
        "abs",
        "all",
        "any",
        "ascii",
        "bin",
        "bool",
        "bytes",
        "callable",
        "chr",
        "complex",
        "dict",
        "divmod",
        "float",
        "format",
        "frozenset",
        "hash",
        "hex",
        "id",
        "int",
        "isinstance",
        "issubclass",
        "len",
        "list",
        "max",
        "min",
        "oct",
        "ord",
        "pow",
        "range",
        "repr",
        "round",
        "set",
        "slice",
        "sorted",
        "str",
        "sum",
        "tuple",
        "type",
        "zip",
    }
)
_COMMUTATIVE = (ast.Add, ast.Mult, ast.BitAnd, ast.BitOr, ast.BitXor)
_FLIP = {ast.Gt: ast.Lt, ast.GtE: ast.LtE}
_BLOCKS = (
    ast.FunctionDef,
    ast.AsyncFunctionDef,
    ast.ClassDef,
    ast.For,
    ast.AsyncFor,
    ast.While,
    ast.If,
    ast.With,
    ast.AsyncWith,
    ast.Try,
    ast.Lambda,
)
_SILENT = (
    ast.Pass,
    ast.Import,
    ast.ImportFrom,
    ast.Global,
    ast.Nonlocal,
    ast.expr_context,
    ast.Module,
    ast.arguments,
    ast.alias,
)


class _Names:
    """What the whole notebook binds and reads, which decides how each name is spelled."""

    def __init__(self) -> None:
        self.read: set[str] = set()  # names loaded anywhere
        self.own: set[str] = set()  # names it binds (assigns, defines, imports, takes as parameters)
        self.own_attrs: set[str] = set()  # attributes it assigns (`self.w = ...`) and methods it defines
        self.binds: Counter[str] = Counter()  # how many places bind each name
        self.imports: Counter[str] = Counter()  # how many of them are imports

    def scan(self, tree: ast.AST) -> None:
        for node in ast.walk(tree):
            if isinstance(node, ast.Name):
                (self.read if isinstance(node.ctx, ast.Load) else self.own).add(node.id)
                if not isinstance(node.ctx, ast.Load):
                    self.binds[node.id] += 1
            elif isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
                self.own.add(node.name)
                self.binds[node.name] += 1
                if isinstance(node, ast.ClassDef):  # its methods are attributes; its own name is not, so
                    self.own_attrs.update(  # renaming `class Huber` leaves `keras.losses.Huber`
                        s.name for s in node.body if isinstance(s, (ast.FunctionDef, ast.AsyncFunctionDef))
                    )
            elif isinstance(node, ast.arg):
                self.own.add(node.arg)
                self.binds[node.arg] += 1
            elif isinstance(node, ast.Attribute) and not isinstance(node.ctx, ast.Load):
                self.own_attrs.add(node.attr)
            elif isinstance(node, (ast.Import, ast.ImportFrom)):
                bound = [(a.asname or a.name).split(".")[0] for a in node.names]
                self.own.update(bound)
                self.binds.update(bound)
                self.imports.update(bound)
            elif isinstance(node, (ast.ExceptHandler, ast.MatchAs, ast.MatchStar)) and node.name:
                self.own.add(node.name)
                self.binds[node.name] += 1

    def bound_once(self, name: str) -> bool:
        return self.binds[name] == 1

    def library(self, name: str) -> bool:
        """Bound by imports only: a module, or a library's function (`from torch import matmul`)."""
        return self.imports[name] > 0 and self.binds[name] == self.imports[name]

    def builtin(self, name: str) -> bool:
        return name in _BUILTINS and name not in self.own

    def spell(self, name: str) -> str:
        """A builtin the notebook does not rebind keeps its name; every other name is the student's."""
        return name if name in _BUILTINS and name not in self.own else "V"


def parse(source: str) -> ast.Module | None:
    """The cell's tree, IPython lines made comments; None when it is not Python (the lexical path reads it).
    The caller bounds the source (`MAX_PARSE_CHARS`); the parser itself refuses deep nesting."""
    try:
        return ast.parse(without_ipython(source))
    except (SyntaxError, ValueError, MemoryError, RecursionError):
        return None


def _constant(node: ast.AST) -> str | None:
    """The token of an expression made of constants only (`N`, `S`, a container's kind), else None."""
    stack, kinds, container = [node], set(), ""
    while stack:
        n = stack.pop()
        if isinstance(n, ast.Constant):
            v = n.value
            kinds.add("S" if isinstance(v, (str, bytes)) else "None" if v is None else "..." if v is ... else "N")
        elif isinstance(n, (ast.UnaryOp, ast.BinOp)):
            stack.extend([n.operand] if isinstance(n, ast.UnaryOp) else [n.left, n.right])
        elif isinstance(n, (ast.Tuple, ast.List, ast.Set, ast.Dict)):
            container = container or type(n).__name__
            stack.extend(n.elts if not isinstance(n, ast.Dict) else [k for k in n.keys if k] + n.values)
        else:
            return None
    if container:
        return container + "-of-constants"
    return "N" if kinds <= {"N"} else "S" if kinds <= {"S"} else "|".join(sorted(kinds))


def _pure(node: ast.AST, names: _Names) -> bool:
    """Whether evaluating the expression changes nothing (operators on library objects are taken as pure)."""
    for n in ast.walk(node):
        if isinstance(n, ast.Call):
            if not (isinstance(n.func, ast.Name) and n.func.id in _PURE_CALLS and n.func.id not in names.own):
                return False
        elif isinstance(
            n,
            (
                ast.NamedExpr,
                ast.Await,
                ast.Yield,
                ast.YieldFrom,
                ast.Lambda,
                ast.ListComp,
                ast.SetComp,
                ast.DictComp,
                ast.GeneratorExp,
            ),
        ):
            return False
    return True


def _dead(stmt: ast.stmt, names: _Names) -> bool:
    """Whether the statement has no effect (the module docstring lists the rules)."""
    if isinstance(stmt, ast.Expr):
        v = stmt.value
        if (
            isinstance(v, ast.Call)
            and isinstance(v.func, ast.Name)
            and v.func.id == "print"
            and "print" not in names.own
        ):
            return all(_constant(a) for a in [*v.args, *(k.value for k in v.keywords)])
        return _pure(v, names)
    if isinstance(stmt, (ast.Assign, ast.AugAssign, ast.AnnAssign)):
        targets = stmt.targets if isinstance(stmt, ast.Assign) else [stmt.target]
        flat = [t for tg in targets for t in ast.walk(tg) if not isinstance(t, (ast.expr_context, ast.Starred))]
        unread = all(
            isinstance(t, (ast.Name, ast.Tuple, ast.List)) and (not isinstance(t, ast.Name) or t.id not in names.read)
            for t in flat
        )
        same = (
            isinstance(stmt, ast.Assign)
            and len(targets) == 1
            and isinstance(targets[0], ast.Name)
            and isinstance(stmt.value, ast.Name)
            and stmt.value.id == targets[0].id
        )  # a = a
        return same or unread and (stmt.value is None or _pure(stmt.value, names))
    return isinstance(stmt, _SILENT)


class _Walk:
    """One cell's tokens, at most `budget` of them."""

    def __init__(self, names: _Names, cell: int, budget: int) -> None:
        self.names, self.cell, self.budget = names, cell, budget

    def node(self, n: ast.AST, line: int, depth: int) -> list[Token]:
        line = getattr(n, "lineno", line)
        if depth > MAX_DEPTH:
            return [Token("deep", self.cell, line)]
        if isinstance(n, ast.expr) and (c := _constant(n)):
            return [Token(c, self.cell, line)]
        if isinstance(n, ast.Name):
            return [Token(self.names.spell(n.id), self.cell, line)]
        if isinstance(n, ast.JoinedStr):  # an f-string: one S, then what it formats (its text is spelling)
            return [
                Token("S", self.cell, line),
                *(
                    t
                    for v in n.values
                    if isinstance(v, ast.FormattedValue)
                    for t in self.node(v.value, line, depth + 1)
                ),
            ]
        if isinstance(n, ast.Attribute):
            attr = "V" if n.attr in self.names.own_attrs else n.attr
            return [Token("." + attr, self.cell, line), *self.node(n.value, line, depth + 1)]
        if isinstance(n, ast.keyword):  # `dim=0` is `0` (the value, in `_Walk.node`'s canonical order)
            return [*([Token("**", self.cell, line)] if n.arg is None else []), *self.node(n.value, line, depth + 1)]
        if isinstance(n, ast.If) and isinstance(n.test, ast.Constant):  # if 0: / if True:
            return self.body(n.body if n.test.value else n.orelse, line, depth)
        if isinstance(n, ast.While) and isinstance(n.test, ast.Constant) and not n.test.value:
            return self.body(n.orelse, line, depth)
        if isinstance(n, ast.Compare) and len(n.ops) == 1 and type(n.ops[0]) in _FLIP:
            n = ast.Compare(n.comparators[0], [_FLIP[type(n.ops[0])]()], [n.left], lineno=line)
        out = [] if isinstance(n, _SILENT) else [Token(type(n).__name__, self.cell, line)]
        parts = []
        for field, value in ast.iter_fields(n):
            if field in ("ctx", "type_comment", "kind") or isinstance(value, (str, int, type(None))):
                continue  # names of defs and args are the student's: their node kind is the token
            if isinstance(value, list) and value and isinstance(value[0], ast.stmt):
                parts.append(self.body(value, line, depth))
            elif isinstance(value, list):
                for v in value:
                    if isinstance(v, ast.AST):
                        parts.append(self.node(v, line, depth + 1))
            elif isinstance(value, ast.AST):
                parts.append(self.node(value, line, depth + 1))
        if self._commutes(n):
            parts.sort(key=lambda p: [t.text for t in p])
        elif isinstance(n, ast.Call) and len(n.keywords) > 1:  # keyword arguments in one order
            parts[-len(n.keywords) :] = sorted(parts[-len(n.keywords) :], key=lambda p: [t.text for t in p])
        for p in parts:
            out.extend(p)
        if isinstance(n, _BLOCKS):
            out.append(Token("end", self.cell, getattr(n, "end_lineno", line) or line))
        return out

    def _commutes(self, n: ast.AST) -> bool:
        return (
            (isinstance(n, ast.BinOp) and isinstance(n.op, _COMMUTATIVE))
            or isinstance(n, ast.BoolOp)
            or (isinstance(n, ast.Compare) and len(n.ops) == 1 and isinstance(n.ops[0], (ast.Eq, ast.NotEq)))
        )

    def body(self, stmts: list[ast.stmt], line: int, depth: int) -> list[Token]:
        out: list[Token] = []
        for s in stmts:
            if len(out) >= self.budget:
                break
            if not _dead(s, self.names):
                out.extend(self.node(s, line, depth + 1))
        return out[: self.budget]


def _canonical(tree: ast.Module, helpers: Helpers) -> ast.Module:
    """`canon.Canon` over the cell: trivial helpers inlined, library calls respelled one way.  A tree too deep
    for it is walked as far as it got (the walk caps depth on its own)."""
    try:
        return Canon(helpers).visit(tree)
    except RecursionError:
        return tree


def notebook_tokens(cells: list[tuple[int, str]], keep: frozenset[str] = frozenset()) -> dict[int, list[Token]]:
    """Each code cell's tokens, {cell number: tokens}, from (number, source) pairs; the budgets of the
    module docstring are spent on the smallest cells first.  `keep`: the names the released notebook binds,
    never inlined as a trivial helper (`canon`)."""
    by_size = sorted(cells, key=lambda c: len(c[1]))
    parsable: set[int] = set()
    names, parsed = _Names(), 0
    helpers = Helpers(keep, names, lambda s: _dead(s, names))
    for number, source in by_size:  # first pass: what the notebook binds and reads (trees not kept)
        if len(source) <= MAX_PARSE_CHARS and parsed + len(source) <= MAX_PARSE_TOTAL:
            tree = parse(source)
            parsed += len(source)
            if tree is not None:
                names.scan(tree)
                helpers.gather(tree)
                parsable.add(number)
    out, left = {}, MAX_TOKENS
    for i, (number, source) in enumerate(by_size):
        budget = min(CELL_TOKENS, left // (len(by_size) - i))  # at most a fair share of what is left
        tree = parse(source) if number in parsable else None
        tree = _canonical(tree, helpers) if tree is not None else None
        toks = (
            _Walk(names, number, budget).body(tree.body, 1, 0) if tree is not None else tokens(source, number, budget)
        )
        out[number] = toks
        left -= len(toks)
    return out


def defined_names(sources: list[str]) -> set[str]:
    """The functions, classes and methods the cells define (of the released notebook: the exercise's API)."""
    out: set[str] = set()
    for source in sources:
        tree = parse(source) if len(source) <= MAX_PARSE_CHARS else None
        for node in ast.walk(tree) if tree is not None else ():
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
                out.add(node.name)
    return out
