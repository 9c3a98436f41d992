"""Seeds students cannot predict: every test's inputs derive from a course secret.

The secret lives outside the repository (env `AUTOGRADER_SECRET`, or the file named by
`AUTOGRADER_SECRET_FILE`, or `~/.config/autograder/secret`).  Without one, a fixed public
default is used and the results say so (`seed_source: "default"`): fine for a demo, not for
a class, since anyone with the kit could then reproduce the hidden inputs.
"""
from __future__ import annotations

import hashlib
import os
from pathlib import Path

_DEFAULT = b"autograder-public-default-secret"


def course_secret() -> tuple[bytes, str]:
    """(secret bytes, where it came from)."""
    if os.environ.get("AUTOGRADER_SECRET"):
        return os.environ["AUTOGRADER_SECRET"].encode(), "env"
    for path in (os.environ.get("AUTOGRADER_SECRET_FILE"), Path.home() / ".config" / "autograder" / "secret"):
        if path and Path(path).is_file():
            return Path(path).read_bytes().strip(), "file"
    return _DEFAULT, "default"


def derive(*parts: object) -> int:
    """A 63-bit seed from the parts (bytes used as-is, everything else via str)."""
    h = hashlib.sha256()
    for p in parts:
        h.update(p if isinstance(p, bytes) else str(p).encode())
        h.update(b"\0")
    return int.from_bytes(h.digest()[:8], "big") >> 1
