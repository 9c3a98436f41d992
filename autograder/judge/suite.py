"""An assignment's tests, collected once per process and run against each submission in turn.

`pytest.main` per submission paid pytest's start (configuration, plugin registration, collection
of every test file) again for each notebook: 0.2-0.35 s, as much as a whole 01_tensors submission's
tests.  A `TestSuite` does that once; `run` then takes the collected items through pytest's own
per-test protocol (`pytest_runtest_protocol`: set-up, call, tear-down, reports), as
pytest-rerunfailures does to re-run an item.  Each run ends with `nextitem=None`, which tears every
fixture down, session-scoped ones included, so no fixture value outlives the submission it was made
for.  What the plugin gathers per submission (results, the backend the `student` fixture calls) is
bound afresh by `GradingPlugin.bind` before each run.

Test modules stay imported for the suite's life: the rule for test authors (docs/writing-tests.md)
is that a test module keeps no state between tests.  Only one suite is open per process at a time
(`open_suite`); another assignment or version closes it and forgets its modules.
"""

from __future__ import annotations

import contextlib
import io
import os
import sys
import tempfile
import time
from pathlib import Path
from typing import Collection, Iterator

import pytest
from _pytest.config import _prepareconfig  # the parse step of pytest.main, without its session loop
from _pytest.main import Session

from autograder.judge.plugin import GradingPlugin, result_id

# plugins that cost time per test and add nothing here (unraisableexception alone runs gc 2-3 times)
_DISABLED = (
    "cacheprovider",
    "randomly",
    "unraisableexception",
    "threadexception",
    "faulthandler",
    "doctest",
    "junitxml",
    "pastebin",
    "nose",
    "legacypath",
    "stepwise",
    "lsp",
    "logging",
    "capture",
    "warnings",
    "terminal",
)


# what pytest reads from the environment while it configures itself: extra options, plugins to import,
# and (unless told not to) every installed package's `pytest11` entry-point plugin
_PYTEST_ENVIRONMENT = {"PYTEST_ADDOPTS": None, "PYTEST_PLUGINS": None, "PYTEST_DISABLE_PLUGIN_AUTOLOAD": "1"}


@contextlib.contextmanager
def _isolated_from_environment() -> Iterator[None]:
    """Grades must not depend on what the grading machine has installed or set: a pytest-timeout,
    -rerunfailures, -randomly or -xdist found there, or a PYTEST_ADDOPTS of the shell, could rerun,
    reorder, reseed or cut tests.  Only pytest's own plugins and the kit's run in a judge."""
    saved = {k: os.environ.get(k) for k in _PYTEST_ENVIRONMENT}
    try:
        _set_environment(_PYTEST_ENVIRONMENT)
        yield
    finally:
        _set_environment(saved)


def _set_environment(values: dict[str, str | None]) -> None:
    """Set each variable to its value; None unsets it."""
    for k, v in values.items():
        if v is None:
            os.environ.pop(k, None)
        else:
            os.environ[k] = v


def _empty_ini() -> Path:
    """A config file with nothing in it, so no surrounding pytest.ini/pyproject applies."""
    path = Path(tempfile.gettempdir()) / "autograder-empty-pytest.ini"
    if not path.is_file():
        path.write_text("[pytest]\n")
    return path


class TestSuite:
    """Test files under `rootdir`, collected with `plugin` registered; `run()` once per submission."""

    __test__ = False  # not a test class, whatever pytest finds importing this module

    def __init__(self, paths: list[Path], plugin: GradingPlugin, rootdir: Path) -> None:
        self.paths, self.plugin, self.rootdir = [Path(p) for p in paths], plugin, Path(rootdir)
        self.key: tuple = ()
        self._log = io.StringIO()  # pytest's terminal reporter writes here for the suite's life
        self._modules_before = set(sys.modules)
        args = [
            *map(str, self.paths),
            "--import-mode=importlib",
            *[a for p in _DISABLED for a in ("-p", f"no:{p}")],
            "-c",
            str(_empty_ini()),
            "--rootdir",
            str(self.rootdir),
            "--confcutdir",
            str(self.rootdir),
            "-W",
            "ignore",
            "-o",
            "python_files=test_*.py",
        ]
        start = time.monotonic()
        self._config: pytest.Config | None = None
        with self._output(), _isolated_from_environment():
            self._config = _prepareconfig(args, plugins=[plugin])
            self._session = Session.from_config(self._config)
            self._config._do_configure()
            self._config.hook.pytest_sessionstart(session=self._session)
            self._config.hook.pytest_collection(session=self._session)
        self.items: list[pytest.Item] = list(self._session.items)
        # as pytest.main: a file that cannot be collected stops the whole run (the plugin reports it)
        self.broken = self._session.testsfailed > 0
        self._log.write(f"\n[pytest collected {len(self.items)} tests in {time.monotonic() - start:.2f}s]")
        self.collection_log = self._log.getvalue()

    @contextlib.contextmanager
    def _output(self):
        with contextlib.redirect_stdout(self._log), contextlib.redirect_stderr(self._log):
            yield

    def run(self, only: Collection[str] | None = None) -> str:
        """Every collected test, or those `only` names (test files, "hidden/test_x.py", or tests,
        "hidden/test_x.py::test_y[cpu]", relative to the assignment folder), against the backends the plugin is
        bound to now; pytest's output.  A subset runs from the same collection: a partial re-grade, a share of
        the reference pass or a variant's proof costs no second collection."""
        if self._config is None:
            raise RuntimeError("this test suite is closed")
        items = self.items
        if only is not None:
            wanted = set(only)
            items = [item for item in items if (rid := result_id(item)) in wanted or rid.split("::")[0] in wanted]
        mark = self._log.tell()
        start = time.monotonic()
        try:
            with self._output():
                if not self.broken:
                    for i, item in enumerate(items):
                        nextitem = items[i + 1] if i + 1 < len(items) else None
                        item.config.hook.pytest_runtest_protocol(item=item, nextitem=nextitem)
        except BaseException:
            self.close()  # interrupted between set-up and tear-down: its fixture stack cannot be trusted
            raise
        self._log.write(f"\n[pytest ran in {time.monotonic() - start:.2f}s]")
        log = self.collection_log + self._log.getvalue()[mark:]
        self._log.seek(0)  # keep the buffer from growing with every submission
        self._log.truncate()
        self._log.write(self.collection_log)
        return log

    def close(self) -> None:
        config, self._config = self._config, None
        if config is None:
            return
        try:
            with self._output():
                config.hook.pytest_sessionfinish(session=self._session, exitstatus=0)
                config._ensure_unconfigure()
        finally:
            _forget_modules_under(self.rootdir, self._modules_before)

    def __enter__(self) -> "TestSuite":
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


def _forget_modules_under(root: Path, before: set[str]) -> None:
    """Drop test modules the suite imported from `root`: pytest's importlib mode would otherwise hand
    the next suite (another version, or another assignment with a same-named test file) the cached
    module.  Only modules new since `before` are looked at (resolving every loaded module's path
    costs 0.1 s)."""
    prefix = os.path.realpath(root) + os.sep
    for name in set(sys.modules) - before:
        f = getattr(sys.modules.get(name), "__file__", None)
        if f and os.path.realpath(f).startswith(prefix):
            del sys.modules[name]


def run_tests(paths: list[Path], plugin: GradingPlugin, rootdir: Path) -> str:
    """Collect and run `paths` once with `plugin` (self-checks, benchmarks); pytest's output."""
    with TestSuite(paths, plugin, rootdir) as suite:
        return suite.run()


_open: TestSuite | None = None


def open_suite(key: tuple, paths: list[Path], make_plugin, rootdir: Path) -> TestSuite:
    """The process's suite for `key` (assignment, version, test files, devices), collected on first
    use; a different key closes the open one first (one suite, one set of test modules, at a time)."""
    global _open
    if _open is not None and (_open.key != key or _open._config is None):
        close_suite()
    if _open is None:
        suite = TestSuite(paths, make_plugin(), rootdir)
        suite.key = key
        _open = suite
    return _open


def close_suite() -> None:
    global _open
    suite, _open = _open, None
    if suite is not None:
        suite.close()
