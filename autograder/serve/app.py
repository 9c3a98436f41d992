"""The workspace's HTTP face: the standard library's threading server, Jinja2 templates (autoescaped:
every field from a submission is shown escaped), no script at all.

Every response carries a strict Content-Security-Policy (nothing but this server's stylesheet, data: PNG
images and forms back to this server), and pages are never cached or framed.  A request without a valid
session gets 403 with an empty body; so does a POST without its session's CSRF token.
"""
from __future__ import annotations

import http.server
import re
import sys
import threading
import time
import traceback
from http import HTTPStatus
from http.cookies import CookieError, SimpleCookie
from pathlib import Path
from typing import Any
from urllib.parse import parse_qs, quote, urlencode, urlsplit

from autograder.report.escape import html_environment
from autograder.serve import pages
from autograder.serve.access import COOKIE, Access

CSP = ("default-src 'none'; style-src 'self'; img-src data:; form-action 'self'; base-uri 'none'; "
       "frame-ancestors 'none'")
HEADERS = {"Content-Security-Policy": CSP, "X-Content-Type-Options": "nosniff", "Referrer-Policy": "no-referrer",
           "X-Frame-Options": "DENY", "Cache-Control": "no-store"}
MAX_FORM_BYTES = 64 * 1024   # an override form is a few hundred bytes
_CSS = (Path(__file__).parent / "static" / "workspace.css").read_bytes()
_ID = r"([A-Za-z0-9_.\-]+)"
ROUTES = [(re.compile(p + r"\Z"), name) for p, name in (
    (r"/", "course"), (rf"/a/{_ID}", "assignment"), (rf"/a/{_ID}/similarity", "similarity"),
    (rf"/a/{_ID}/s/{_ID}", "submission"), (rf"/a/{_ID}/s/{_ID}/override", "override"),
    (r"/static/workspace\.css", "css"))]


def _url(*parts: str, **query: str) -> str:
    path = "/" + "/".join(quote(p, safe="") for p in parts)
    q = {k: v for k, v in query.items() if v}
    return path + ("?" + urlencode(q) if q else "")


class App:
    """Routes a request to its page; `handle` is the whole application (the server only moves bytes)."""

    def __init__(self, ws: pages.Workspace, access: Access) -> None:
        self.ws, self.access = ws, access
        self.env = html_environment("autograder.serve", "templates", url=lambda parts: _url(*parts))
        self.env.globals["url"] = _url
        self.env.filters["when"] = lambda t: time.strftime("%Y-%m-%d %H:%M", time.localtime(t))
        self.lock = threading.Lock()   # one override at a time; pages read while none is written

    def handle(self, method: str, target: str, headers: dict[str, str], body: bytes) -> tuple[int, dict[str, str], bytes]:
        split = urlsplit(target)
        query = {k: v[0] for k, v in parse_qs(split.query).items()}
        session = _cookie(headers.get("cookie", ""))
        who = self.access.who(session)
        if "token" in query and method == "GET":
            sid = self.access.login(query["token"])
            if sid is None:
                return _forbidden()
            rest = urlencode({k: v for k, v in query.items() if k != "token"})
            return 303, {"Location": split.path + ("?" + rest if rest else ""),
                         "Set-Cookie": f"{COOKIE}={sid}; HttpOnly; SameSite=Strict; Path=/"}, b""
        if who is None or session is None:
            return _forbidden()
        for pattern, name in ROUTES:
            m = pattern.match(split.path)
            if m:
                break
        else:
            return self._page(404, "error.html.j2", who, session, message="No such page.")
        if (name == "override") != (method == "POST") or method not in ("GET", "POST"):
            return 405, {"Content-Type": "text/plain; charset=utf-8"}, b"method not allowed"
        try:
            return getattr(self, "_" + name)(m.groups(), query, who, session, body)
        except Exception as e:  # noqa: BLE001 - an assignment that cannot be read: say so on the page
            from autograder.assignment import AssignmentError

            if isinstance(e, AssignmentError):
                return self._page(404, "error.html.j2", who, session, message=str(e))
            raise

    def _page(self, status: int, template: str, who: str, session: str, **ctx: Any) -> tuple[int, dict[str, str], bytes]:
        html = self.env.get_template(template).render(who=who, csrf=self.access.csrf(session), **ctx)
        return status, {"Content-Type": "text/html; charset=utf-8"}, html.encode("utf-8")

    def _css(self, groups, query, who, session, body):
        return 200, {"Content-Type": "text/css; charset=utf-8"}, _CSS

    def _course(self, groups, query, who, session, body):
        return self._page(200, "course.html.j2", who, session, **pages.course_page(self.ws))

    def _assignment(self, groups, query, who, session, body):
        return self._page(200, "assignment.html.j2", who, session, **pages.assignment_page(self.ws, groups[0], query))

    def _similarity(self, groups, query, who, session, body):
        return self._page(200, "similarity.html.j2", who, session, **pages.similarity_page(self.ws, groups[0]))

    def _submission(self, groups, query, who, session, body, error: str = "", status: int = 200):
        ctx = pages.submission_page(self.ws, groups[0], groups[1], query)
        if ctx is None:
            return self._page(404, "error.html.j2", who, session, message="No such submission.")
        return self._page(status, "submission.html.j2", who, session, error=error, **ctx)

    def _override(self, groups, query, who, session, body):
        from autograder.score.overrides import OverrideError

        form = {k: v[0] for k, v in parse_qs(body.decode("utf-8", "replace")).items()}
        if not self.access.csrf_ok(session, form.get("csrf")):
            return _forbidden()
        try:
            with self.lock:
                pages.override(self.ws, groups[0], groups[1], form, who)
        except OverrideError as e:
            return self._submission(groups, query, who, session, body, error=str(e), status=400)
        return 303, {"Location": _url("a", groups[0], "s", groups[1])}, b""


def _forbidden() -> tuple[int, dict[str, str], bytes]:
    return 403, {"Content-Type": "text/plain; charset=utf-8"}, b""


def _cookie(header: str) -> str | None:
    try:
        c = SimpleCookie(header)
    except CookieError:
        return None
    return c[COOKIE].value if COOKIE in c else None


class _Handler(http.server.BaseHTTPRequestHandler):
    app: App
    server_version = "autograder"
    sys_version = ""

    def _serve(self, method: str) -> None:
        try:
            length = int(self.headers.get("Content-Length") or 0)
        except ValueError:
            length = MAX_FORM_BYTES + 1
        if length > MAX_FORM_BYTES or length < 0:
            self.send_response(HTTPStatus.REQUEST_ENTITY_TOO_LARGE)
            self.end_headers()
            return
        body = self.rfile.read(length) if length > 0 else b""
        try:
            status, headers, content = self.app.handle(method, self.path, {k.lower(): v for k, v in self.headers.items()}, body)
        except Exception:  # noqa: BLE001 - a fault of this server: said on its terminal, not to the browser
            traceback.print_exc()
            status, headers, content = 500, {"Content-Type": "text/plain; charset=utf-8"}, b"internal error"
        self.send_response(status)
        for k, v in {**HEADERS, **headers}.items():
            self.send_header(k, v)
        self.send_header("Content-Length", str(len(content)))
        self.end_headers()
        self.wfile.write(content)

    def do_GET(self) -> None:  # noqa: N802 - http.server's names
        self._serve("GET")

    def do_POST(self) -> None:  # noqa: N802
        self._serve("POST")

    def log_message(self, format: str, *args: Any) -> None:  # noqa: A002
        pass   # the token must not reach a log; requests are not logged


def make_server(app: App, host: str = "127.0.0.1", port: int = 0) -> http.server.ThreadingHTTPServer:
    handler = type("Handler", (_Handler,), {"app": app})
    server = http.server.ThreadingHTTPServer((host, port), handler)
    server.daemon_threads = True
    return server


def serve(kit: Path, out: Path, *, host: str, port: int, roster: Path | None, course: Any, who: str) -> int:
    """Start the workspace and print its address (with the token to open it, when one was generated)."""
    ws = pages.Workspace(kit, out.resolve(), roster, course)
    ws.warm()
    named = course.table("serve").get("tokens") if course else None
    access, token = Access.create(named, who)
    server = make_server(App(ws, access), host, port)
    h, p = server.server_address[:2]
    base = f"http://{'[' + h + ']' if ':' in str(h) else h}:{p}/"
    print(f"autograder workspace: {base}" + (f"?token={token}" if token else "  (log in with your [serve.tokens] token: ?token=...)"))
    sys.stdout.flush()
    try:
        server.serve_forever()
    except KeyboardInterrupt:
        pass
    finally:
        server.server_close()
    return 0
