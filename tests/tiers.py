"""Two tiers of the kit's own tests: what CI runs (`make test`) and the exhaustive rest (`make check`).

A check that runs once per assignment runs in `make test` on one PyTorch and one TensorFlow assignment
(`REPRESENTATIVES`), which exercise every code path of the kit the check is about; `make check` runs it on
every assignment, and grades every mutant of the curriculum.  Run `make check` after changing an
assignment (its notebook, tests, probes or checks) or the student package: what it adds finds mistakes in
the teaching material, which the representatives cannot speak for.  The tier is the pytest marker `deep`:
`make test` runs `-m "not deep"`, `make check` runs `-m deep`.
"""

from __future__ import annotations

from collections.abc import Iterable

import pytest

REPRESENTATIVES = ("01_tensors", "tf01_bricks")

deep = pytest.mark.deep


def per_assignment(assignments: Iterable[str]) -> list:
    """Parameters for a per-assignment test: the representatives in both tiers, the others in `make check` only."""
    return [a if a in REPRESENTATIVES else pytest.param(a, marks=deep) for a in assignments]
