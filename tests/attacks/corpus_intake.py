"""Attack class 2: one bad file in a class download never blocks the class.

Each attack is one zip handed to intake (`intake.collect`) holding honest notebooks (copies of the
master: full marks) beside hostile members: damaged bytes, a wrong CRC, the encryption flag, a
member over the size cap, a zip bomb, thousands of members, names carrying terminal escapes.  What
must hold: every bad member becomes its own `invalid` submission with the reason (never the whole
command failing, never a traceback), and the honest members of the same zip are graded.
"""

from __future__ import annotations

import zipfile
from pathlib import Path
from typing import Callable

from tests.attacks.corpus import FULL, Attack, Ctx

INVALID_DAMAGED = (0, "invalid", "damaged in the zip")
INVALID_ENCRYPTED = (0, "invalid", "encrypted")
INVALID_TOO_BIG = (0, "invalid", "over the 50 MiB limit")


def _zip(ctx: Ctx, name: str, members: list[tuple[str, bytes | Callable[[zipfile.ZipFile, str], None]]]) -> Path:
    z = ctx.tmp / f"{name}.zip"
    with zipfile.ZipFile(z, "w", zipfile.ZIP_DEFLATED) as zf:
        for member, data in members:
            if callable(data):
                data(zf, member)
            else:
                zf.writestr(member, data)
    return z


def _members(raw: bytes) -> list[tuple[int, int]]:
    """(central header offset, local header offset) of every member, read from the central directory."""
    found, at = [], raw.find(b"PK\x01\x02")
    while at >= 0:
        found.append((at, int.from_bytes(raw[at + 42 : at + 46], "little")))
        at = raw.find(b"PK\x01\x02", at + 46)
    return found


def _edit(z: Path, pick: Callable[[str], bool], how: str) -> None:
    """Damage the members whose name `pick`s: 'encrypt' sets the encryption flag bit (local and central
    headers; zipfile cannot write encryption), 'crc' makes the CRC lie, 'bytes' garbles the data."""
    raw = bytearray(z.read_bytes())
    with zipfile.ZipFile(z) as zf:
        infos = {i.header_offset: i for i in zf.infolist()}
    for central, local in _members(bytes(raw)):
        info = infos[local]
        if not pick(info.filename):
            continue
        if how == "encrypt":
            raw[central + 8] |= 1
            raw[local + 6] |= 1
        elif how == "crc":
            raw[central + 16 : central + 20] = (info.CRC ^ 0x5A5A5A5A).to_bytes(4, "little")
        else:
            data = local + 30 + len(info.filename.encode()) + int.from_bytes(raw[local + 28 : local + 30], "little")
            raw[data + 8 : data + 40] = b"\xff" * 32
    z.write_bytes(bytes(raw))


def _big(size: int, head: bytes = b"") -> Callable[[zipfile.ZipFile, str], None]:
    """A member of `size` bytes (spaces after `head`) written in chunks: a ratio of ~1000:1 deflated."""

    def write(zf: zipfile.ZipFile, name: str) -> None:
        with zf.open(name, "w", force_zip64=True) as f:
            f.write(head)
            left, chunk = size - len(head), b" " * 2**24
            while left > 0:
                f.write(chunk[:left])
                left -= len(chunk)

    return write


def damaged(ctx: Ctx) -> Path:
    nb = ctx.master.read_bytes()
    z = _zip(ctx, "zip_damaged", [("dmg_honest.ipynb", nb), ("dmg_bytes.ipynb", nb), ("dmg_crc.ipynb", nb)])
    _edit(z, lambda n: n == "dmg_bytes.ipynb", "bytes")
    _edit(z, lambda n: n == "dmg_crc.ipynb", "crc")
    return z


def encrypted(ctx: Ctx) -> Path:
    nb = ctx.master.read_bytes()
    z = _zip(ctx, "zip_encrypted", [("enc_honest.ipynb", nb), ("enc_locked.ipynb", nb)])
    _edit(z, lambda n: n == "enc_locked.ipynb", "encrypt")
    return z


def oversize(ctx: Ctx) -> Path:
    return _zip(
        ctx,
        "zip_oversize",
        [("big_honest.ipynb", ctx.master.read_bytes()), ("big_60mb.ipynb", _big(60 * 2**20, b'{"cells": ['))],
    )


def bomb(ctx: Ctx) -> Path:
    # 40 MiB (under the member cap: extracted, then refused by the notebook size limit) and 256 MiB
    # (refused from the size the zip declares, never decompressed), each about 1000:1
    return _zip(
        ctx,
        "zip_bomb",
        [
            ("bomb_honest.ipynb", ctx.master.read_bytes()),
            ("bomb_40mb.ipynb", _big(40 * 2**20, b'{"cells": [')),
            ("bomb_256mb.ipynb", _big(2**28)),
        ],
    )


MANY_JUNK, MANY_LOCKED = 5000, 300


def many(ctx: Ctx) -> Path:
    nb = ctx.master.read_bytes()
    members: list = [("many_honest.ipynb", nb)]
    members += [(f"junk/{i:05d}.txt", b"x") for i in range(MANY_JUNK)]
    members += [(f"locked/many_{i:04d}.ipynb", b"{}") for i in range(MANY_LOCKED)]
    z = _zip(ctx, "zip_many", members)
    _edit(z, lambda n: n.startswith("locked/"), "encrypt")
    return z


ESC_HONEST = "\x1b]8;;http://evil.example/\x07click\x1b]8;;\x07\x1b[2J\x1b]0;pwned\x07.ipynb"
ESC_DAMAGED = "\x1b[31mred\x1b[0m\r\u202eesc_dmg.ipynb"


def escape_names(ctx: Ctx) -> Path:
    nb = ctx.master.read_bytes()
    z = _zip(ctx, "zip_escapes", [(ESC_HONEST, nb), (ESC_DAMAGED, nb)])
    _edit(z, lambda n: n == ESC_DAMAGED, "crc")
    return z


def no_escapes(r, ctx: Ctx) -> None:
    """Nothing a member's name carries reaches the id or the message (which the terminal shows)."""
    assert r.submission_id.isascii() and r.submission_id.isprintable() and "/" not in r.submission_id
    assert not any(c in r.message for c in "\x1b\x07\r\u202e"), repr(r.message)


def attacks() -> list[Attack]:
    A = Attack
    return [
        A(
            "zip_damaged_member",
            "a zip member with garbled deflate data and one whose CRC lies, beside an honest one",
            damaged,
            FULL,
            "graded",
            intake=True,
            count=3,
            members={"dmg_bytes.ipynb": INVALID_DAMAGED, "dmg_crc.ipynb": INVALID_DAMAGED},
        ),
        A(
            "zip_encrypted_member",
            "a password-protected (encryption flag) member beside an honest one",
            encrypted,
            FULL,
            "graded",
            intake=True,
            count=2,
            members={"enc_locked.ipynb": INVALID_ENCRYPTED},
        ),
        A(
            "zip_oversize_member",
            "a 60 MiB notebook member (under 100 KB compressed) beside an honest one",
            oversize,
            FULL,
            "graded",
            intake=True,
            count=2,
            members={"big_60mb.ipynb": INVALID_TOO_BIG},
        ),
        A(
            "zip_bomb",
            "~1000:1 members: 40 MiB (under the member cap) and 256 MiB, beside an honest one",
            bomb,
            FULL,
            "graded",
            intake=True,
            count=3,
            members={"bomb_40mb.ipynb": (0, "invalid", "MiB limit"), "bomb_256mb.ipynb": INVALID_TOO_BIG},
        ),
        A(
            "zip_many_members",
            f"{MANY_JUNK} junk files and {MANY_LOCKED} unreadable notebooks beside an honest one",
            many,
            FULL,
            "graded",
            intake=True,
            count=1 + MANY_LOCKED,
            members={
                f"locked/many_{i:04d}.ipynb": INVALID_ENCRYPTED for i in range(MANY_LOCKED)
            },  # a member's path in the zip
        ),
        A(
            "zip_escape_names",
            "member names carrying OSC 8 links, clear-screen, title, colour, CR and RLO",
            escape_names,
            FULL,
            "graded",
            intake=True,
            count=2,
            checks=[no_escapes],
            members={ESC_DAMAGED: INVALID_DAMAGED},
        ),
    ]
