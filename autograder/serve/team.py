"""Several TAs on one class: who else has a submission open, and a form refused when what it was based on has
changed since the page was drawn.

Presence is a short-lived record in this server's memory (`Presence`): a TA "has" a submission from the moment
its page is drawn for them until they open another one or PRESENCE_SECONDS pass; nothing of it is stored, so a
restart forgets it (it is a courtesy, not a lock).  What protects a grade is the basis: every form carries
`basis` (`basis_of`: when its page was drawn and the version of each of its submissions that counts); at submit
any override, rubric application or rubric change on those submissions since then, or another version
counting, refuses the form with what changed (`changes_since`): never applied over another TA's change."""

from __future__ import annotations

import hashlib
import threading
import time
from dataclasses import dataclass, field
from typing import Any

from autograder.grades.rubric import Marks

PRESENCE_SECONDS = 15 * 60  # a page opened this long ago, with no other opened since, no longer counts as open


@dataclass
class Presence:
    """Who has which submission open: {(assignment, submission): {who: when}}, each TA on one at a time."""

    seen: dict[tuple[str, str], dict[str, float]] = field(default_factory=dict)
    lock: threading.Lock = field(default_factory=threading.Lock)

    def opened(self, assignment: str, sid: str, who: str, now: float | None = None) -> list[tuple[str, float]]:
        """Record that `who` opened `sid`'s page (leaving whatever they had open) and return the others who
        have it open, with when they opened it, oldest first."""
        now = time.time() if now is None else now
        with self.lock:
            for key, people in list(self.seen.items()):
                if key != (assignment, sid):
                    people.pop(who, None)
                for name, at in list(people.items()):
                    if now - at > PRESENCE_SECONDS:
                        del people[name]
                if not people:
                    del self.seen[key]
            here = self.seen.setdefault((assignment, sid), {})
            here[who] = now
            return sorted(((n, at) for n, at in here.items() if n != who), key=lambda x: x[1])


def basis_of(at: float, counted: dict[str, str]) -> str:
    """The state a form is based on: when its page was drawn (`at`, before it read anything) and the version
    that counts of each of its submissions (`counted`: submission -> sha256), as `AT:DIGEST`."""
    digest = hashlib.sha256(repr(sorted(counted.items())).encode()).hexdigest()[:16]
    return f"{at:.6f}:{digest}"


def changes_since(
    basis: str, marks: Marks, log: list[dict[str, Any]], counted: dict[str, str], names: dict[str, str]
) -> list[str]:
    """What changed on the submissions of `counted` since `basis` (a form's), in words for the TA whose form is
    refused; [] when nothing did.  `marks`: their overrides and rubric applications (`store.marks`); `log`: the
    rubric's audit trail (an item edited, deleted or taken off re-scores whoever has it).  A basis that cannot be
    read (a form from before bases, a forged one) is a change."""
    try:
        at_text, digest = basis.split(":")
        at = float(at_text)
    except ValueError:
        return ["the page this form came from is not the current one: open it again"]
    items = {i.id: i for i in marks.items}
    lines = []
    for o in marks.overrides:
        if o.at > at:
            what = names.get(o.test_id, o.target) if o.test_id else "the whole score"
            lines.append(
                f"{o.by} {_verb(o.action)} {what} of {o.submission_id}"
                + (f": {o.old_score:g} → {o.new_score:g}" if o.sets else "")
                + (f" (“{o.comment}”)" if o.comment else "")
            )
    for a in marks.applied:
        if a.at > at:
            i = items.get(a.item_id)
            lines.append(f"{a.by} applied “{i.title if i else a.item_id}” to {a.submission_id}")
    for e in log:
        touched = [t[0] for t in e["touched"] if t[0] in counted]
        if e["at"] > at and touched and e["action"] != "apply":
            lines.append(
                f"{e['by']} {e['action']} rubric item #{e['item']} ({e['detail']}), which re-scored "
                + ", ".join(touched[:5])
                + (" and more" if len(touched) > 5 else "")
            )
    if digest != basis_of(0, counted).split(":")[1]:
        lines.append("another version of a submission now counts (it was graded again)")
    return lines


def _verb(action: str) -> str:
    return {"set": "set", "reapply": "re-applied", "clear": "cleared", "ack": "acknowledged"}.get(action, action)


class StaleForm(ValueError):
    """A form based on a state another TA has since changed: `changes` says what."""

    def __init__(self, changes: list[str]) -> None:
        super().__init__(
            "Not applied: since you opened this page, "
            + "; ".join(changes)
            + ". Look at the page as it is now, then apply again if you still want to."
        )
        self.changes = changes


def present(people: list[tuple[str, float]], now: float | None = None) -> list[dict[str, Any]]:
    """{who, minutes} of each other TA with the page open, for the page."""
    now = time.time() if now is None else now
    return [{"who": n, "minutes": int((now - at) // 60)} for n, at in people]
