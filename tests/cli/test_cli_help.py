"""Every command, option and positional of the CLI says what it is for, and each subcommand shows an example."""

import argparse
import subprocess
import sys

import autograder
from autograder.cli import _parser


def _subcommands(p: argparse.ArgumentParser) -> dict[str, argparse.ArgumentParser]:
    subs = [a for a in p._actions if isinstance(a, argparse._SubParsersAction)]
    return {name: sp for a in subs for name, sp in a.choices.items()}


def test_every_argument_has_help():
    missing = []
    for name, sp in _subcommands(_parser()).items():
        for action in sp._actions:
            if isinstance(action, argparse._HelpAction):
                continue
            if not (action.help or "").strip():
                missing.append(f"{name} {'/'.join(action.option_strings) or action.dest}")
    assert missing == []


def test_every_subcommand_has_help_and_an_example():
    parser = _parser()
    helps = {a.dest: a.help for a in parser._subparsers._group_actions[0]._choices_actions}
    for name, sp in _subcommands(parser).items():
        assert helps.get(name), name
        assert "example" in (sp.epilog or ""), name


def test_version():
    r = subprocess.run([sys.executable, "-m", "autograder", "--version"], capture_output=True, text=True, timeout=60)
    assert r.returncode == 0 and autograder.__version__ in r.stdout
