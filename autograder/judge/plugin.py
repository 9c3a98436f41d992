"""The pytest plugin that turns an assignment's test files into scores.

It provides the fixtures tests use (`student`, `reference`, `probes`, `rng`, `np_rng`,
`shared_rng`, `seed`, `device`, `credit`), reads the `points` and `hint` markers, splits a test's points
between the device variants that can run (a cuda variant without CUDA is *skipped* with
its reason and worth 0, so the cpu variant carries the points), and classifies every
outcome: failed / timeout / crashed / error each cost only that test's points.  `error` is the
grader's or the host's fault (kept provisional, graded again); a check that raises on the value a
submission returned (None where a tensor belongs) is that submission's `failed`, since the master
passed the same test before any student was graded (`pipeline.check_master`).
"""

from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass, field
from pathlib import Path
from types import ModuleType
from typing import Any, Callable, Literal, cast

import numpy as np
import pytest
import torch

from autograder.execute.backend import ProbeBackend, ProbeCrashed, ProbeError, ProbeTimeout
from autograder.execute.namespace import UNDEFINED, MissingAnswer, undefined_name
from autograder.execute.runner import HostFault
from autograder.judge.checks import TooCostly
from autograder.judge.results import TestResult
from autograder.notebook.cells import cell_name
from autograder.notebook.stub import ERROR as STUB_ERROR
from autograder.notebook.stub import NOT_ANSWERED, not_answered
from autograder.probe.client import ProbeClient, TestContext
from autograder.probe.ledger import CostLedger
from autograder.probe.reference import ReferenceFailed
from autograder.probe.seeds import Seeds

_POINTS = pytest.StashKey[float]()
CUDA_MISSING = "CUDA is not available on this grading machine"


@dataclass
class Credit:
    """Partial credit for the current test: `credit.award(0.5, "half the shapes right")`."""

    fraction: float | None = None
    notes: list[str] = field(default_factory=list)

    def award(self, fraction: float, note: str = "") -> None:
        self.fraction = min(1.0, max(0.0, float(fraction)))
        if note:
            self.notes.append(note)


class GradingPlugin:
    def __init__(
        self,
        *,
        student: ProbeBackend,
        reference: ProbeBackend | None,
        probes: ModuleType | None,
        seeds: Seeds,
        test_timeout: float,
        devices: tuple[str, ...] = ("cpu", "cuda"),
        cuda_available: bool | None = None,
        hidden_dir: Path | None = None,
        kernel_device: str | None = None,
    ) -> None:
        self.student_backend = student
        self.reference_backend = reference
        self.probes_module = probes
        self.seeds = seeds
        self.test_timeout = test_timeout
        self.devices = devices
        self.cuda_available = torch.cuda.is_available() if cuda_available is None else cuda_available
        # where the student's GPU-style (Triton) kernels can run: on the GPU where the workers see one,
        # else on CPU tensors through Triton's interpreter (never both: Triton picks its mode at import)
        self._kernel_device = kernel_device or ("cuda" if self.cuda_available else "cpu")
        self.hidden_dir = hidden_dir.resolve() if hidden_dir else None
        self.master = False  # grading the master itself: a check that raises is the assignment's bug
        self.results: list[TestResult] = []
        self._item: pytest.Item | None = None  # the test running now (`pytest_runtest_protocol`)
        self.host_fault = ""  # a test met a worker (student's or master's) that could not be started
        self.problems: list[str] = []  # collection problems: a broken assignment, reported with every result
        self.ledger = CostLedger()  # what this submission's costed calls proved (`bind`: one per submission)
        self.kept: dict[str, Any] = {}  # its `ProbeClient.fresh_once` answers (`bind`: one per submission)

    def bind(
        self, student: ProbeBackend, reference: ProbeBackend | None, seeds: Seeds, *, master: bool = False
    ) -> None:
        """Start a new submission's run on the same collected tests (`judge.suite`); `master` when the
        submission is the master notebook (the reference pass, `check-solutions`)."""
        self.student_backend, self.reference_backend, self.seeds = student, reference, seeds
        self.master = master
        self.results = []
        self.host_fault = ""
        self.ledger = CostLedger()
        self.kept = {}

    # -- configuration -------------------------------------------------------------
    def pytest_configure(self, config: pytest.Config) -> None:
        config.addinivalue_line("markers", "points(n): points this test is worth")
        config.addinivalue_line("markers", "hint(text): shown to the student when this public test fails")
        config.addinivalue_line(
            "markers",
            "same_inputs: a hidden test whose inputs are every student's (too large "
            "to copy or tabulate): they do not vary per student (probe/seeds.py)",
        )

    def pytest_generate_tests(self, metafunc: pytest.Metafunc) -> None:
        if "device" not in metafunc.fixturenames:
            return
        params = []
        for d in self.devices:
            marks = [] if d == "cpu" or self.cuda_available else [pytest.mark.skip(reason=CUDA_MISSING)]
            params.append(pytest.param(d, id=d, marks=marks))
        metafunc.parametrize("device", params)

    def pytest_collection_modifyitems(
        self, session: pytest.Session, config: pytest.Config, items: list[pytest.Item]
    ) -> None:
        groups: dict[tuple, list[pytest.Item]] = defaultdict(list)
        for item in items:
            mark = item.get_closest_marker("points")
            if mark is None or not mark.args or not isinstance(mark.args[0], (int, float)):
                self.problems.append(f"{item.nodeid}: missing @pytest.mark.points(n)")
                item.stash[_POINTS] = 0.0
                continue
            spec = getattr(item, "callspec", None)
            others = tuple(sorted((k, repr(v)) for k, v in (spec.params.items() if spec else ()) if k != "device"))
            groups[(str(item.path), getattr(item, "originalname", item.name), others)].append(item)
        for group in groups.values():
            runnable = [i for i in group if not i.get_closest_marker("skip")]
            first = group[0].get_closest_marker("points")
            assert first is not None  # every item without one was set aside above
            total = float(first.args[0])
            for item in group:
                item.stash[_POINTS] = total / len(runnable) if item in runnable else 0.0

    def pytest_collectreport(self, report: pytest.CollectReport) -> None:
        if report.failed:
            self.problems.append(f"{report.nodeid}: could not be collected: {str(report.longrepr)[-800:]}")

    # -- fixtures ------------------------------------------------------------------
    # The fixtures read the running test from `self._item` rather than asking for pytest's `request`:
    # pytest builds a fixture definition (and inspects a signature) for each `request` asked for, 5
    # per test here, 0.01-0.02 s of a 65-test submission.
    @pytest.fixture
    def _grading_context(self) -> TestContext:
        return TestContext(self._scoped(), _test_id(self._running), self.test_timeout, self.ledger, self.kept)

    @pytest.fixture
    def student(self, _grading_context: TestContext) -> ProbeClient:
        return ProbeClient(self.student_backend, self.probes_module, _grading_context, "student")

    @pytest.fixture
    def reference(self, _grading_context: TestContext) -> ProbeClient:
        if self.reference_backend is None or not self._is_hidden(self._running):
            raise RuntimeError("the `reference` fixture is only available to hidden tests")
        return ProbeClient(self.reference_backend, self.probes_module, _grading_context, "reference")

    @pytest.fixture
    def kernel_device(self) -> str:
        """'cuda' where the workers see a GPU, else 'cpu': the device Triton kernels are tested on."""
        return self._kernel_device

    @pytest.fixture
    def probes(self) -> ModuleType | None:
        return self.probes_module

    @pytest.fixture
    def seed(self) -> int:
        return self._scoped().test(_test_id(self._running))

    @pytest.fixture
    def rng(self, seed: int) -> torch.Generator:
        return torch.Generator().manual_seed(seed)

    @pytest.fixture
    def np_rng(self, seed: int) -> np.random.Generator:
        return np.random.default_rng(seed)

    @pytest.fixture
    def shared_rng(self) -> Callable[[str], np.random.Generator]:
        """`shared_rng("rings")`: a numpy generator seeded from the course secret and the name alone, the same
        in every test of the submission that names it (a hidden test's vary per student, as `np_rng`): the
        inputs of a `student.once` call that several tests judge."""
        seeds = self._scoped()
        return lambda name: np.random.default_rng(seeds.test(f"shared:{name}"))

    @pytest.fixture
    def credit(self) -> Credit:
        c = Credit()
        self._running.stash[_CREDIT] = c
        return c

    @property
    def _running(self) -> pytest.Item:
        """The test running now: a fixture is only ever set up inside one."""
        assert self._item is not None, "a grading fixture was asked for outside a test"
        return self._item

    def _scoped(self) -> Seeds:
        """The seeds of the test running now: a hidden test's vary per student (`Seeds.scope`)."""
        return self.seeds.scope(self._varies(self._running))

    def _varies(self, item: pytest.Item) -> bool:
        """Whether the test's inputs are the student's own: a hidden test's, unless marked `same_inputs`."""
        return self._is_hidden(item) and item.get_closest_marker("same_inputs") is None

    def _is_hidden(self, item: pytest.Item) -> bool:
        if _HIDDEN not in item.stash:  # resolved once per collected item, not once per submission
            item.stash[_HIDDEN] = self.hidden_dir is not None and Path(item.path).resolve().is_relative_to(
                self.hidden_dir
            )
        return item.stash[_HIDDEN]

    # -- outcomes ------------------------------------------------------------------
    @pytest.hookimpl(tryfirst=True)
    def pytest_runtest_protocol(self, item: pytest.Item, nextitem: pytest.Item | None) -> None:
        """An item runs once per submission: nothing of the last run may reach this one."""
        self._item = item
        if _CREDIT in item.stash:
            del item.stash[_CREDIT]
        item._report_sections = []  # captured output of the last run's phases

    @pytest.hookimpl(hookwrapper=True)
    def pytest_runtest_makereport(self, item: pytest.Item, call: pytest.CallInfo) -> Any:
        outcome = yield
        rep: pytest.TestReport = outcome.get_result()
        if rep.when == "call" or (rep.when == "setup" and not rep.passed):
            self.results.append(self._result(item, call, rep))

    @pytest.hookimpl(tryfirst=True, specname="pytest_runtest_makereport")
    def pytest_runtest_makereport_plain(self, item: pytest.Item, call: pytest.CallInfo) -> pytest.TestReport:
        """pytest's report without its formatted traceback: building that took 12-37 ms per failing test
        (a blank notebook's 38 failures: 0.6-1.0 s, more than grading a correct one).  Nothing reads it:
        a result's message comes from the exception (`_classify`)."""
        exc = call.excinfo
        outcome: Literal["passed", "failed", "skipped"]
        longrepr: Any
        if exc is None:
            outcome, longrepr = "passed", None
        elif isinstance(exc.value, pytest.skip.Exception):
            outcome, longrepr = "skipped", (str(item.path), 0, exc.exconly())
        else:
            outcome, longrepr = "failed", exc.exconly()[:2000]
        when = cast(Literal["setup", "call", "teardown"], call.when)  # a test's phases: never "collect"
        return pytest.TestReport(
            item.nodeid,
            item.location,
            {k: 1 for k in item.keywords},
            outcome,
            longrepr,
            when,
            [],
            call.duration,
            call.start,
            call.stop,
            item.user_properties,
        )

    def _result(self, item: pytest.Item, call: pytest.CallInfo, rep: pytest.TestReport) -> TestResult:
        points = item.stash.get(_POINTS, 0.0)
        credit: Credit | None = item.stash.get(_CREDIT, None)
        fraction, message, outcome, reason = 0.0, "", "failed", ""
        if rep.skipped:
            outcome = "skipped"
            message = rep.longrepr[2] if isinstance(rep.longrepr, tuple) else str(rep.longrepr)
            message = message.removeprefix("Skipped: ")
        elif rep.passed:
            fraction = credit.fraction if credit and credit.fraction is not None else 1.0
            outcome = "passed" if fraction >= 1.0 else "partial"
        else:
            exc = call.excinfo.value if call.excinfo else None
            outcome, message = _classify(exc, self.master)
            reason = exc.reason if isinstance(exc, TooCostly) else ""
            if isinstance(exc, HostFault):
                self.host_fault = str(exc)
            if credit and credit.fraction:
                fraction = credit.fraction
                outcome = "partial" if outcome == "failed" else outcome
        if credit and credit.notes:
            message = "; ".join(credit.notes) + (f"\n{message}" if message else "")
        hint = item.get_closest_marker("hint")
        doc = (getattr(item, "function", None).__doc__ or "").strip().splitlines() if hasattr(item, "function") else []
        spec = getattr(item, "callspec", None)
        device = spec.params.get("device") if spec else None
        name = doc[0] if doc else item.originalname if hasattr(item, "originalname") else item.name
        return TestResult(
            id=result_id(item),
            name=name + (f" [{device}]" if device else ""),
            exercise=Path(str(item.path)).stem.removeprefix("test_"),
            kind="hidden" if self._is_hidden(item) else "public",
            max_score=round(points, 6),
            score=round(points * fraction, 6),
            outcome=outcome,
            message=message[:4000],
            reason=reason,
            hint=str(hint.args[0]) if hint and hint.args else "",
            duration=round(rep.duration, 4),
            device=device,
        )


_CREDIT = pytest.StashKey[Credit]()
_HIDDEN = pytest.StashKey[bool]()


def _test_id(item: pytest.Item) -> str:
    """What a test's seeds derive from: its file and function name.  The device is left out so cpu
    and cuda variants see the same inputs; the run order is left out so a partial re-grade does too."""
    return f"{item.path.name}::{item.originalname if hasattr(item, 'originalname') else item.name}"


def result_id(item: pytest.Item) -> str:
    """A test's id in its results, relative to the assignment folder: "hidden/test_x.py::test_y[cpu]"."""
    path = Path(str(item.path))
    return f"{path.parent.name}/{path.name}::{item.name}"


# What a check raises when the value it was handed is not what a correct answer looks like (None, a list,
# a wrong dtype or shape: `None.shape`, `len(3)`, torch refusing to broadcast).  Anything else a test
# raises (OSError, MemoryError, NameError, ImportError...) is the grader's or the host's.
_VALUE_ERRORS = (TypeError, AttributeError, ValueError, LookupError, ArithmeticError, RuntimeError)
_HOST_ERRORS = (MemoryError, torch.OutOfMemoryError)


def _classify(exc: BaseException | None, master: bool = False) -> tuple[str, str]:
    if isinstance(exc, ProbeTimeout):
        return "timeout", f"timed out: {exc}"
    if isinstance(exc, HostFault):
        return "error", f"grader error (not your fault): {exc}"
    if isinstance(exc, ProbeCrashed):
        return "crashed", f"your code crashed the grading worker: {exc}"
    if isinstance(exc, ProbeError):
        err = exc.error
        where = ""
        frames = err.get("frames") or []
        if frames:  # cells named as everywhere (notebook.cells): position among all cells; here the line that raised
            f = frames[-1]
            where = f" ({cell_name(f.get('cell'))}, line {f.get('line')}: {str(f.get('code', '')).strip()})"
        if err.get("type") == STUB_ERROR:  # the release's stub, untouched
            said = str(err.get("message") or "")  # a self-check's probe names the stubs it met
            return "failed", (said if said.startswith(NOT_ANSWERED) else not_answered([])) + where
        if err.get("type") == MissingAnswer.__name__ and not frames:
            # the probe asked for a name no cell defined: no code of theirs raised ("the notebook does not define `f`")
            return "failed", str(err.get("message") or "")
        name = undefined_name(err)
        if name is not None:  # their code used a name no cell defined: said as such, and owed no variant proof
            return "failed", f"{UNDEFINED} `{name}`, which your code uses{where}"
        message = f": {err.get('message')}" if err.get("message") else ""
        return "failed", f"your code raised {err.get('type')}{message}{where}"
    if isinstance(exc, ReferenceFailed):
        return "error", f"grader error (not your fault): {exc}"
    if isinstance(exc, (AssertionError, pytest.fail.Exception)):
        return "failed", str(exc) or "a check failed"
    if (
        not master
        and isinstance(exc, _VALUE_ERRORS)
        and not isinstance(exc, _HOST_ERRORS)
        and "can't allocate memory" not in str(exc)
    ):
        # the master passed this test: what makes it raise now is the value this submission returned
        return "failed", (
            f"your answer could not be checked ({type(exc).__name__}: {exc}); "
            "check the type and shape of what your code returns"
        )[:2000]
    return "error", f"the grader could not check this answer: {type(exc).__name__}: {exc}"[:2000]
