"""The workspace's HTTP face: Starlette (routing, requests) under uvicorn (`serve.server`: connections and
their limits), Jinja2 templates (autoescaped: every field from a submission is shown escaped; a notebook's own
Markdown and HTML only as `escape.clean_html` sanitised it), one static script (the keys; no inline script runs).

Every response carries a strict Content-Security-Policy (nothing but this server's stylesheet and script,
data: images and forms back to this server), and pages are never cached or framed.  Before any page, `_Body`
caps the request body while reading it and `_Guard` applies `access` (the Host, the fetch's origin, the
session, the form's origin): a request that fails gets 403 (413 for a body over the cap) with an empty body;
so does a POST without its session's CSRF token (each POST page checks it).  Every page lives under this
instance's random prefix; `PAGES` routes it to an `App` method that returns (status, headers, body), run on a
pool of PAGE_THREADS threads.
"""

from __future__ import annotations

import re
import sys
import threading
import time
import traceback
from pathlib import Path
from typing import Any
from urllib.parse import parse_qs, quote, urlencode

from autograder.grades.overrides import OverrideError
from autograder.grades.rubric import RubricError
from autograder.report.escape import html_environment
from autograder.serve import pages
from autograder.serve.access import Access
from autograder.serve.team import Presence, StaleForm, present

CSP = (
    "default-src 'none'; style-src 'self'; script-src 'self'; img-src data:; form-action 'self'; base-uri 'none'; "
    "frame-ancestors 'none'"
)
HEADERS = {
    "Content-Security-Policy": CSP,
    "X-Content-Type-Options": "nosniff",
    "Referrer-Policy": "no-referrer",
    "X-Frame-Options": "DENY",
    "Cache-Control": "no-store",
    "Cross-Origin-Resource-Policy": "same-origin",
    "Cross-Origin-Opener-Policy": "same-origin",
}
MAX_FORM_BYTES = 64 * 1024  # an override form is a few hundred bytes
PAGE_THREADS = 4  # pages computed at once; more requests wait their turn (no thread per connection)
_STATIC = {name: (Path(__file__).parent / "static" / name).read_bytes() for name in ("workspace.css", "workspace.js")}
_ID = re.compile(r"[A-Za-z0-9_.\-]+")
PAGES = [  # path under the instance's prefix, method, the `App` method that answers it
    ("/", "GET", "_course"),
    ("/a/{assignment}", "GET", "_assignment"),
    ("/a/{assignment}/similarity", "GET", "_similarity"),
    ("/a/{assignment}/s/{sid}", "GET", "_submission"),
    ("/a/{assignment}/s/{sid}/override", "POST", "_override"),
    ("/a/{assignment}/export", "POST", "_export"),
    ("/a/{assignment}/e/{exercise}", "GET", "_exercise"),
    ("/a/{assignment}/e/{exercise}/apply", "POST", "_group"),
    ("/a/{assignment}/e/{exercise}/done", "POST", "_group_done"),
    ("/a/{assignment}/e/{exercise}/item", "POST", "_group_item"),
    ("/a/{assignment}/e/{exercise}/rubric", "POST", "_rubric"),
    ("/a/{assignment}/s/{sid}/item", "POST", "_item"),
    ("/a/{assignment}/s/{sid}/done", "POST", "_done"),
    ("/a/{assignment}/team", "GET", "_team"),
    ("/a/{assignment}/team/split", "POST", "_split"),
    ("/a/{assignment}/next", "GET", "_next"),
    ("/a/{assignment}/reveal", "POST", "_reveal"),
    ("/a/{assignment}/stats", "GET", "_stats"),
    ("/a/{assignment}/changes", "GET", "_changes"),
    ("/static/workspace.css", "GET", "_css"),
    ("/static/workspace.js", "GET", "_js"),
]
Answer = tuple[int, dict[str, str], bytes]


def _url(*parts: str, **query: str) -> str:
    path = "/" + "/".join(quote(p, safe="") for p in parts)
    q = {k: v for k, v in query.items() if v}
    return path + ("?" + urlencode(q) if q else "")


class App:
    """The pages: each `PAGES` method takes (path parameters, query, who, session, form) and returns
    (status, headers, body); `asgi` is the whole application, guards included."""

    def __init__(self, ws: pages.Workspace, access: Access) -> None:
        self.ws, self.access = ws, access
        prefix = access.prefix
        self.env = html_environment("autograder.serve", "templates", url=lambda parts: prefix + _url(*parts))
        self.env.globals["url"] = lambda *parts, **query: prefix + _url(*parts, **query)
        self.env.globals["course_title"] = pages.course_title(ws)
        self.env.filters["when"] = lambda t: time.strftime("%Y-%m-%d %H:%M", time.localtime(t))
        self.lock = threading.Lock()  # one override at a time; pages read while none is written
        self.presence = Presence()  # who has which submission open (`serve.team`)
        self.asgi = _asgi(self)

    def answer(
        self, name: str, params: dict[str, str], query: dict[str, str], who: str, session: str, form: Form
    ) -> Answer:
        """The page `name` (a `PAGES` method), or the error page for an id that is not one."""
        if not all(_ID.fullmatch(v) for v in params.values()):
            return self._page(404, "error.html.j2", who, session, message="No such page.")
        try:
            return getattr(self, name)(tuple(params.values()), query, who, session, form)
        except Exception as e:  # noqa: BLE001 - an assignment that cannot be read: say so on the page
            from autograder.config.assignment import AssignmentError

            if isinstance(e, AssignmentError):
                return self._page(404, "error.html.j2", who, session, message=str(e))
            raise

    def _page(
        self, status: int, template: str, who: str, session: str, **ctx: Any
    ) -> tuple[int, dict[str, str], bytes]:
        html = self.env.get_template(template).render(who=who, csrf=self.access.csrf(session), **ctx)
        return status, {"Content-Type": "text/html; charset=utf-8"}, html.encode("utf-8")

    def _css(self, groups, query, who, session, form):
        return 200, {"Content-Type": "text/css; charset=utf-8"}, _STATIC["workspace.css"]

    def _js(self, groups, query, who, session, form):
        return 200, {"Content-Type": "text/javascript; charset=utf-8"}, _STATIC["workspace.js"]

    def _course(self, groups, query, who, session, form):
        return self._page(200, "course.html.j2", who, session, **pages.course_page(self.ws))

    def _assignment(self, groups, query, who, session, form):
        return self._page(200, "assignment.html.j2", who, session, **pages.assignment_page(self.ws, groups[0], query))

    def _similarity(self, groups, query, who, session, form):
        return self._page(200, "similarity.html.j2", who, session, **pages.similarity_page(self.ws, groups[0]))

    def _submission(self, groups, query, who, session, form, error: str = "", status: int = 200):
        ctx = pages.submission_page(self.ws, groups[0], groups[1], query)
        if ctx is None:
            return self._page(404, "error.html.j2", who, session, message="No such submission.")
        others = present(self.presence.opened(groups[0], groups[1], who))
        mine = pages.next_for(self.ws, groups[0], who, after=groups[1])
        return self._page(
            status,
            "submission.html.j2",
            who,
            session,
            error=error,
            others=others,
            mine=self._there(groups[0], mine) if mine else "",
            **ctx,
        )

    def _override(self, groups, query, who, session, form):
        if not self.access.csrf_ok(session, form.get("csrf")):
            return _forbidden()
        try:
            with self.lock:
                pages.override(self.ws, groups[0], groups[1], form, who)
        except StaleForm as e:
            return self._submission(groups, query, who, session, form, error=str(e), status=409)
        except OverrideError as e:
            return self._submission(groups, query, who, session, form, error=str(e), status=400)
        return 303, {"Location": self.access.prefix + _url("a", groups[0], "s", groups[1])}, b""

    def _exercise(self, groups, query, who, session, form, error: str = "", status: int = 200, notice: str = ""):
        ctx = pages.exercise_page(self.ws, groups[0], groups[1])
        if ctx is None:
            return self._page(404, "error.html.j2", who, session, message="No such exercise.")
        return self._page(
            status,
            "exercise.html.j2",
            who,
            session,
            error=error,
            notice=notice,
            done=query.get("done", "") if query.get("done", "").isdigit() else "",
            **ctx,
        )

    def _group(self, groups, query, who, session, form):
        if not self.access.csrf_ok(session, form.get("csrf")):
            return _forbidden()
        try:
            with self.lock:
                n = pages.group_override(self.ws, groups[0], groups[1], form, form.every("sid"), who)
        except StaleForm as e:
            return self._exercise(groups, {}, who, session, form, error=str(e), status=409)
        except (OverrideError, RubricError) as e:
            return self._exercise(groups, {}, who, session, form, error=str(e), status=400)
        return 303, {"Location": self.access.prefix + _url("a", groups[0], "e", groups[1], done=str(n))}, b""

    def _there(self, assignment: str, where: tuple[str, ...] | None) -> str:
        """The address of a `pages.next_for` answer (the team page when there is nothing left)."""
        return self.access.prefix + (
            _url("a", assignment, *where) if where else _url("a", assignment, "team", done="all")
        )

    def _see_other(self, location: str) -> Answer:
        return 303, {"Location": location}, b""

    def _done(self, groups, query, who, session, form):
        """ "Done, next for me": this submission marked done by `who`, then their next one."""
        if not self.access.csrf_ok(session, form.get("csrf")):
            return _forbidden()
        try:
            with self.lock:
                pages.mark_done(self.ws, groups[0], [groups[1]], "", who)
        except OverrideError as e:
            return self._submission(groups, query, who, session, form, error=str(e), status=400)
        return self._see_other(self._there(groups[0], pages.next_for(self.ws, groups[0], who, after=groups[1])))

    def _group_item(self, groups, query, who, session, form):
        """A rubric item applied to a group of the exercise page."""
        if not self.access.csrf_ok(session, form.get("csrf")):
            return _forbidden()
        try:
            with self.lock:
                n = pages.apply_item(self.ws, groups[0], form, form.every("sid"), who, exercise=groups[1])
        except StaleForm as e:
            return self._exercise(groups, {}, who, session, form, error=str(e), status=409)
        except (OverrideError, RubricError) as e:
            return self._exercise(groups, {}, who, session, form, error=str(e), status=400)
        return self._see_other(self.access.prefix + _url("a", groups[0], "e", groups[1], done=str(n)))

    def _rubric(self, groups, query, who, session, form):
        """The exercise page's rubric: add, edit (re-scoring who has the item) or delete an item."""
        if not self.access.csrf_ok(session, form.get("csrf")):
            return _forbidden()
        try:
            with self.lock:
                notice = pages.edit_rubric(self.ws, groups[0], groups[1], form, who)
        except (OverrideError, RubricError) as e:
            return self._exercise(groups, {}, who, session, form, error=str(e), status=400)
        return self._exercise(groups, {}, who, session, form, notice=notice)

    def _item(self, groups, query, who, session, form):
        """A rubric item applied to (or taken off) this submission: a button, or its key."""
        if not self.access.csrf_ok(session, form.get("csrf")):
            return _forbidden()
        try:
            with self.lock:
                pages.apply_item(self.ws, groups[0], form, [groups[1]], who)
        except StaleForm as e:
            return self._submission(groups, query, who, session, form, error=str(e), status=409)
        except (OverrideError, RubricError) as e:
            return self._submission(groups, query, who, session, form, error=str(e), status=400)
        return self._see_other(self.access.prefix + _url("a", groups[0], "s", groups[1]))

    def _group_done(self, groups, query, who, session, form):
        """A group of the exercise page marked done with nothing to change."""
        if not self.access.csrf_ok(session, form.get("csrf")):
            return _forbidden()
        try:
            with self.lock:
                pages.mark_done(self.ws, groups[0], form.every("sid"), groups[1], who)
        except OverrideError as e:
            return self._exercise(groups, {}, who, session, form, error=str(e), status=400)
        return self._see_other(self.access.prefix + _url("a", groups[0], "e", groups[1]))

    def _team(self, groups, query, who, session, form, error: str = "", status: int = 200):
        pages.load_assignment(groups[0], self.ws.kit)
        names = sorted(set(self.access.tokens.values()), key=str.casefold)
        return self._page(
            status,
            "team.html.j2",
            who,
            session,
            a_id=groups[0],
            error=error,
            names=names,
            all_done=query.get("done") == "all",
            mine=self._there(groups[0], pages.next_for(self.ws, groups[0], who)),
            **pages.progress(self.ws, groups[0]),
        )

    def _split(self, groups, query, who, session, form):
        from autograder.store.team import TeamError

        if not self.access.csrf_ok(session, form.get("csrf")):
            return _forbidden()
        try:
            with self.lock:
                pages.split(self.ws, groups[0], form, sorted(set(self.access.tokens.values())), who)
        except TeamError as e:
            return self._team(groups, {}, who, session, form, error=str(e), status=400)
        return self._see_other(self.access.prefix + _url("a", groups[0], "team"))

    def _next(self, groups, query, who, session, form):
        pages.load_assignment(groups[0], self.ws.kit)
        return self._see_other(self._there(groups[0], pages.next_for(self.ws, groups[0], who)))

    def _reveal(self, groups, query, who, session, form):
        if not self.access.csrf_ok(session, form.get("csrf")):
            return _forbidden()
        with self.lock:
            pages.reveal(self.ws, groups[0], who)
        return self._see_other(self.access.prefix + _url("a", groups[0]))

    def _changes(self, groups, query, who, session, form):
        return self._page(200, "changes.html.j2", who, session, **pages.changes_page(self.ws, groups[0]))

    def _stats(self, groups, query, who, session, form):
        return self._page(200, "stats.html.j2", who, session, **pages.stats_page(self.ws, groups[0]))

    def _export(self, groups, query, who, session, form):
        """The export as a download (`Content-Disposition: attachment`): the browser saves it and stays on the
        class view."""
        if not self.access.csrf_ok(session, form.get("csrf")):
            return _forbidden()
        try:
            with self.lock:
                name, data = pages.export(self.ws, groups[0], form.get("format", ""))
        except OverrideError as e:
            return self._page(
                400,
                "assignment.html.j2",
                who,
                session,
                **{**pages.assignment_page(self.ws, groups[0], {}), "notice": "error: " + str(e)},
            )
        kind = "application/json" if name.endswith(".json") else "text/csv; charset=utf-8"
        return 200, {"Content-Type": kind, "Content-Disposition": f'attachment; filename="{name}"'}, data


def _forbidden() -> Answer:
    return 403, {"Content-Type": "text/plain; charset=utf-8"}, b""


def _query(raw: bytes) -> dict[str, str]:
    return {k: v[0] for k, v in parse_qs(str(raw, "latin-1")).items()}


class Form(dict):
    """A POSTed form: each field's first value, as `_query` reads a query; `every(name)` gives all the values
    of a field the form repeats (the grade-by-exercise form's `sid`, one per student of the group)."""

    def __init__(self, raw: bytes = b"") -> None:
        self._all = parse_qs(str(raw, "latin-1"))
        super().__init__({k: v[0] for k, v in self._all.items()})

    def every(self, name: str) -> list[str]:
        return list(self._all.get(name, []))


async def _send(send: Any, answer: Answer) -> None:
    status, headers, body = answer
    raw = [(k.lower().encode("latin-1"), v.encode("latin-1")) for k, v in {**HEADERS, **headers}.items()]
    await send(
        {
            "type": "http.response.start",
            "status": status,
            "headers": raw + [(b"content-length", str(len(body)).encode())],
        }
    )
    await send({"type": "http.response.body", "body": body})


class _Body:
    """The request body, read whole before any page and refused with 413 past MAX_FORM_BYTES: a declared
    length over it is refused before a byte is read, a chunked body as soon as it passes it."""

    def __init__(self, app: Any) -> None:
        self.app = app

    async def __call__(self, scope: dict, receive: Any, send: Any) -> None:
        length = dict(scope["headers"]).get(b"content-length")
        if length is not None and not (length.isdigit() and int(length) <= MAX_FORM_BYTES):
            return await _send(send, (413, {"Content-Type": "text/plain; charset=utf-8", "Connection": "close"}, b""))
        body, more = b"", True
        while more:
            message = await receive()
            if message["type"] == "http.disconnect":
                return
            body += message.get("body", b"")
            more = message.get("more_body", False)
            if len(body) > MAX_FORM_BYTES:
                return await _send(
                    send, (413, {"Content-Type": "text/plain; charset=utf-8", "Connection": "close"}, b"")
                )
        scope.setdefault("state", {})["body"] = body
        await self.app(scope, receive, send)  # the body is read: `receive` now waits for a disconnect


class _Guard:
    """`Access` on every request before any page: the Host, the fetch's origin, the token traded for a
    session, the session, and a form's origin.  Anything refused: 403 and an empty body."""

    def __init__(self, app: Any, access: Access) -> None:
        self.app, self.access = app, access

    async def __call__(self, scope: dict, receive: Any, send: Any) -> None:
        headers = {str(k, "latin-1"): str(v, "latin-1") for k, v in scope["headers"]}
        method, path, query = scope["method"], scope["path"], _query(scope["query_string"])
        a = self.access
        if not (a.host_ok(headers.get("host")) and a.fetch_ok(headers) and (path + "/").startswith(a.prefix + "/")):
            return await _send(send, _forbidden())
        if path == a.prefix:  # the address typed without its last slash
            q = str(scope["query_string"], "latin-1")
            return await _send(send, (308, {"Location": path + "/" + ("?" + q if q else "")}, b""))
        if "token" in query and method == "GET":
            sid = a.login(query["token"])
            if sid is None:
                return await _send(send, _forbidden())
            rest = urlencode({k: v for k, v in query.items() if k != "token"})
            return await _send(
                send, (303, {"Location": path + ("?" + rest if rest else ""), "Set-Cookie": a.set_cookie(sid)}, b"")
            )
        session = a.session(headers.get("cookie", ""))
        who = a.who(session)
        if who is None or session is None or (method != "GET" and not a.origin_ok(headers)):
            return await _send(send, _forbidden())
        scope["state"].update(who=who, session=session, query=query)
        await self.app(scope, receive, send)


def _asgi(app: App) -> Any:
    """The ASGI application: `_Body`, then `_Guard`, then Starlette's router over `PAGES`."""
    import anyio
    from starlette.applications import Starlette
    from starlette.requests import Request
    from starlette.responses import Response
    from starlette.routing import Match, Mount, Route

    limiter = anyio.CapacityLimiter(PAGE_THREADS)

    def endpoint(name: str) -> Any:
        async def answer(request: Request) -> Response:
            st = request.scope["state"]
            form = Form(st["body"] if request.method == "POST" else b"")
            try:
                status, headers, body = await anyio.to_thread.run_sync(
                    app.answer,
                    name,
                    dict(request.path_params),
                    st["query"],
                    st["who"],
                    st["session"],
                    form,
                    limiter=limiter,
                )
            except Exception:  # noqa: BLE001 - a fault of this server: said on its terminal, not to the browser
                traceback.print_exc()
                status, headers, body = 500, {"Content-Type": "text/plain; charset=utf-8"}, b"internal error"
            return Response(body, status, {**HEADERS, **headers})

        return answer

    async def missing(request: Request) -> Response:
        st = request.scope["state"]
        allowed = [m for r in routes if r.matches(request.scope)[0] == Match.PARTIAL for m in sorted(r.methods or ())]
        if allowed:  # a page asked for with another method (a GET of a form's address): 405, as Starlette says it
            return Response(
                b"method not allowed",
                405,
                {**HEADERS, "Content-Type": "text/plain; charset=utf-8", "Allow": ", ".join(dict.fromkeys(allowed))},
            )
        status, headers, body = await anyio.to_thread.run_sync(
            lambda: app._page(404, "error.html.j2", st["who"], st["session"], message="No such page."), limiter=limiter
        )
        return Response(body, status, {**HEADERS, **headers})

    routes = [Route(path, endpoint(name), methods=[method]) for path, method, name in PAGES]
    router = Starlette(routes=[Mount(app.access.prefix, routes=[*routes, Route("/{rest:path}", missing)])])
    return _Body(_Guard(router, app.access))


def serve(kit: Path, out: Path, *, host: str, port: int, roster: Path | None, course: Any, who: str) -> int:
    """Start the workspace and print its address (with the token to open it, when one was generated)."""
    from autograder.serve import server

    ws = pages.Workspace(kit, out.resolve(), roster, course)
    ws.warm()
    named = course.table("serve").get("tokens") if course else None
    access, token = Access.create(named, who, host=host)
    sock = server.listen(host, port)
    base = server.base_url(sock) + access.prefix + "/"
    print(
        f"autograder workspace: {base}"
        + (f"?token={token}" if token else "  (log in with your [serve.tokens] token: ?token=...)")
    )
    sys.stdout.flush()
    try:
        server.server(App(ws, access).asgi).run(sockets=[sock])
    except KeyboardInterrupt:
        pass
    finally:
        sock.close()
    return 0
