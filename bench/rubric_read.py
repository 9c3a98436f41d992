"""What staff's marks cost each read of a class's grades (every command, every page, `grade` twice per run).

    .venv/bin/python bench/rubric_read.py 500     # one line on stdout

A results folder of N synthetic results of the toy assignment (tests/fixtures/kit) is read with
`store.folder.assignment_grades`, once bare and once with 30 rubric items applied 6 times per student; each
figure is the best of three (the machine may be shared).
"""

from __future__ import annotations

import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from autograder.grades.rubric import Item  # noqa: E402
from autograder.store.database import Gradebook, gradebook_path  # noqa: E402
from autograder.store.folder import assignment_grades  # noqa: E402
from autograder.store.marks import Marks  # noqa: E402
from tests.grades.factory import result  # noqa: E402

KIT = ROOT / "tests" / "fixtures" / "kit"


def best(out: Path) -> float:
    times = []
    for _ in range(3):
        t = time.perf_counter()
        assignment_grades(KIT, "toy", out)
        times.append(time.perf_counter() - t)
    return min(times)


def main(n: int) -> None:
    with tempfile.TemporaryDirectory() as d:
        out = Path(d)
        gb = Gradebook(gradebook_path(out))
        for i in range(n):
            gb.put(result(f"s{i:04d}", (1, 0.5 if i % 3 else 1, 1, 0 if i % 7 == 0 else 1, 1)))
        gb.close()
        bare = best(out)
        m = Marks(out)
        items = [
            m.add_item(Item(0, "toy", ex, f"item {k}", -0.5 if k % 2 else 0.5))
            for ex in ("double", "answer", "later")
            for k in range(10)
        ]
        for k, it in enumerate(items):
            m.apply("toy", it.id, [(f"s{i:04d}", "ab" * 32) for i in range(k % 5, n, 5)], "TA")
        marked = best(out)
        print(
            f"{n} submissions: {bare:.2f} s bare, {marked:.2f} s with 30 rubric items applied "
            f"{len(m.applied('toy'))} times"
        )


if __name__ == "__main__":
    main(int(sys.argv[1]) if len(sys.argv) > 1 else 500)
