"""Spellings that call the same code, made one before a cell's tree is walked (`syntax`): what a notebook's own
trivial helpers do, and a library's equivalent spellings of one call.

A copier can pass every value through a helper of their own that changes nothing (`def _k(v): return v`,
`_k = lambda v: v`, `def f(*a, **k): return g(*a, **k)`, a helper that returns its argument after a statement
without effect, a chain of such helpers, a method of a trivial class) and respell each library call the other
legal way.  Both are undone here, at the root, for every helper of the class rather than for one spelling:

- a *trivial helper* is a function, lambda or method the notebook defines (bound once, not decorated, not a
  name the released notebook defines: those are the exercise's API, the student's answer) whose body, less
  its docstring and statements without effect, is assignments to local names and one `return` of a small
  expression using each parameter at most once.  A call of it is replaced by that expression with the call's
  arguments put in for the parameters (`_k(x)` is `x`, `mm(a, b)` is what `mm` returns); chains resolve,
  a recursive helper stops at `MAX_DEPTH`, and a cell inlines at most `MAX_INLINED` nodes in all;
- a library call is written one way: `torch.sum(x, 0)`, `x.sum(dim=0)` and `x.sum(0)` are one call (the module
  path before a function is dropped, the first argument becomes the receiver, `from torch import sum` is
  `torch.sum`), the operator functions are their operators (`torch.matmul(a, b)`, `a.matmul(b)`, `a.mm(b)` are
  `a @ b`; `add`, `sub`, `mul`, `div`, `pow`, `neg` likewise), a few aliases are one name (`view` is
  `reshape`, `.size()` is `.shape`, `.size(i)` `.shape[i]`, `.dim()` `.ndim`, `.t()` `.T`), a shape given as a
  tuple is its elements (`x.reshape((2, 3))`), and keyword arguments are values in a canonical order
  (`syntax` drops their names: `dim=0` is `0`).

Nothing is evaluated; every rewrite is of a bounded tree (`MAX_TEMPLATE` nodes) into a bounded one.
"""

from __future__ import annotations

import ast
import copy
from dataclasses import dataclass, field
from typing import Any, Callable

MAX_TEMPLATE = 60  # nodes of a helper's returned expression (with its defaults): a one-line helper
MAX_HELPERS = 2_000  # helpers a notebook may define that are considered at all
MAX_DEPTH = 8  # helpers resolved through one another (a chain), and inlines nested in one call
MAX_INLINED = 50_000  # nodes one cell may gain by inlining: past it, calls are left as written

_OPERATORS = {
    "add": ast.Add,
    "sub": ast.Sub,
    "subtract": ast.Sub,
    "mul": ast.Mult,
    "multiply": ast.Mult,
    "div": ast.Div,
    "divide": ast.Div,
    "true_divide": ast.Div,
    "truediv": ast.Div,
    "matmul": ast.MatMult,
    "mm": ast.MatMult,
    "pow": ast.Pow,
    "floor_divide": ast.FloorDiv,
    "floordiv": ast.FloorDiv,
    "remainder": ast.Mod,
    "mod": ast.Mod,
    **{
        f"__{n}__": op
        for n, op in (
            ("add", ast.Add),
            ("sub", ast.Sub),
            ("mul", ast.Mult),
            ("truediv", ast.Div),
            ("matmul", ast.MatMult),
            ("pow", ast.Pow),
        )
    },
}
_UNARY = {"neg": ast.USub, "negative": ast.USub, "__neg__": ast.USub}
_ALIASES = {
    "view": "reshape",
    "nelement": "numel",
    "absolute": "abs",
    "concat": "cat",
    "concatenate": "cat",
    "clip": "clamp",
    "permute_dims": "permute",
}
_AS_ATTRIBUTE = {"size": "shape", "dim": "ndim", "t": "T"}  # x.size() is x.shape, x.size(i) x.shape[i]
_SHAPE_ARGS = {
    "reshape",
    "permute",
    "expand",
    "repeat",
    "tile",
    "zeros",
    "ones",
    "empty",
    "rand",
    "randn",
    "new_zeros",
    "new_ones",
    "new_empty",
    "broadcast_to",
}
_BUILTIN_METHODS = {"abs": "abs", "pow": "pow", "divmod": "divmod"}  # abs(x) is x.abs()
_SCOPED = (
    ast.Lambda,
    ast.ListComp,
    ast.SetComp,
    ast.DictComp,
    ast.GeneratorExp,
    ast.NamedExpr,
    ast.Yield,
    ast.YieldFrom,
    ast.Await,
)


@dataclass
class _Template:
    """A trivial helper: `expr` with `params` (bound from a call's arguments) put in."""

    params: list[str]  # positional parameters, in order (a method's first one is self)
    defaults: dict[str, ast.expr]
    kwonly: list[str]
    vararg: str | None
    kwarg: str | None
    expr: ast.expr
    method: bool = False  # called as `receiver.name(...)`: the receiver is the first parameter
    static: bool = False

    def bind(self, receiver: ast.expr | None, args: list[ast.expr], keywords: list[ast.keyword]) -> ast.expr | None:
        """The expression with the call's arguments put in, or None when the call does not bind plainly."""
        if any(isinstance(a, ast.Starred) for a in args) or any(k.arg is None for k in keywords):
            if not (self.vararg and not self.params and not self.kwonly):
                return None
        values: dict[str, ast.expr] = {}
        positional = list(args)
        if self.method and not self.static:
            if receiver is None:
                return None
            positional.insert(0, receiver)
        extra: list[ast.expr] = []
        for i, a in enumerate(positional):
            if i < len(self.params):
                values[self.params[i]] = a
            elif self.vararg:
                extra.append(a)
            else:
                return None
        more: list[ast.keyword] = []
        for k in keywords:
            if k.arg is not None and k.arg in (*self.params, *self.kwonly):
                if k.arg in values:
                    return None
                values[k.arg] = k.value
            elif self.kwarg:
                more.append(k)
            else:
                return None
        for p in (*self.params, *self.kwonly):
            if p not in values:
                if p not in self.defaults:
                    return None
                values[p] = copy.deepcopy(self.defaults[p])
        return _Put(values, self.vararg, extra, self.kwarg, more).visit(copy.deepcopy(self.expr))


class _Put(ast.NodeTransformer):
    """Parameters replaced by arguments (each is used at most once, so no argument is copied)."""

    def __init__(
        self,
        values: dict[str, ast.expr],
        vararg: str | None,
        extra: list[ast.expr],
        kwarg: str | None,
        more: list[ast.keyword],
    ) -> None:
        self.values, self.vararg, self.extra, self.kwarg, self.more = values, vararg, extra, kwarg, more

    def visit_Name(self, node: ast.Name) -> ast.AST:
        return self.values.get(node.id, node)

    def _splice(self, items: list[ast.expr]) -> list[ast.expr]:
        out = []
        for a in items:
            if isinstance(a, ast.Starred) and isinstance(a.value, ast.Name) and a.value.id == self.vararg:
                out.extend(self.extra)
            else:
                out.append(self.visit(a))
        return out

    def visit_Call(self, node: ast.Call) -> ast.AST:
        node.func = self.visit(node.func)
        node.args = self._splice(node.args)
        keywords = []
        for k in node.keywords:
            if k.arg is None and isinstance(k.value, ast.Name) and k.value.id == self.kwarg:
                keywords.extend(self.more)
            else:
                k.value = self.visit(k.value)
                keywords.append(k)
        node.keywords = keywords
        return node

    def visit_List(self, node: ast.List | ast.Tuple) -> ast.AST:
        node.elts = self._splice(node.elts)
        return node

    def visit_Tuple(self, node: ast.Tuple) -> ast.AST:
        return self.visit_List(node)


def _size(node: ast.AST) -> int:
    return sum(1 for _ in ast.walk(node))


@dataclass
class Helpers:
    """What the notebook defines that may be a trivial helper, gathered while its cells are scanned (the trees
    are not kept, only these small definitions), and what its imports bind."""

    keep: frozenset[str] = frozenset()  # names the released notebook binds: never inlined
    names: Any = None  # syntax._Names: bound_once(name), library(name), builtin(name)
    dead: Callable[[ast.stmt], bool] = lambda s: False
    classes: set[str] = field(default_factory=set)
    defs: dict[str, ast.AST] = field(default_factory=dict)  # name -> FunctionDef | Lambda | Name (alias)
    methods: dict[str, list[ast.FunctionDef]] = field(default_factory=dict)
    imported: dict[str, str] = field(default_factory=dict)  # `from m import f as g`: g -> f
    modules: set[str] = field(default_factory=set)  # `import torch.nn as nn`: nn
    templates: dict[str, _Template | None] = field(default_factory=dict)
    _busy: set[str] = field(default_factory=set)

    def gather(self, tree: ast.AST) -> None:
        methods: set[int] = set()
        for node in ast.walk(tree):
            if len(self.defs) + len(self.methods) >= MAX_HELPERS:
                return
            if isinstance(node, ast.ClassDef):
                self.classes.add(node.name)
                for s in node.body:
                    methods.add(id(s))
                    if isinstance(s, ast.FunctionDef) and _size(s) <= 4 * MAX_TEMPLATE:
                        self.methods.setdefault(s.name, []).append(s)
            elif isinstance(node, ast.FunctionDef) and id(node) not in methods and _size(node) <= 4 * MAX_TEMPLATE:
                self.defs.setdefault(node.name, node)
            elif (
                isinstance(node, ast.Assign)
                and len(node.targets) == 1
                and isinstance(node.targets[0], ast.Name)
                and isinstance(node.value, (ast.Lambda, ast.Name))
                and _size(node.value) <= MAX_TEMPLATE
            ):
                self.defs.setdefault(node.targets[0].id, node.value)
            elif isinstance(node, ast.Import):
                self.modules.update((a.asname or a.name).split(".")[0] for a in node.names)
            elif isinstance(node, ast.ImportFrom):
                self.imported.update({a.asname or a.name: a.name for a in node.names})

    def template(self, name: str, method: bool = False) -> _Template | None:
        key = ("." if method else "") + name
        if key in self.templates:
            return self.templates[key]
        if key in self._busy or len(self._busy) >= MAX_DEPTH or name in self.keep:
            return None
        self._busy.add(key)
        try:
            t = self._build(name, method)
        finally:
            self._busy.discard(key)
        self.templates[key] = t
        return t

    def _build(self, name: str, method: bool) -> _Template | None:
        if method:
            found = self.methods.get(name, [])
            if len(found) != 1 or name.startswith("__"):
                return None
            node: ast.AST = found[0]
        else:
            if not self.names.bound_once(name) or name not in self.defs:
                return None
            node = self.defs[name]
        if isinstance(node, ast.Name):  # f = g
            return self.template(node.id)
        static = False
        if isinstance(node, ast.FunctionDef):
            decorators = [d.id if isinstance(d, ast.Name) else "" for d in node.decorator_list]
            if decorators not in ([], ["staticmethod"]) or (decorators and not method):
                return None
            static = bool(decorators)
            expr = _returned(node.body, self.dead)
        elif isinstance(node, ast.Lambda):
            expr = copy.deepcopy(node.body)
        else:
            return None
        if expr is None:
            return None
        a = node.args
        params = [p.arg for p in (*a.posonlyargs, *a.args)]
        if method and not static and not params:
            return None
        defaults = dict(zip(params[len(params) - len(a.defaults) :], a.defaults))
        defaults.update({p.arg: d for p, d in zip(a.kwonlyargs, a.kw_defaults) if d is not None})
        t = _Template(
            params,
            defaults,
            [p.arg for p in a.kwonlyargs],
            a.vararg.arg if a.vararg else None,
            a.kwarg.arg if a.kwarg else None,
            expr,
            method,
            static,
        )
        if not _plain(t):
            return None
        t.expr = Canon(self).visit(t.expr)
        return t if _plain(t) else None

    def call(self, node: ast.Call) -> ast.expr | None:
        """The call with a trivial helper inlined, or None."""
        f = node.func
        if isinstance(f, ast.Name):
            t = self.template(f.id)
            return t.bind(None, node.args, node.keywords) if t else None
        if isinstance(f, ast.Attribute) and f.attr in self.methods:
            t = self.template(f.attr, method=True)
            if t is None:
                return None
            if isinstance(f.value, ast.Name) and f.value.id in self.classes and not t.static:  # K.f(obj, x)
                return t.bind(node.args[0], node.args[1:], node.keywords) if node.args else None
            return t.bind(f.value, node.args, node.keywords)
        return None


def _plain(t: _Template) -> bool:
    """Small, free of scopes of its own, each parameter used at most once and only as a value (the vararg only
    as `*args` in a call or a display, the kwarg only as `**kwargs` in a call)."""
    if _size(t.expr) + sum(_size(d) for d in t.defaults.values()) > MAX_TEMPLATE:
        return False
    uses: dict[str, int] = {}
    spliced = 0
    for n in ast.walk(t.expr):
        if isinstance(n, _SCOPED):
            return False
        if isinstance(n, ast.Name):
            uses[n.id] = uses.get(n.id, 0) + 1
        if isinstance(n, ast.Starred) and isinstance(n.value, ast.Name) and n.value.id == t.vararg:
            spliced += 1
        if isinstance(n, ast.keyword) and n.arg is None and isinstance(n.value, ast.Name) and n.value.id == t.kwarg:
            spliced += 1
    if any(uses.get(p, 0) > 1 for p in (*t.params, *t.kwonly)):
        return False
    rest = [uses.get(v, 0) for v in (t.vararg, t.kwarg) if v]
    return sum(rest) <= spliced and all(u <= 1 for u in rest)


def _returned(body: list[ast.stmt], dead: Callable[[ast.stmt], bool]) -> ast.expr | None:
    """The expression a body returns when all it does is name values and return one: statements without effect
    skipped, `t = e` put in where `t` is read (`e` must be used once, or be a plain name), `if` on a constant
    taken; None for anything else (a call kept for its effect, a loop, a raise, a second return path)."""
    env: dict[str, ast.expr] = {}
    used: dict[str, int] = {}

    class Sub(ast.NodeTransformer):
        def visit_Name(self, n: ast.Name) -> ast.AST:
            if n.id in env:
                used[n.id] = used.get(n.id, 0) + 1
                return copy.deepcopy(env[n.id])
            return n

    stmts = list(body)
    steps = 0
    while stmts and steps < 50:
        steps += 1
        s = stmts.pop(0)
        if isinstance(s, ast.Return):
            if s.value is None:
                return None
            out = Sub().visit(copy.deepcopy(s.value))
            if any(c > 1 and not isinstance(env[n], (ast.Name, ast.Constant)) for n, c in used.items()):
                return None
            if any(n not in used and not dead(ast.Expr(v)) for n, v in env.items()):
                return None  # a value computed for its effect (`_ = f(v)`): not trivial
            return out
        if isinstance(s, ast.If) and isinstance(s.test, ast.Constant):
            stmts[:0] = s.body if s.test.value else s.orelse
        elif isinstance(s, ast.Assign) and len(s.targets) == 1 and isinstance(s.targets[0], ast.Name):
            env[s.targets[0].id] = Sub().visit(copy.deepcopy(s.value))
        elif isinstance(s, ast.Expr) and isinstance(s.value, ast.Constant) or dead(s):
            continue
        else:
            return None
    return None


class Canon(ast.NodeTransformer):
    """One cell's tree (or a helper's expression) rewritten: trivial helpers inlined, library calls respelled
    one way (`Helpers.names` says which names are the notebook's, a library's or builtins)."""

    def __init__(self, helpers: Helpers) -> None:
        self.helpers, self.names = helpers, helpers.names
        self.depth = 0
        self.spent = 0

    def visit_IfExp(self, node: ast.IfExp) -> ast.AST:
        self.generic_visit(node)
        if isinstance(node.test, ast.Constant):
            return node.body if node.test.value else node.orelse
        return node

    def visit_Call(self, node: ast.Call) -> ast.AST:
        self.generic_visit(node)
        return self._call(node)

    def _call(self, node: ast.Call) -> ast.AST:
        if self.depth < MAX_DEPTH and self.spent < MAX_INLINED:
            new = self.helpers.call(node)
            if new is not None:
                self.spent += MAX_TEMPLATE
                ast.copy_location(new, node)
                ast.fix_missing_locations(new)
                if isinstance(new, ast.Call):  # the template called something it was given: once more
                    self.depth += 1
                    try:
                        return self._call(new)
                    finally:
                        self.depth -= 1
                return new
        return self._respell(node)

    def _module_path(self, node: ast.expr) -> bool:
        while isinstance(node, ast.Attribute):
            node = node.value
        return isinstance(node, ast.Name) and self.names.library(node.id)

    def _respell(self, node: ast.Call) -> ast.AST:
        f, args = node.func, list(node.args)
        name = None
        if isinstance(f, ast.Attribute) and self._module_path(f.value):  # torch.sum(x, 0)
            name = f.attr
        elif isinstance(f, ast.Name) and f.id in self.helpers.imported and self.names.library(f.id):
            name = self.helpers.imported[f.id]  # from torch import sum
        elif isinstance(f, ast.Name) and f.id in _BUILTIN_METHODS and self.names.builtin(f.id):
            name = _BUILTIN_METHODS[f.id]  # abs(x)
        if name is not None:
            name = _ALIASES.get(name, name)
            if name in _SHAPE_ARGS and len(args) == 1 and isinstance(args[0], ast.Tuple):
                args = list(args[0].elts)
            if not args or isinstance(args[0], ast.Starred):
                return node
            old = node
            node = ast.copy_location(ast.Call(ast.Attribute(args[0], name, ast.Load()), args[1:], old.keywords), old)
            ast.copy_location(node.func, old)
            f, args = node.func, args[1:]
        if not isinstance(f, ast.Attribute):
            return node
        attr = _ALIASES.get(f.attr, f.attr)
        if attr in _SHAPE_ARGS and len(args) == 1 and isinstance(args[0], ast.Tuple):
            args = list(args[0].elts)
        plain = not node.keywords and not any(isinstance(a, ast.Starred) for a in args)
        if plain and attr in _OPERATORS and len(args) == 1:
            return ast.copy_location(ast.BinOp(f.value, _OPERATORS[attr](), args[0]), node)
        if plain and attr in _UNARY and not args:
            return ast.copy_location(ast.UnaryOp(_UNARY[attr](), f.value), node)
        if plain and attr in _AS_ATTRIBUTE and len(args) <= (1 if attr == "size" else 0):
            out: ast.expr = ast.copy_location(ast.Attribute(f.value, _AS_ATTRIBUTE[attr], ast.Load()), node)
            if args:
                out = ast.copy_location(ast.Subscript(out, args[0], ast.Load()), node)
            return out
        node.func = ast.copy_location(ast.Attribute(f.value, attr, ast.Load()), f)
        node.args = args
        return node
