"""Grade every master (through the reference, as the gate does) and every alternative solution under
many course secrets; exit 1 if either loses a point under any of them.

Each secret draws its own hidden inputs, so a test whose verdict depends on the draw fails some
courses' masters (the gate then grades nobody) or their correct students.  The curriculum test
(`test_curriculum.py`) grades mutants and stubs too, under one secret; this is the cheap wide check
(~40 s per secret for the six assignments on 2 cores).  `make check-secrets` runs both.

    python tests/curriculum/sweep_secrets.py [--secrets 12] [--first 1] [--assignments 02_autograd,03_components]
        [--margins margins.json]

With `--margins`, every comparison under a tolerance reports how much of it the error used
(`checks.observe_margins`): per test, over every grading, the mean and the largest share, and the false-failure
rate an exponential tail fitted to them gives (docs/writing-tests.md, "False failures").
"""

from __future__ import annotations

import argparse
import json
import math
import os
import signal
import statistics
import sys
import tempfile
import time
from collections import defaultdict
from pathlib import Path

KIT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(KIT))

from autograder.config.assignment import load_assignment  # noqa: E402
from autograder.judge import checks  # noqa: E402
from autograder.judge.session import GradeOptions, close_references, grade_notebook  # noqa: E402

ALTERNATIVES = Path(__file__).parent / "alternatives"
STOP: list[bool] = []  # set by SIGTERM: no grading starts after it


class Margins:
    """How much of each check's tolerance correct work used (`checks.observe_margins`), per test and grading: the
    largest share over the test's comparisons in that grading (the test fails when one is above 1)."""

    def __init__(self) -> None:
        self.by_test: dict[tuple[str, str], list[float]] = defaultdict(list)  # (assignment, test id) -> per grading
        self._grading: dict[str, float] = {}

    def observe(self, used: float) -> None:
        test = os.environ.get("PYTEST_CURRENT_TEST", "").rsplit(" (", 1)[0]  # "<file>::<test> (call)"
        self._grading[test] = max(used, self._grading.get(test, 0.0))

    def graded(self, assignment: str) -> None:
        for test, used in self._grading.items():
            self.by_test[(assignment, test)].append(used)
        self._grading = {}

    def rows(self) -> list[dict]:
        """Per test: the gradings, the mean and largest share used, and the false-failure rate an exponential tail
        fitted to the largest of n gives (scale (max - mean) / ln n), as docs/writing-tests.md's bounds."""
        out = []
        for (assignment, test), used in sorted(self.by_test.items()):
            n, mean, top = len(used), statistics.fmean(used), max(used)
            scale = (top - mean) / math.log(n) if n > 1 else math.inf
            rate = 0.0 if scale == 0 else math.exp(-(1 - mean) / scale)  # one grading (scale inf): 1
            out.append({"assignment": assignment, "test": test, "gradings": n, "mean": mean, "max": top, "rate": rate})
        return out


def sweep(secrets: list[str], assignments: list[str], margins: Margins | None = None) -> list[str]:
    """What lost points, as lines naming the secret, the notebook and the test."""
    lost: list[str] = []
    checks.observe_margins(margins.observe if margins else None)
    for secret in secrets:
        os.environ["AUTOGRADER_SECRET"] = secret
        for name in assignments:
            if STOP:
                return lost
            a = load_assignment(name, KIT)
            start = time.monotonic()
            graded = {}
            with tempfile.TemporaryDirectory(prefix="sweep-") as cache:
                options = GradeOptions(device="cpu", cache_dir=Path(cache))
                try:
                    for kind, nb in [
                        ("master", None),
                        *(
                            (f"alternative {p.stem}", p)
                            for p in [ALTERNATIVES / f"{name}.ipynb", *sorted(ALTERNATIVES.glob(f"{name}.*.ipynb"))]
                        ),
                    ]:
                        graded[kind] = grade_notebook(
                            a,
                            nb or a.solution,
                            submission_id=kind.split()[0],
                            options=options,
                            as_reference=nb is None,
                        )
                        if margins:
                            margins.graded(name)
                finally:
                    close_references()
            print(
                f"{secret} {name}: "
                + ", ".join(f"{k} {r.score:g}/{r.max_score:g}" for k, r in graded.items())
                + f" ({time.monotonic() - start:.0f} s)",
                flush=True,
            )
            for kind, r in graded.items():
                lost += [
                    f"{secret} {name} {kind}: {t.id}: {t.outcome}: {t.message[:200]}"
                    for t in r.tests
                    if t.score < t.max_score
                ]
    return lost


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--secrets", type=int, default=12, help="how many secrets (sweep-secret-1, -2, ...)")
    parser.add_argument("--first", type=int, default=1, help="the first secret's number (another sweep's draws)")
    parser.add_argument(
        "--margins", type=Path, help="write, per test, how much of its tolerance correct work used (JSON), and its rate"
    )
    parser.add_argument(
        "--assignments", default=",".join(sorted({p.stem.split(".")[0] for p in ALTERNATIVES.glob("*.ipynb")}))
    )
    args = parser.parse_args()
    secrets = [f"sweep-secret-{i}" for i in range(args.first, args.first + args.secrets)]
    margins = Margins() if args.margins else None
    # `timeout`: the sweep ends after the grading in progress (an exception raised inside it would fail a test)
    signal.signal(signal.SIGTERM, lambda *_: STOP.append(True))
    lost = sweep(secrets, args.assignments.split(","), margins)
    if margins:
        args.margins.write_text(json.dumps(margins.rows(), indent=1))
    print("\n".join(["", "lost points:", *lost]) if lost else "\nevery master and alternative: full marks")
    return 1 if lost else 0


if __name__ == "__main__":
    sys.exit(main())
