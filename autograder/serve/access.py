"""Who may use the workspace: an access token (printed at start, or a TA's named token from course.toml's
`[serve.tokens]`) is exchanged for a session cookie; every form carries a CSRF token tied to the session.

A request without a valid session, or a form without its session's CSRF token, gets 403 and nothing else.
The token in a URL is traded for the cookie at once and the browser is sent to the same page without it
(so it stays out of the history and of any Referer, which the pages also turn off).
"""
from __future__ import annotations

import hashlib
import hmac
import secrets
from dataclasses import dataclass, field

MIN_TOKEN_CHARS = 16   # a TA token shorter than this is refused at start: it could be guessed
COOKIE = "autograder_session"


class AccessError(ValueError):
    """A token list that cannot be used (too short, not text)."""


@dataclass
class Access:
    tokens: dict[str, str]                       # token -> who (the override trail's author)
    sessions: dict[str, str] = field(default_factory=dict)   # session id -> who
    secret: bytes = field(default_factory=lambda: secrets.token_bytes(32))

    @classmethod
    def create(cls, named: dict[str, str] | None, default_name: str) -> tuple["Access", str | None]:
        """From course.toml's `[serve.tokens]` (name = token); with none, one random token for
        `default_name`, returned to be printed."""
        if named:
            tokens: dict[str, str] = {}
            for name, token in named.items():
                if not isinstance(token, str) or len(token) < MIN_TOKEN_CHARS:
                    raise AccessError(f"[serve.tokens] {name}: a token must be text of at least "
                                      f"{MIN_TOKEN_CHARS} characters")
                tokens[token] = str(name)
            return cls(tokens), None
        token = secrets.token_urlsafe(24)
        return cls({token: default_name}), token

    def login(self, token: str) -> str | None:
        """A new session id for a valid token, else None (compared in constant time)."""
        for known, who in self.tokens.items():
            if hmac.compare_digest(known.encode(), token.encode()):
                sid = secrets.token_urlsafe(32)
                self.sessions[sid] = who
                return sid
        return None

    def who(self, session: str | None) -> str | None:
        return self.sessions.get(session) if session else None

    def csrf(self, session: str) -> str:
        return hmac.new(self.secret, session.encode(), hashlib.sha256).hexdigest()

    def csrf_ok(self, session: str, token: str | None) -> bool:
        return bool(token) and hmac.compare_digest(self.csrf(session), token or "")
