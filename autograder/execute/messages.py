"""The worker's messages, checked field by field where they enter the trusted side.

A compromised worker can put any value in any field of any message.  Code further on (the
runner's bookkeeping, the judge's test messages, the reports) would raise on a list where a
string belongs, and store whatever size it is given; so each message is checked here, once,
against its schema, and turned into fresh plain values holding only the known fields, every
string cut to the caps of `config.limits` (those `judge.results` holds a result to).  A message that
does not fit its schema raises `wire.PayloadError`: the worker that sent it is retired and the cell or
probe it was running is charged with it (`crashed`), never the grader.

    {"event": "cell_start", "index": int}
    {"event": "cell_end", "index": int, "error": None | ERROR, "notes": [str]}
    {"event": "executed"}
    {"id": int, "ok": True, "value": any}  |  {"id": int, "ok": False, "error": ERROR}   (one per call of a request)
    {"event": "exit", "code": int | None, "signal": int | None, "error": str | None}   (zygote)
    ERROR = {"type": str, "message": str, "frames": [{"cell": int, "line": int | None, "code": str}]}
"""

from __future__ import annotations

from typing import Any

from autograder.config.limits import MAX_ITEMS, clip, clip_frames, clip_notes
from autograder.execute.wire import PayloadError

EVENTS = ("cell_start", "cell_end", "executed")


def _field(msg: dict, key: str, *types: type, what: str) -> Any:
    value = msg.get(key)
    if type(value) not in types:
        raise PayloadError(
            f"{what}: field {key!r} is {type(value).__name__}, not "
            + " or ".join("None" if t is type(None) else t.__name__ for t in types)
        )
    return value


def _message(msg: Any, what: str) -> dict:
    if type(msg) is not dict:
        raise PayloadError(f"{what} is {type(msg).__name__}, not a message")
    return msg


def event(msg: Any) -> str:
    """The name of an execution event (`EVENTS`); anything else is refused."""
    name = _message(msg, "an execution event").get("event")
    if name not in EVENTS:
        raise PayloadError(f"unexpected message during execution (event {str(name)[:40]!r})")
    return name


def cell_index(msg: dict) -> int:
    return _field(msg, "index", int, what="cell event")


def cell_end(msg: dict) -> tuple[int, dict[str, Any] | None, list[str]]:
    """(index, error or None, notes) of a `cell_end` event."""
    err = _field(msg, "error", dict, type(None), what="cell_end")
    notes = _field(msg, "notes", list, type(None), what="cell_end") or []
    if not all(type(n) is str for n in notes):
        raise PayloadError("cell_end: a note is not a string")
    return cell_index(msg), (error(err) if err is not None else None), clip_notes(notes)


def error(err: Any) -> dict[str, Any]:
    """A student exception as the worker describes it (`namespace.describe_exception`), checked."""
    err = _message(err, "an error report")
    kind = _field(err, "type", str, what="error")
    message = _field(err, "message", str, what="error")
    frames = _field(err, "frames", list, what="error")
    for f in frames[-MAX_ITEMS:]:
        _field(_message(f, "a frame"), "cell", int, what="frame")
        _field(f, "line", int, type(None), what="frame")
        _field(f, "code", str, what="frame")
    kept, cut = clip_frames(frames)
    return {
        "type": clip(kind, 100),
        "message": clip((f"[cut: {cut} more frames] " if cut else "") + message),
        "frames": kept,
    }


def reply(msg: Any, request_id: int) -> tuple[bool, Any]:
    """(True, value) or (False, error) of the reply to request `request_id`.

    A reply that does not echo the id is a forged or stray frame: refused, like a malformed one."""
    msg = _message(msg, "a reply")
    if type(msg.get("id")) is not int or msg["id"] != request_id:
        raise PayloadError("the worker sent a reply that does not answer this request")
    if _field(msg, "ok", bool, what="reply"):
        return True, msg.get("value")
    return False, error(msg.get("error"))


def exit_report(msg: dict) -> dict[str, Any]:
    """How the worker ended, as its zygote-forked parent reports it (the student can forge this too)."""
    code = _field(msg, "code", int, type(None), what="exit report")
    sig = _field(msg, "signal", int, type(None), what="exit report")
    why = _field(msg, "error", str, type(None), what="exit report")
    return {"code": code, "signal": sig, "error": clip(why) if why else None}
