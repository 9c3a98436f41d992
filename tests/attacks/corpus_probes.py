"""Attack class 4: forging probe answers by replacing the probe itself.

Probes run in the student's process, so a notebook can look for the `probes` module through its
frames and replace a probe.  The worker keeps only probes.py's compiled code and runs each request
(a test's batch of calls) from a module made for it after the cells, so a replacement made by a cell
never answers a probe (tests/probe/test_probe_batch.py: nor one made by a call, a later test's).  (This only makes forging
harder: tests award points only for values the judge compares with the reference, see
docs/writing-tests.md, "How and what".)  `ANSWER` is withheld, so a successful forgery shows up as 2
more points.
"""

from __future__ import annotations

from tests.attacks.corpus import NO_ANSWER, NO_ANSWER_CELL, Attack, nb, test_outcomes

REPLACE_PROBE = """
import sys, types
_f = sys._getframe()
while _f is not None:  # the worker's frames: any module (or object) holding the probe `answer`
    for _v in list(_f.f_locals.values()) + list(_f.f_globals.values()):
        if isinstance(_v, types.ModuleType) and hasattr(_v, "answer"):
            _v.answer = lambda ns: 42
    _f = _f.f_back
"""


def attacks() -> list[Attack]:
    return [
        Attack(
            "replace_probe_via_frames",
            "replace the `answer` probe in the probes module found through the frames",
            nb("replace_probe_via_frames", replace=NO_ANSWER_CELL, append=[REPLACE_PROBE]),
            NO_ANSWER,
            "graded",
            checks=[test_outcomes(test_answer="failed")],
        ),
    ]
