"""Where a passback writes: Canvas's REST API or an LTI 1.3 line item, chosen out loud.

A course file may configure both (docs/interop.md's example does).  Then nothing is guessed: the
instructor names one (`--to canvas|lti`), and every run, dry or not, first says which target, URL and
assignment or line item it writes to.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path


class TargetError(ValueError):
    """No target, two targets and no choice, or a target missing a setting: `settings` names the
    `PassbackSettings` fields that would settle it (a face says how its user sets each)."""

    def __init__(self, why: str, settings: tuple[str, ...] = ()) -> None:
        super().__init__(why)
        self.settings = settings


@dataclass(frozen=True)
class PassbackSettings:
    """Where grades go, as a face gathered it from its flags and the course file."""

    to: str | None = None  # "canvas" | "lti" | None: the only one configured
    canvas_url: str | None = None
    course: str | None = None  # Canvas's course id
    canvas_assignment: str | None = None
    lti_lineitem: str | None = None
    lti_token_url: str | None = None
    lti_client_id: str | None = None
    lti_key: Path | None = None  # the tool's private key file


@dataclass(frozen=True)
class Target:
    kind: str  # canvas | lti
    url: str  # Canvas: the assignment's page; LTI: the line item
    write: str  # what is written to: the Canvas submissions endpoint, or the line item's scores URL

    def describe(self) -> str:
        if self.kind == "canvas":
            return f"Canvas assignment {self.url} (grades and comments through {self.write})"
        return f"LTI 1.3 line item {self.url} (scores POSTed to {self.write})"


CANVAS = ("canvas_url", "course", "canvas_assignment")
LTI = ("lti_token_url", "lti_client_id", "lti_key")


def choose(settings: PassbackSettings) -> Target:
    """The target `settings.to` names, or the only one configured."""
    canvas = [getattr(settings, k) for k in CANVAS]
    lti = settings.lti_lineitem
    kind = settings.to
    if kind is None:
        if lti and any(canvas):
            raise TargetError("both Canvas and an LTI line item are configured: choose one", ("to",))
        kind = "lti" if lti else "canvas"
    if kind == "lti":
        if not lti:
            raise TargetError("LTI passback needs its line item", ("lti_lineitem",))
        missing = tuple(k for k in LTI if not getattr(settings, k))
        if missing:
            raise TargetError("LTI passback needs the tool's token URL, client id and key", missing)
        from autograder.lms.lti import scores_url

        return Target("lti", str(lti), scores_url(str(lti)))
    if not all(canvas):
        raise TargetError(
            "Canvas passback needs the Canvas URL, course and assignment (or an LTI line item for LTI)",
            tuple(k for k, v in zip(CANVAS, canvas) if not v),
        )
    base, course, assignment = str(canvas[0]).rstrip("/"), canvas[1], canvas[2]
    page = f"{base}/courses/{course}/assignments/{assignment}"
    return Target("canvas", page, f"{base}/api/v1/courses/{course}/assignments/{assignment}/submissions/update_grades")
