"""Where a passback writes: Canvas's REST API or an LTI 1.3 line item, chosen out loud.

A course file may configure both (docs/interop.md's example does).  Then nothing is guessed: the
instructor names one (`--to canvas|lti`), and every run, dry or not, first says which target, URL and
assignment or line item it writes to.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any


class TargetError(ValueError):
    """No target, two targets and no choice, or a target missing a setting."""


@dataclass(frozen=True)
class Target:
    kind: str   # canvas | lti
    url: str    # Canvas: the assignment's page; LTI: the line item
    write: str  # what is written to: the Canvas submissions endpoint, or the line item's scores URL

    def describe(self) -> str:
        if self.kind == "canvas":
            return f"Canvas assignment {self.url} (grades and comments through {self.write})"
        return f"LTI 1.3 line item {self.url} (scores POSTed to {self.write})"


def choose(settings: Any) -> Target:
    """The target named by `settings.to`, or the only one configured (flags or the course file)."""
    canvas = [getattr(settings, k, None) for k in ("canvas_url", "course", "canvas_assignment")]
    lti = getattr(settings, "lti_lineitem", None)
    kind = getattr(settings, "to", None)
    if kind is None:
        if lti and any(canvas):
            raise TargetError("both Canvas (--canvas-url/--course/--canvas-assignment or [canvas]) and an LTI line "
                              "item (--lti-lineitem) are configured: choose one with --to canvas or --to lti")
        kind = "lti" if lti else "canvas"
    if kind == "lti":
        if not lti:
            raise TargetError("--to lti needs --lti-lineitem (or lti_lineitem in the course file's [assignments.ID])")
        missing = [f for f, k in (("--lti-token-url", "lti_token_url"), ("--lti-client-id", "lti_client_id"),
                                  ("--lti-key", "lti_key")) if not getattr(settings, k, None)]
        if missing:
            raise TargetError("LTI passback needs " + ", ".join(missing) + " (or the course file's [lti])")
        from autograder.lms.lti import scores_url

        return Target("lti", str(lti), scores_url(str(lti)))
    if not all(canvas):
        raise TargetError("Canvas passback needs --canvas-url, --course and --canvas-assignment (or the course "
                          "file's [canvas] and canvas_assignment), or --lti-lineitem for LTI")
    base, course, assignment = str(canvas[0]).rstrip("/"), canvas[1], canvas[2]
    page = f"{base}/courses/{course}/assignments/{assignment}"
    return Target("canvas", page, f"{base}/api/v1/courses/{course}/assignments/{assignment}/submissions/update_grades")
