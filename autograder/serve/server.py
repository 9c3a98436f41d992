"""The workspace's connections: uvicorn (asyncio, no thread per connection) with every limit set here.

Anyone on the machine can open connections to the workspace's port, token or not; none of them may slow the
TA's pages.  Connections cost a socket each, never a thread: pages run on a pool of PAGE_THREADS threads.
A connection must deliver a request (head and body) within REQUEST_SECONDS of opening or of its last answer,
and an idle one is closed after KEEP_ALIVE_SECONDS; uvicorn has the second, `_Protocol` adds the first (it
has no timeout for a request that never arrives or arrives a byte at a time).  At most MAX_CONNECTIONS are
held: one more closes the oldest connection that has no request in progress (an idle flood makes room for
the TA instead of locking the TA out, as a bound that refused new connections would).  A request's body is at
most `app.MAX_FORM_BYTES` (`app._Body`).

A request's head is at most MAX_HEAD_BYTES (h11), as large as a browser's own can be: browsers send a host's
cookies to every port of it, so a page on another port of the host can fill the TA's Cookie header with its
own (Chromium keeps 180 cookies of up to 4 KiB a host: about 720 KiB); a smaller bound answered every page,
the login link included, "Invalid HTTP request received." (400) until the TA cleared the browser's cookies.
What a head that large costs is bounded apart: at most LARGE_HEADS connections may hold more than
SMALL_HEAD_BYTES of a head not yet complete (one more closes the oldest of them, as for connections), so the
memory held for heads stays under LARGE_HEADS x MAX_HEAD_BYTES + MAX_CONNECTIONS x SMALL_HEAD_BYTES (32 MiB).
"""

from __future__ import annotations

import asyncio
import resource
import socket
import threading
import time
from typing import Any

import uvicorn
from uvicorn.protocols.http.h11_impl import H11Protocol

REQUEST_SECONDS = 10  # to send a whole request once connected (or after the last answer)
KEEP_ALIVE_SECONDS = 5  # an idle connection after an answer
MAX_CONNECTIONS = 1000  # held at once; past it the oldest without a request in progress is closed
MAX_HEAD_BYTES = 1024 * 1024  # request line and headers: a browser's Cookie header, filled by another port
SMALL_HEAD_BYTES = 16 * 1024  # a head past this, still incomplete, counts against LARGE_HEADS
LARGE_HEADS = 16  # connections at once holding a large incomplete head
BACKLOG = 2048  # connections the kernel queues before they are accepted
SHUTDOWN_SECONDS = 5  # pages in progress may finish this long at Ctrl-C


class _Protocol(H11Protocol):
    """uvicorn's HTTP/1.1 connection with a deadline for each request and a bound on connections."""

    large: dict["_Protocol", float] = {}  # connections holding a large incomplete head -> when it became large

    def connection_made(self, transport: asyncio.Transport) -> None:  # type: ignore[override]
        super().connection_made(transport)
        self.opened = time.monotonic()
        self.head_bytes = 0
        self._arm()
        if len(self.connections) > MAX_CONNECTIONS:
            # one closed stays in the set until its connection_lost: count and choose among the open ones
            live = [c for c in self.connections if isinstance(c, _Protocol) and not c.transport.is_closing()]
            idle = [c for c in live if c is not self and c.waiting()]
            if len(live) > MAX_CONNECTIONS and idle:
                min(idle, key=lambda c: c.opened).transport.close()

    def waiting(self) -> bool:
        """No request in progress: none received since the last answer, or one whose body is still coming."""
        return self.cycle is self._armed_for or bool(
            self.cycle and self.cycle.more_body and not self.cycle.response_complete
        )

    def data_received(self, data: bytes) -> None:
        """Count what arrives before a request's head is complete; past SMALL_HEAD_BYTES the connection is one
        of the `large` (at most LARGE_HEADS: one more closes the oldest)."""
        if self.cycle is self._armed_for:  # no request head parsed since the last answer
            self.head_bytes += len(data)
            if self.head_bytes > SMALL_HEAD_BYTES and self not in self.large:
                self.large[self] = time.monotonic()
                if len(self.large) > LARGE_HEADS:
                    oldest = min((c for c in self.large if c is not self), key=self.large.__getitem__)
                    self.large.pop(oldest, None)
                    oldest.transport.close()
        super().data_received(data)
        if self.cycle is not self._armed_for:  # the head is complete: it holds no more than any request's
            self.large.pop(self, None)

    def _arm(self) -> None:
        self._armed_for = self.cycle
        self.head_bytes = 0
        self.large.pop(self, None)
        if getattr(self, "_deadline", None):
            self._deadline.cancel()  # type: ignore[has-type]  # set below, on the connection's first request
        self._deadline = self.loop.call_later(REQUEST_SECONDS, self._too_slow)

    def _too_slow(self) -> None:
        if self.waiting() and not self.transport.is_closing():
            self.transport.close()

    def on_response_complete(self) -> None:
        self._arm()
        super().on_response_complete()

    def connection_lost(self, exc: Exception | None) -> None:
        self.large.pop(self, None)
        if getattr(self, "_deadline", None):
            self._deadline.cancel()
        super().connection_lost(exc)


def _room_for_connections() -> None:
    """Raise this process's open-file limit to what MAX_CONNECTIONS needs (the soft limit is often 1,024:
    a full table of connections would leave no descriptor to accept the TA's)."""
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    want = MAX_CONNECTIONS + 256
    if soft != resource.RLIM_INFINITY and soft < want:
        resource.setrlimit(resource.RLIMIT_NOFILE, (want if hard == resource.RLIM_INFINITY else min(want, hard), hard))


def listen(host: str, port: int) -> socket.socket:
    """The listening socket (bound now, so the address can be printed before serving starts)."""
    family = socket.AF_INET6 if ":" in host else socket.AF_INET
    sock = socket.socket(family, socket.SOCK_STREAM)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    sock.bind((host, port))
    sock.listen(BACKLOG)
    sock.set_inheritable(True)
    return sock


def base_url(sock: socket.socket) -> str:
    h, p = sock.getsockname()[:2]
    return f"http://{'[' + h + ']' if ':' in str(h) else h}:{p}"


def server(asgi: Any) -> uvicorn.Server:
    """uvicorn for `asgi` with the workspace's limits; no access log (a URL may carry the token)."""
    _room_for_connections()
    return uvicorn.Server(
        uvicorn.Config(
            asgi,
            http=_Protocol,
            ws="none",
            lifespan="off",
            interface="asgi3",
            access_log=False,
            log_level="error",
            proxy_headers=False,
            server_header=False,
            backlog=BACKLOG,
            timeout_keep_alive=KEEP_ALIVE_SECONDS,
            timeout_graceful_shutdown=SHUTDOWN_SECONDS,
            h11_max_incomplete_event_size=MAX_HEAD_BYTES,
        )
    )


class Running:
    """A workspace served from a thread (the tests; bench/serve.py): `base`, then `stop()`."""

    def __init__(self, asgi: Any, host: str = "127.0.0.1", port: int = 0) -> None:
        self.sock = listen(host, port)
        self.base = base_url(self.sock)
        self.server = server(asgi)
        self.thread = threading.Thread(target=self.server.run, kwargs={"sockets": [self.sock]}, daemon=True)
        self.thread.start()
        deadline = time.monotonic() + 30
        while not self.server.started and self.thread.is_alive() and time.monotonic() < deadline:
            time.sleep(0.01)

    def stop(self) -> None:
        self.server.should_exit = True
        self.thread.join(timeout=30)
        self.sock.close()
