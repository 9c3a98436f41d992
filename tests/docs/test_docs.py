"""The docs say what the kit has: every command, option, make target, file and course.toml key a doc
(README.md, docs/*.md) names exists, and docs/cli.md and docs/course-toml.md name every command option
and every course.toml key there is.  The truth comes from the code (tests/docs/checks.py)."""

from __future__ import annotations

import re
import shlex

import pytest

from autograder.cli.common import _FROM_COURSE, _PER_ASSIGNMENT
from autograder.config.course import KEYS
from tests.docs import checks
from tests.docs.checks import ROOT

DOC_NAMES = [str(p.relative_to(ROOT)) for p in checks.DOCS]


@pytest.mark.parametrize("doc", DOC_NAMES)
def test_every_command_option_and_make_target_a_doc_names_exists(doc):
    assert checks.command_problems((ROOT / doc).read_text(encoding="utf-8"), doc) == []


@pytest.mark.parametrize("doc", DOC_NAMES)
def test_every_file_test_link_and_variable_a_doc_names_exists(doc):
    assert checks.file_problems((ROOT / doc).read_text(encoding="utf-8"), doc) == []


@pytest.mark.parametrize("doc", DOC_NAMES)
def test_every_course_toml_key_a_doc_names_exists(doc):
    assert checks.course_key_problems((ROOT / doc).read_text(encoding="utf-8"), doc) == []


def _sections(text: str, heading: str) -> dict[str, str]:
    """Level-2 sections whose heading matches `heading`: {first group: the section's text}."""
    parts = re.split(r"^(## .*)$", text, flags=re.M)
    return {m.group(1): body for head, body in zip(parts[1::2], parts[2::2]) for m in [re.match(heading, head)] if m}


def _cli_md() -> str:
    return (ROOT / "docs" / "cli.md").read_text(encoding="utf-8")


def test_cli_md_has_a_section_for_every_command_and_no_other():
    documented = set(_sections(_cli_md(), r"## `autograder ([\w-]+)`"))
    assert documented == set(checks.subparsers())


@pytest.mark.parametrize("command", sorted(checks.subparsers()))
def test_cli_md_documents_every_option_of_each_command(command):
    section = _sections(_cli_md(), r"## `autograder ([\w-]+)`").get(command, "")
    sub = checks.subparsers()[command]
    missing = [
        o
        for o in checks.options(sub)
        if o.startswith("--") and o != "--help" and not re.search(rf"`{re.escape(o)}(?![\w-])", section)
    ]
    assert missing == [], f"docs/cli.md, `autograder {command}`: undocumented {', '.join(missing)}"


def test_cli_md_documents_the_global_options():
    section = _sections(_cli_md(), r"## (Global options)").get("Global options", "")
    missing = [
        o for o in checks.options(checks.parser()) if o.startswith("--") and o != "--help" and f"`{o}" not in section
    ]
    assert missing == []


@pytest.mark.parametrize("command", sorted(checks.subparsers()))
def test_each_command_in_cli_md_has_an_example_its_parser_accepts(command):
    section = _sections(_cli_md(), r"## `autograder ([\w-]+)`").get(command, "")
    examples = [
        t[t.index("autograder") + 1 :]
        for _, lang, code in checks.segments(section)
        if lang == "sh"
        for t in checks.command_lines(code)
        if "autograder" in t
    ]
    assert examples, f"docs/cli.md has no example of `autograder {command}`"
    for argv in examples:
        assert argv[0] == command or argv[0].startswith("-")
        try:
            checks.parser().parse_args(argv)
        except SystemExit:
            pytest.fail(f"`autograder {shlex.join(argv)}` does not parse")


def _course_md_keys() -> dict[str, set[str]]:
    """{KEYS table path: keys in the rows of the docs/course-toml.md sections whose heading names it}."""
    text = (ROOT / "docs" / "course-toml.md").read_text(encoding="utf-8")
    found: dict[str, set[str]] = {}
    for head, body in _sections(text, r"## (.*)").items():
        rows = set(re.findall(r"^\| `([a-z_]+)` \|", body, re.M))
        for table in re.findall(r"`\[([\w.]+)\]`", head):
            path = re.sub(r"^assignments\.ID", "assignments.*", table)
            found.setdefault(path, set()).update(rows)
    return found


def test_course_toml_md_documents_every_key_and_no_other():
    documented = _course_md_keys()
    for path, keys in KEYS.items():
        if path in ("", "assignments"):
            continue
        assert documented.get(path, set()) == set(keys), f"docs/course-toml.md, [{path}]"
    assert set(documented) <= set(KEYS)


def test_every_key_the_command_line_takes_from_the_course_file_is_declared():
    for _, _dest, table, key, _ in _FROM_COURSE:
        assert key in KEYS[table], (table, key)
    for _, _dest, key in _PER_ASSIGNMENT:
        assert key in KEYS["assignments.*"], key


# ------------------------------------------------------------------------------------------ the checks fail
def test_the_checks_find_what_the_kit_does_not_have():
    text = "\n".join(
        [
            "```sh",
            "autograder grade 01_tensors subs/ --jobz 2 --device tpu",
            "autograder regrade 01_tensors",
            "autograder --course-file c.toml export 01_tensors --format xls",
            "autograder nbgrader publish 01_tensors --course c",
            "make bench BENCH_ARGS='--copies 2 --only ours,theirs --samples perfect,awful --assignments 09_none --fast'",
            ".venv/bin/python bench/floor.py 01_tensors --repeat 3",
            "make benchmark",
            "```",
            "See `autograder/no_such_module.py`, `judge/nothing.py`, `tests/judge/test_suite.py::test_no_such_test`,",
            "[a link](nowhere.md), `AUTOGRADER_NO_SUCH_VARIABLE` and `[canvas] api_url`, `[assignments.ID] due`,",
            "and grade with `--jobz 4`.",
            "```toml",
            "[course]",
            "rooster = \"roster.csv\"",
            "```",
            "```toml",
            "[deadline]",
            "penalty_pct = 5",
            "```",
        ]
    )
    found = " / ".join(checks.problems(text, "docs/x.md"))
    for claim in [
        "no option --jobz",
        "'tpu' is not one of",
        "no command `autograder regrade`",
        "'xls' is not one of",
        "'publish' is not one of",
        "no 'theirs'",
        "no 'awful'",
        "no '09_none'",
        "has no option --fast",
        "bench/floor.py has no option --repeat",
        "no make target 'benchmark'",
        "no file autograder/no_such_module.py",
        "no file autograder/judge/nothing.py",
        "no test test_no_such_test",
        "nowhere.md leads nowhere",
        "no AUTOGRADER_NO_SUCH_VARIABLE",
        "no `[canvas] api_url`",
        "no `[assignments.ID] due`",
        "course.rooster",
        "deadline.penalty_pct",
        "has an option --jobz",
    ]:
        assert claim in found, claim


def test_the_checks_let_what_the_kit_has_through():
    text = "\n".join(
        [
            "```sh",
            "autograder --course-file c.toml grade 01_tensors subs/ --jobs auto --device cuda --format canvas|moodle",
            "CANVAS_API_TOKEN=... autograder passback 01_tensors --dry-run && autograder nbgrader grade 01_tensors --course C",
            "make bench BENCH_ARGS='--assignments 01_tensors --only ours,floor --samples perfect,blank'",
            "make install TORCH_SPEC=\"torch==2.13.0\"",
            "```",
            "`autograder/config/course.py`, `execute/wire.py`, `bench/out/latest.json`, `assignments/<id>/manifest.toml`,",
            "[the CLI](cli.md), `AUTOGRADER_SECRET_FILE`, `[assignments.ID.deadline.extensions]`, `[lti] kid`,",
            "`--memory-budget`, `--dev-bind` (bwrap's, which the sandbox passes).",
        ]
    )
    assert checks.problems(text, "docs/x.md") == []


# History lives in git: a doc that tells how the kit was ("before the tenth session", "issue 15", "used to
# run") stops describing the kit as it is, and goes stale with every change.
DIARY = re.compile(
    r"\b(?:\w+th|first|second|third) session\b|\bissue \d+\b|\bused to (?:run|be|do)\b|"
    r"\bearlier versions\b|\(before[:,]|\bbefore the \w+ session\b",
    re.IGNORECASE,
)


@pytest.mark.parametrize("doc", DOC_NAMES)
def test_docs_describe_the_kit_as_it_is_not_its_history(doc):
    text = (ROOT / doc).read_text(encoding="utf-8")
    found = [f"line {text.count(chr(10), 0, m.start()) + 1}: {m.group(0)!r}" for m in DIARY.finditer(text)]
    assert found == [], f"{doc} tells history (keep it in git log): {found}"


# ------------------------------------------------------------------------------------------ the performance doc
def test_performance_md_is_a_reference_under_300_lines():
    lines = (ROOT / "docs" / "performance.md").read_text(encoding="utf-8").splitlines()
    assert len(lines) < 300, f"docs/performance.md has {len(lines)} lines: a reference, not a log (history: git log)"


def test_every_section_of_performance_md_with_a_measurement_names_the_command_that_takes_it():
    text = (ROOT / "docs" / "performance.md").read_text(encoding="utf-8")
    measured = re.compile(r"\d(?:\.\d+)?\s?(?:s|ms|x|%|MiB|GiB|MB|GB|subs/min)\b")
    silent = [
        head
        for head, body in _sections(text, r"(## .*)").items()
        if measured.search(body) and not re.search(r"make bench|bench/\w+\.py", body)
    ]
    assert silent == []
