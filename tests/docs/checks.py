"""What the docs claim about the kit, checked against the kit itself.

Each `*_problems` function takes one document's text and returns sentences naming what it claims that
the kit does not have: an `autograder` command or option (the real argparse parser of `autograder.cli`),
a `bench/*.py` option or `--only`/`--samples`/`--assignments` value (the scripts' own `add_argument`
calls and constants), a `make` target (the Makefile), a file (the tree; git-ignored paths, which a run
creates, are let through), a `tests/...::name` test, a relative link, an `AUTOGRADER_*` variable, or a
`course.toml` table or key (`autograder.config.course.KEYS`, the declaration `load_course` enforces).
"""

from __future__ import annotations

import argparse
import ast
import functools
import importlib.util
import re
import shlex
import subprocess
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
DOCS = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]

FENCE = re.compile(r"^```(\w*)\s*$")
INLINE = re.compile(r"`([^`\n]+)`")
PLACEHOLDER = re.compile(r"\.\.\.|[<>]|^[A-Z][A-Z_]*$")


# ------------------------------------------------------------------------------------------ the text
def segments(text: str) -> list[tuple[int, str, str]]:
    """(line number, language, code) for each fenced block and each inline code span outside them."""
    out: list[tuple[int, str, str]] = []
    lang, start, block = None, 0, []  # type: ignore[var-annotated]
    for n, line in enumerate(text.splitlines(), 1):
        m = FENCE.match(line.strip())
        if m and lang is None:
            lang, start, block = m.group(1) or "text", n, []
        elif m and lang is not None and not m.group(1):
            out.append((start, lang, "\n".join(block)))
            lang = None
        elif lang is not None:
            block.append(line)
        else:
            out += [(n, "inline", s) for s in INLINE.findall(line)]
    return out


def command_lines(code: str) -> list[list[str]]:
    """The simple commands of a piece of shell: continuation lines joined, comments dropped, split at
    `&&`, `;` and ` | `; each tokenized as the shell would (whitespace if it cannot be)."""
    code = re.sub(r"\\\n\s*", " ", code)
    out = []
    for line in code.splitlines():
        line = re.sub(r"(^|\s)#.*$", "", line)
        for part in re.split(r"&&|;|\s\|\s", line):
            try:
                tokens = shlex.split(part)
            except ValueError:
                tokens = part.split()
            if tokens:
                out.append(tokens)
    return out


# ------------------------------------------------------------------------------------------ the CLI
@functools.lru_cache(maxsize=None)
def parser() -> argparse.ArgumentParser:
    from autograder.cli import _parser

    return _parser()


def subparsers(p: argparse.ArgumentParser | None = None) -> dict[str, argparse.ArgumentParser]:
    p = p or parser()
    for action in p._actions:
        if isinstance(action, argparse._SubParsersAction):
            return dict(action.choices)
    return {}


def options(p: argparse.ArgumentParser) -> dict[str, argparse.Action]:
    return {s: a for a in p._actions for s in a.option_strings}


def positionals(p: argparse.ArgumentParser) -> list[argparse.Action]:
    return [a for a in p._actions if not a.option_strings and not isinstance(a, argparse._SubParsersAction)]


def _concrete(value: str) -> bool:
    return not PLACEHOLDER.search(value) and not value.startswith("$")


def _check_value(action: argparse.Action, value: str, where: str) -> list[str]:
    if action.choices is None or not _concrete(value):
        return []
    bad = [v for v in value.split("|") if v not in action.choices]
    return [f"{where}: {value!r} is not one of {', '.join(map(str, action.choices))}"] if bad else []


def _walk(tokens: list[str], opts: dict[str, argparse.Action], where: str) -> tuple[list[str], list[str]]:
    """(problems, positional tokens) of an argument list against one parser's options."""
    problems, free = [], []
    i = 0
    while i < len(tokens):
        tok = tokens[i]
        if tok.startswith("--") and len(tok) > 2:
            name, eq, value = tok.partition("=")
            action = opts.get(name)
            if action is None:
                problems.append(f"{where}: no option {name}")
            elif action.nargs != 0:
                if not eq and i + 1 < len(tokens):
                    value, i = tokens[i + 1], i + 1
                problems += _check_value(action, value, f"{where} {name}")
        elif not tok.startswith("-"):
            free.append(tok)
        i += 1
    return problems, free


def autograder_problems(tokens: list[str], where: str) -> list[str]:
    """Check one `autograder ...` command (tokens after the word autograder)."""
    top = options(parser())
    i = 0
    while i < len(tokens) and tokens[i].startswith("-"):
        if tokens[i] not in top:
            return [f"{where}: no global option {tokens[i]}"]
        i += 1 + (top[tokens[i]].nargs != 0 and "=" not in tokens[i])
    if i >= len(tokens) or not _concrete(tokens[i]):
        return []
    sub = subparsers().get(tokens[i])
    if sub is None:
        return [f"{where}: no command `autograder {tokens[i]}`"]
    problems, free = _walk(tokens[i + 1 :], {**top, **options(sub)}, f"{where}: autograder {tokens[i]}")
    for action, value in zip(positionals(sub), free):
        problems += _check_value(action, value, f"{where}: autograder {tokens[i]} {action.dest}")
    return problems


# ------------------------------------------------------------------------------------------ bench and make
@functools.lru_cache(maxsize=None)
def script_options(script: str) -> frozenset[str]:
    """The options a bench script's parser has: the string arguments of its `add_argument` calls."""
    tree = ast.parse((ROOT / script).read_text(encoding="utf-8"))
    return frozenset(
        a.value
        for node in ast.walk(tree)
        if isinstance(node, ast.Call) and getattr(node.func, "attr", "") == "add_argument"
        for a in node.args
        if isinstance(a, ast.Constant) and str(a.value).startswith("-")
    )


@functools.lru_cache(maxsize=None)
def bench_run():
    spec = importlib.util.spec_from_file_location("_bench_run_for_docs", ROOT / "bench" / "run.py")
    module = importlib.util.module_from_spec(spec)  # type: ignore[arg-type]
    spec.loader.exec_module(module)  # type: ignore[union-attr]
    return module


@functools.lru_cache(maxsize=None)
def assignments() -> frozenset[str]:
    from autograder.config.assignment import list_assignments

    return frozenset(list_assignments(ROOT))


def bench_problems(script: str, tokens: list[str], where: str) -> list[str]:
    if not (ROOT / script).is_file():
        return [f"{where}: no script {script}"]
    problems = [
        f"{where}: {script} has no option {t.split('=')[0]}"
        for t in tokens
        if t.startswith("--") and t.split("=")[0] not in script_options(script) | {"--help"}
    ]
    if script == "bench/run.py":
        known = {
            "--only": set(bench_run().GRADERS),
            "--samples": set(bench_run().SAMPLES),
            "--assignments": set(assignments()),
        }
        for opt, value in zip(tokens, tokens[1:]):
            for v in value.split(",") if opt in known and _concrete(value) else []:
                if v.strip() and v.strip() not in known[opt]:
                    problems.append(
                        f"{where}: {script} {opt}: no {v.strip()!r} (one of {', '.join(sorted(known[opt]))})"
                    )
    return problems


@functools.lru_cache(maxsize=None)
def make_targets() -> frozenset[str]:
    text = (ROOT / "Makefile").read_text(encoding="utf-8")
    return frozenset(
        t
        for m in re.finditer(r"^([\w.-]+(?:\s+[\w.-]+)*)\s*:(?!=)", text, re.M)
        for t in m.group(1).split()
        if not t.startswith(".")
    )


def make_problems(tokens: list[str], where: str) -> list[str]:
    problems = []
    for tok in tokens:
        if tok.startswith("BENCH_ARGS="):
            problems += bench_problems("bench/run.py", shlex.split(tok.partition("=")[2]), where)
        elif "=" not in tok and not tok.startswith("-") and _concrete(tok) and tok not in make_targets():
            problems.append(f"{where}: no make target {tok!r}")
    return problems


@functools.lru_cache(maxsize=None)
def kit_options() -> frozenset[str]:
    """Every option of the kit's commands and scripts, and every one its code hands to a tool (bwrap's)."""
    found = {o for p in [parser(), *subparsers().values()] for o in options(p)}
    for f in [*(ROOT / "autograder").rglob("*.py"), *(ROOT / "bench").glob("*.py")]:
        found.update(re.findall(r"[\"'](--[a-z][\w-]*)", f.read_text(encoding="utf-8")))
    return frozenset(found)


def command_problems(text: str, doc: str) -> list[str]:
    """Every command line in the document's code (autograder, bench scripts, make), and every option
    named on its own (`--jobs`): one of the kit's."""
    problems = []
    for n, lang, code in segments(text):
        alone = re.fullmatch(r"(--[a-z][\w-]*)(?:[= ]\S+)?", code.strip()) if lang == "inline" else None
        if alone and alone.group(1) not in kit_options():
            problems.append(f"{doc}:{n}: no command of the kit has an option {alone.group(1)}")
        for tokens in command_lines(code):
            where = f"{doc}:{n}"
            for i, tok in enumerate(tokens):
                if tok == "autograder" or tok.endswith("/bin/autograder"):
                    problems += autograder_problems(tokens[i + 1 :], where)
                    break
                m = re.fullmatch(r"(?:\./)?(bench/[\w.-]+\.py)", tok)
                if m and (i == 0 or "python" in tokens[i - 1]):
                    problems += bench_problems(m.group(1), tokens[i + 1 :], where)
                    break
                if tok == "make" and i == 0:
                    problems += make_problems(tokens[1:], where)
                    break
    return problems


# ------------------------------------------------------------------------------------------ files
@functools.lru_cache(maxsize=None)
def packages() -> tuple[str, ...]:
    return tuple(sorted(p.parent.name for p in (ROOT / "autograder").glob("*/__init__.py")))


def _ignored(path: str) -> bool:
    """Git-ignored: what a run creates (`bench/out/`, the peers' venvs), named in docs before it exists."""
    codes = [
        subprocess.run(["git", "check-ignore", "-q", p], cwd=ROOT, capture_output=True).returncode
        for p in (path, path + "/")
    ]
    return 0 in codes or 128 in codes  # 128: no git here to ask (a copy of the tree): let it through


def _exists(path: str) -> bool:
    """The path, with its placeholder parts (`ID`, `ASSIGNMENT`) standing for any name."""
    parts = ["*" if re.fullmatch(r"[A-Z][A-Z_]*", p) else p for p in path.rstrip("/").split("/")]
    return any(ROOT.glob("/".join(parts))) if "*" in parts else (ROOT / path).exists()


PATH = re.compile(
    r"(?<![\w/.~$-])((?:autograder|bench|docs|tests|scripts|examples|assignments|solutions|student)"
    r"/[\w./-]*)(::[\w:\[\]-]+)?"
)


def file_problems(text: str, doc: str) -> list[str]:
    problems = []
    bare = re.compile(r"(?<![\w/.-])((?:%s)/\w+\.py)\b" % "|".join(packages()))
    fenced = False
    for n, line in enumerate(text.splitlines(), 1):
        fenced ^= bool(FENCE.match(line.strip()))
        for m in PATH.finditer(line):
            path, test = m.group(1).rstrip("."), m.group(2)
            if line[m.end(1) : m.end(1) + 1] in ("<", "*", "{") or path.endswith("-"):
                continue  # a placeholder follows: `assignments/<id>/...`
            target = ROOT / path
            if not _exists(path):
                if not _ignored(path):
                    problems.append(f"{doc}:{n}: no file {path}")
            elif test:
                name = re.sub(r"\[.*$", "", test.split("::")[-1])
                if not re.search(
                    rf"^\s*(?:async\s+)?(?:def|class)\s+{re.escape(name)}\b", target.read_text(encoding="utf-8"), re.M
                ):
                    problems.append(f"{doc}:{n}: no test {name} in {path}")
        for m in bare.finditer(line):
            if not (ROOT / "autograder" / m.group(1)).is_file():
                problems.append(f"{doc}:{n}: no file autograder/{m.group(1)}")
        for m in re.finditer(r"\]\(([^)\s]+)\)", "" if fenced else INLINE.sub("", line)):
            link = m.group(1).split("#")[0]
            if link and not re.match(r"[a-z]+:", link) and not (ROOT / Path(doc).parent / link).exists():
                problems.append(f"{doc}:{n}: the link {m.group(1)} leads nowhere")
        for var in re.findall(r"\bAUTOGRADER_[A-Z_]*[A-Z]\b", line):
            if var not in environment_names():
                problems.append(f"{doc}:{n}: the kit reads no {var}")
    return problems


@functools.lru_cache(maxsize=None)
def environment_names() -> frozenset[str]:
    names: set[str] = set()
    for f in [*(ROOT / "autograder").rglob("*.py"), *(ROOT / "bench").glob("*.py"), ROOT / "Makefile"]:
        names.update(re.findall(r"\bAUTOGRADER_[A-Z_]*[A-Z]\b", f.read_text(encoding="utf-8")))
    return frozenset(names)


# ------------------------------------------------------------------------------------------ course.toml
def course_path_known(parts: list[str]) -> bool:
    """Whether a table path (`["assignments", "01_tensors", "deadline"]`) or a key at its end is one a
    course file may hold, by `course.KEYS`; tables KEYS does not list (extensions) are free-form."""
    from autograder.config.course import KEYS

    path = ""
    for p in parts:
        allowed = KEYS.get(path)
        if allowed is None:
            return True
        if "*" in allowed:
            path = f"{path}.*"
        elif p in allowed:
            path = f"{path}.{p}".lstrip(".")
        else:
            return False
    return True


MENTION = re.compile(r"^\[((?:course|canvas|lti|deadline|assignments)(?:\.[^\]\s]+)?)\](?:\s+([a-z_]+))?$")
COURSE_TABLES = {"course", "canvas", "lti", "assignments"}


def course_key_problems(text: str, doc: str) -> list[str]:
    """TOML blocks that are course files must load (`load_course`'s own checks); a manifest's `[deadline]`
    must hold only deadline keys; an inline mention `[table] key` must name a table and key of KEYS."""
    from autograder.config.compat import tomllib
    from autograder.config.course import CourseError, _refuse_secrets, _refuse_unknown

    problems = []
    for n, lang, code in segments(text):
        if lang == "toml":
            try:
                data = tomllib.loads(code)
            except tomllib.TOMLDecodeError as e:
                problems.append(f"{doc}:{n}: not TOML: {e}")
                continue
            try:
                if COURSE_TABLES & set(data):
                    _refuse_secrets(data, "")
                    _refuse_unknown(data)
                elif "deadline" in data:
                    _refuse_unknown({"deadline": data["deadline"]})
            except CourseError as e:
                problems.append(f"{doc}:{n}: {e}")
        elif lang == "inline":
            m = MENTION.match(code.strip())
            if m:
                parts = m.group(1).split(".") + ([m.group(2)] if m.group(2) else [])
                if not course_path_known(parts):
                    problems.append(f"{doc}:{n}: a course file has no `{code}`")
    return problems


def problems(text: str, doc: str) -> list[str]:
    return command_problems(text, doc) + file_problems(text, doc) + course_key_problems(text, doc)
