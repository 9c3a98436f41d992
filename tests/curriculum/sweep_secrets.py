"""Grade every master (through the reference, as the gate does) and every alternative solution under
many course secrets; exit 1 if either loses a point under any of them.

Each secret draws its own hidden inputs, so a test whose verdict depends on the draw fails some
courses' masters (the gate then grades nobody) or their correct students.  The curriculum test
(`test_curriculum.py`) grades mutants and stubs too, under one secret; this is the cheap wide check
(~40 s per secret for the six assignments on 2 cores).  `make check-secrets` runs both.

    python tests/curriculum/sweep_secrets.py [--secrets 12] [--first 1] [--assignments 02_autograd,03_components]
"""

from __future__ import annotations

import argparse
import os
import sys
import tempfile
import time
from pathlib import Path

KIT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(KIT))

from autograder.config.assignment import load_assignment  # noqa: E402
from autograder.judge.session import GradeOptions, close_references, grade_notebook  # noqa: E402

ALTERNATIVES = Path(__file__).parent / "alternatives"


def sweep(secrets: list[str], assignments: list[str]) -> list[str]:
    """What lost points, as lines naming the secret, the notebook and the test."""
    lost: list[str] = []
    for secret in secrets:
        os.environ["AUTOGRADER_SECRET"] = secret
        for name in assignments:
            a = load_assignment(name, KIT)
            options = GradeOptions(device="cpu", cache_dir=Path(tempfile.mkdtemp(prefix="sweep-")))
            start = time.monotonic()
            try:
                graded = {
                    "master": grade_notebook(a, a.solution, submission_id="master", options=options, as_reference=True),
                    **{
                        f"alternative {nb.stem}": grade_notebook(a, nb, submission_id="alternative", options=options)
                        for nb in [ALTERNATIVES / f"{name}.ipynb", *sorted(ALTERNATIVES.glob(f"{name}.*.ipynb"))]
                    },
                }
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
        "--assignments", default=",".join(sorted({p.stem.split(".")[0] for p in ALTERNATIVES.glob("*.ipynb")}))
    )
    args = parser.parse_args()
    secrets = [f"sweep-secret-{i}" for i in range(args.first, args.first + args.secrets)]
    lost = sweep(secrets, args.assignments.split(","))
    print("\n".join(["", "lost points:", *lost]) if lost else "\nevery master and alternative: full marks")
    return 1 if lost else 0


if __name__ == "__main__":
    sys.exit(main())
