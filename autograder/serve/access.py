"""Who may use the workspace: an access token (printed at start, or a TA's named token from course.toml's
`[serve.tokens]`) is exchanged for a session cookie; every form carries a CSRF token tied to the session.

A request without a valid session, or a form without its session's CSRF token, gets 403 and nothing else.
The token in a URL is traded for the cookie at once and the browser is sent to the same page without it
(so it stays out of the history and of any Referer, which the pages also turn off).

A session belongs to this server instance, and only pages of this instance can use it.  Browsers send a
host's cookies to every port of it: a page on another port of the same host (another user's notebook
server) is same-site, and its server receives every cookie whose path it asks for.  So every page of the
workspace lives under a random prefix drawn at start (`prefix`, in the printed address), the cookie is
scoped to that path and named after it: another port's server receives it only for a path it cannot guess,
and another instance neither knows the session nor reads this cookie.  On top of that, checked on every
request: the Host is an IP address, `localhost` or the name the server was started with (a DNS-rebinding
name is refused); a browser's fetch from another origin is refused (`Sec-Fetch-Site`: a page on another
port cannot load a page of the workspace, so it never reads a CSRF token); a POST must come from this
origin (`Origin` equal to the Host, or, without one, `Sec-Fetch-Site: same-origin`).  No response carries
an `Access-Control-Allow-*` header.
"""

from __future__ import annotations

import hashlib
import hmac
import ipaddress
import secrets
from dataclasses import dataclass, field

MIN_TOKEN_CHARS = 16  # a TA token shorter than this is refused at start: it could be guessed
SAME_ORIGIN = ("same-origin", "none")  # Sec-Fetch-Site of this origin's pages, or of a typed address


class AccessError(ValueError):
    """A token list that cannot be used (too short, not text)."""


@dataclass
class Access:
    tokens: dict[str, str]  # token -> who (the override trail's author)
    sessions: dict[str, str] = field(default_factory=dict)  # session id -> who
    secret: bytes = field(default_factory=lambda: secrets.token_bytes(32))
    instance: str = field(default_factory=lambda: secrets.token_urlsafe(16))
    hosts: frozenset[str] = frozenset()  # host names accepted besides IP addresses and localhost

    @property
    def prefix(self) -> str:
        """Every page's path starts with this: `/` and the instance's random id."""
        return "/" + self.instance

    @property
    def cookie(self) -> str:
        return "autograder_" + self.instance.replace("-", "_")

    @classmethod
    def create(cls, named: dict[str, str] | None, default_name: str, host: str = "") -> tuple["Access", str | None]:
        """From course.toml's `[serve.tokens]` (name = token); with none, one random token for
        `default_name`, returned to be printed."""
        if named:
            tokens: dict[str, str] = {}
            for name, token in named.items():
                if not isinstance(token, str) or len(token) < MIN_TOKEN_CHARS:
                    raise AccessError(
                        f"[serve.tokens] {name}: a token must be text of at least {MIN_TOKEN_CHARS} characters"
                    )
                tokens[token] = str(name)
            return cls(tokens, hosts=_names(host)), None
        token = secrets.token_urlsafe(24)
        return cls({token: default_name}, hosts=_names(host)), token

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

    def set_cookie(self, session: str) -> str:
        return f"{self.cookie}={session}; HttpOnly; SameSite=Strict; Path={self.prefix}/"

    def session(self, header: str) -> str | None:
        """This instance's session id in a Cookie header (another instance's cookie has another name), found
        by its name alone: the header also carries whatever a page on another port of the host set (browsers
        send a host's cookies to every port), and no cookie of theirs, however malformed, hides this one
        (`http.cookies` stops at the first pair it cannot read).  Of several with this name, the first that
        is a live session."""
        for pair in header.split(";"):
            name, eq, value = pair.strip().partition("=")
            if eq and name == self.cookie and value in self.sessions:
                return value
        return None

    def host_ok(self, host: str | None) -> bool:
        """The Host names this server: an IP address, `localhost`, or the name it was started with; any port
        (an SSH tunnel changes it).  A name an attacker's DNS points here (DNS rebinding) is none of them."""
        if not host:
            return False
        name = host.rsplit(":", 1)[0] if not host.endswith("]") else host
        name = name.strip("[]").lower()
        if name == "localhost" or name in self.hosts:
            return True
        try:
            ipaddress.ip_address(name)
        except ValueError:
            return False
        return True

    @staticmethod
    def fetch_ok(headers: dict[str, str]) -> bool:
        """Not a fetch from another origin: a browser says where a request comes from (Sec-Fetch-Site); a page
        on another port is `same-site`, and refused like any other site.  Without the header (an older
        browser, a command-line client) the cookie and the form's origin still decide."""
        site = headers.get("sec-fetch-site")
        return site is None or site in SAME_ORIGIN

    @staticmethod
    def origin_ok(headers: dict[str, str]) -> bool:
        """A state-changing request comes from a page of this origin: its Origin is `http://` and the Host it
        was sent to, or, when a browser sends none or `null` (what Chromium sends for a form on a page with
        `Referrer-Policy: no-referrer`, as the workspace's are), Sec-Fetch-Site says same-origin.  A page cannot
        set either header itself.  Neither: refused."""
        origin, host = headers.get("origin"), headers.get("host", "")
        if origin is not None and origin != "null":
            return hmac.compare_digest(origin.lower().encode(), f"http://{host}".lower().encode())
        return headers.get("sec-fetch-site") == "same-origin"


def _names(host: str) -> frozenset[str]:
    """The host name the server was started with (`--host`), when it is a name and not an address; bound to
    every address, this machine's own names."""
    import socket

    name = host.strip("[]").lower()
    try:
        address = ipaddress.ip_address(name)
    except ValueError:
        return frozenset({name}) if name else frozenset()
    return (
        frozenset({socket.gethostname().lower(), socket.getfqdn().lower()}) if address.is_unspecified else frozenset()
    )
