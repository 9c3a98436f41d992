"""The workspace against what a hostile page, a local process or a student can do: a page on another port
of the same host (same-site, so the browser sends it the cookies) cannot use or obtain a session; idle and
slow connections do not stop the TA's pages nor add threads; a body over the cap is refused before it is
read; a student's two huge versions do not make her submission page slow."""

from __future__ import annotations

import dataclasses
import os
import re
import resource
import socket
import subprocess
import sys
import time
from pathlib import Path
from urllib.parse import urlencode, urlsplit

import pytest

from tests.serve.conftest import (
    notebook,
    trail,  # noqa: E402
)
from tests.serve.test_http import basis, login, request

pytestmark = pytest.mark.serial  # a TA's page answering within seconds while attacked, measured

OVERRIDE = {"test": "hidden/test_double.py::test_answer", "score": "2", "comment": "from another port"}


def _csrf(page: bytes) -> str | None:
    m = re.search(rb'name="csrf" value="([0-9a-f]+)"', page)
    return m.group(1).decode() if m else None


def test_a_page_on_another_port_cannot_use_the_session(workspace):
    """What a browser sends for a page served from another port of 127.0.0.1 (JupyterHub's neighbour): the
    cookie (same site), its Origin and `Sec-Fetch-Site: same-site`.  It reads no CSRF token and posts no
    override; the same form from the workspace's own page does."""

    base, token, out, *_ = workspace
    u = urlsplit(base)
    cookie = login(base, token)
    assert "Path=/;" not in cookie["Cookie"] and "autograder_session=" not in cookie["Cookie"]
    page = request(base, "GET", "/a/toy/s/student1_1001", cookie)[2]  # the TA's own page
    csrf = _csrf(page)
    assert csrf
    other = f"http://127.0.0.1:{u.port + 1}"
    for mode in ("cors", "no-cors", "navigate"):
        status, headers, body = request(
            base, "GET", "/a/toy/s/student1_1001", {**cookie, "Sec-Fetch-Site": "same-site", "Sec-Fetch-Mode": mode}
        )
        assert (status, body) == (403, b""), mode
        assert not any(k.startswith("access-control-") for k in headers)
    form = {**cookie, "Content-Type": "application/x-www-form-urlencoded"}
    body = urlencode({**OVERRIDE, "csrf": csrf, "basis": basis(page)}).encode()
    for origin in (
        {"Origin": other, "Sec-Fetch-Site": "same-site"},
        {"Origin": other},
        {"Origin": "null"},
        {"Origin": f"http://rebound.example:{u.port}"},
    ):
        assert request(base, "POST", "/a/toy/s/student1_1001/override", {**form, **origin}, body)[0] == 403, origin
    assert request(base, "GET", "/a/toy/s/student1_1001", {**cookie, "Host": f"rebound.example:{u.port}"})[0] == 403
    assert trail(out, "toy", "student1_1001") == []
    status, _, _ = request(
        base,
        "POST",
        "/a/toy/s/student1_1001/override",
        {**form, "Origin": f"http://{u.netloc}", "Sec-Fetch-Site": "same-origin"},
        body,
    )
    assert status == 303 and len(trail(out, "toy", "student1_1001")) == 1


def test_a_post_without_its_origin_is_refused(workspace):
    """A POST that says neither its Origin nor `Sec-Fetch-Site: same-origin` is refused, CSRF token or not."""
    base, token, *_ = workspace
    cookie = login(base, token)
    csrf = _csrf(request(base, "GET", "/a/toy/s/student1_1001", cookie)[2])
    u = urlsplit(base)
    c = __import__("http.client").client.HTTPConnection(u.hostname, u.port, timeout=30)
    c.request(
        "POST",
        u.path + "/a/toy/s/student1_1001/override",
        body=urlencode({**OVERRIDE, "csrf": csrf}),
        headers={**cookie, "Content-Type": "application/x-www-form-urlencoded"},
    )
    assert c.getresponse().status == 403
    c.close()


def test_a_body_over_the_cap_is_refused_before_it_is_read(workspace):
    """A chunked body is refused with 413 once it passes the cap, while the client still has 10 MB to send;
    a declared length over the cap before a byte of it."""
    base, token, *_ = workspace
    u = urlsplit(base)
    cookie = login(base, token)["Cookie"]
    head = (
        f"POST {u.path}/a/toy/s/student1_1001/override HTTP/1.1\r\nHost: {u.netloc}\r\nOrigin: http://{u.netloc}\r\n"
        f"Cookie: {cookie}\r\nContent-Type: application/x-www-form-urlencoded\r\n"
    )
    for framing, sent in (("Transfer-Encoding: chunked\r\n\r\n", 200 * 1024), ("Content-Length: 10000000\r\n\r\n", 0)):
        with socket.create_connection((u.hostname, u.port), timeout=10) as s:
            s.sendall((head + framing).encode())
            chunk = b"a" * 4096
            for _ in range(sent // len(chunk)):
                try:
                    s.sendall(b"%x\r\n%s\r\n" % (len(chunk), chunk))
                except OSError:
                    break  # the server answered and closed: it read no more
            answer = s.recv(65536)
            assert answer.startswith(b"HTTP/1.1 413"), (framing, answer[:80])


def _serve(kit: Path, out: Path, tmp_path: Path) -> tuple[subprocess.Popen, str]:
    """`autograder serve` in a process whose open-file limit is the common default, 1,024; its printed URL."""

    def low_limit() -> None:
        resource.setrlimit(resource.RLIMIT_NOFILE, (1024, resource.getrlimit(resource.RLIMIT_NOFILE)[1]))

    proc = subprocess.Popen(
        [sys.executable, "-m", "autograder", "--kit", str(kit), "serve", "--out", str(out), "--port", "0"],
        stdout=subprocess.PIPE,
        text=True,
        cwd=tmp_path,
        preexec_fn=low_limit,
        env={**os.environ, "PYTHONPATH": str(Path(__file__).parents[2])},
    )
    line = proc.stdout.readline()
    url = re.search(r"http://127\.0\.0\.1:\d+/\S*\?token=\S+", line)
    assert url, line
    return proc, url.group(0)


def test_idle_connections_do_not_stop_the_ta(toy_kit, tmp_path):
    """1,100 connections held open by someone without a token (half silent, half sending a request head a
    byte at a time): the TA's page still answers within seconds, the server's threads do not grow with them,
    and the server closes a connection that does not deliver its request in time."""
    from autograder.serve.server import REQUEST_SECONDS
    from tests.serve.conftest import write_results

    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    resource.setrlimit(resource.RLIMIT_NOFILE, (min(max(soft, 4096), hard), hard))
    out = tmp_path / "results"
    write_results(out)
    proc, url = _serve(toy_kit, out, tmp_path)
    u = urlsplit(url)
    held: list[socket.socket] = []
    failed = 0
    try:
        for i in range(1100):
            s = socket.socket()
            s.settimeout(1)
            try:
                s.connect((u.hostname, u.port))
                if i % 2:
                    s.sendall(b"GET / HTTP/1.1\r\nHo")
            except OSError:
                s.close()
                failed += 1
                if failed > 10:
                    break
                continue
            held.append(s)
        assert len(held) >= 1000, len(held)
        evicted: set[int] = set()  # the oldest idle ones made room for the newest (well before the deadline)
        until = time.monotonic() + 3
        while len(evicted) < 90 and time.monotonic() < until:
            for n, s in enumerate(held[:200]):
                if n not in evicted and _closed_by_server(s, 0):
                    evicted.add(n)
            time.sleep(0.1)
        evicted = len(evicted)
        assert evicted >= 90, evicted
        top = f"{u.scheme}://{u.netloc}{u.path.rstrip('/')}"
        t0 = time.monotonic()
        status, headers, _ = request(top, "GET", "/?" + u.query)
        assert status == 303 and time.monotonic() - t0 < 5, time.monotonic() - t0
        cookie = {"Cookie": headers["set-cookie"].split(";")[0]}
        t0 = time.monotonic()
        status, _, page = request(top, "GET", "/a/toy", cookie)
        assert status == 200 and b"student1_1001" in page and time.monotonic() - t0 < 5, time.monotonic() - t0
        threads = int(re.search(r"Threads:\s+(\d+)", Path(f"/proc/{proc.pid}/status").read_text()).group(1))
        assert threads < 50, threads
        deadline = time.monotonic() + REQUEST_SECONDS + 20
        assert all(_closed_by_server(s, deadline) for s in held[-20:])  # by the request deadline
    finally:
        for s in held:
            s.close()
        proc.terminate()
        proc.wait(timeout=30)


def _closed_by_server(s: socket.socket, deadline: float) -> bool:
    """Whether the server closed `s` by `deadline` (0: now)."""
    s.settimeout(max(0.01, deadline - time.monotonic()))
    try:
        return s.recv(1024) == b""
    except ConnectionResetError:
        return True
    except (TimeoutError, BlockingIOError):
        return False


def _versions(out: Path, sid: str, tmp_path: Path) -> None:
    """Two graded versions of `sid`, each one cell of 20,000 short lines; the second keeps every other line of
    the first (the case that makes a line diff quadratic)."""
    from autograder.store.database import Gradebook
    from autograder.store.history import keep

    gb = Gradebook(out / "gradebook.sqlite")
    r = gb.get("toy", sid)
    gb.close()
    lines = [f"x{i} = {i}" for i in range(20_000)]
    first, second = tmp_path / "v1.ipynb", tmp_path / "v2.ipynb"
    first.write_text(notebook([("code", "\n".join(lines), [])]))
    second.write_text(notebook([("code", "\n".join(x if i % 2 else "y" + x for i, x in enumerate(lines)), [])]))
    keep(out, dataclasses.replace(r, sha256="12" * 32), first)
    time.sleep(0.01)
    keep(out, r, second)


def test_a_huge_two_version_submission_answers_under_a_second(workspace, tmp_path):
    """A student's two versions of 20,000 lines each: her page (the override form on it) answers under a
    second, the diff cut and said to be cut."""
    base, token, out, *_ = workspace
    _versions(out, "student2_1002", tmp_path)
    cookie = login(base, token)
    request(base, "GET", "/a/toy/s/student2_1002", cookie)  # the assignment's grades read once
    t0, cpu = time.monotonic(), time.process_time()
    status, _, page = request(base, "GET", "/a/toy/s/student2_1002", cookie)
    wall, cpu = time.monotonic() - t0, time.process_time() - cpu
    assert status == 200 and b'id="override"' in page
    assert cpu < 1.0 and wall < 3.0, (wall, cpu)
    assert b"only the first" in page or b"differ too much" in page


def _flood(n: int = 40, size: int = 4000) -> str:
    """What a browser sends after a page on another port of the host set `n` cookies of `size` bytes for
    it (cookies ignore ports), one of them malformed as a cookie library reads it."""
    junk = [f"port8888_{i}={'x' * (size - 12)}" for i in range(n)]
    return "; ".join(['bad"name=1; =novalue; "quoted=a b', *junk])


def test_a_flood_of_another_ports_cookies_does_not_lock_the_ta_out(workspace):
    """A 160 KB Cookie header of foreign cookies: the login link still logs the TA in, and her session's
    cookie, sent among them (before, after, between), still opens every page and posts a form.  (Before, the
    head's 16 KiB bound answered "Invalid HTTP request received." (400) to every page; the cookie parser
    stopped at the first malformed pair.)"""

    base, token, out, *_ = workspace
    flood = _flood()
    assert len(flood) > 160_000
    status, headers, body = request(base, "GET", f"/a/toy?token={token}", {"Cookie": flood})
    assert status == 303 and b"Invalid HTTP" not in body, (status, body[:200])
    mine = headers["set-cookie"].split(";")[0]
    for cookie in (flood + "; " + mine, mine + "; " + flood, flood[:80_000] + "; " + mine + "; " + flood[80_000:]):
        status, _, page = request(base, "GET", "/a/toy/s/student1_1001", {"Cookie": cookie})
        assert status == 200 and b"student1_1001" in page, status
    csrf = _csrf(page)
    body = urlencode({**OVERRIDE, "csrf": csrf, "basis": basis(page)}).encode()
    status, _, _ = request(
        base,
        "POST",
        "/a/toy/s/student1_1001/override",
        {
            "Cookie": flood + "; " + mine,
            "Content-Type": "application/x-www-form-urlencoded",
            "Sec-Fetch-Site": "same-origin",
        },
        body,
    )
    assert status == 303 and len(trail(out, "toy", "student1_1001")) == 1
    assert request(base, "GET", "/a/toy", {"Cookie": flood})[::2] == (403, b"")  # the flood alone is no session
    forged = flood + "; " + mine.split("=")[0] + "=forged"
    assert request(base, "GET", "/a/toy", {"Cookie": forged})[::2] == (403, b"")


def test_large_heads_are_bounded(workspace):
    """Heads larger than a small one, never completed, are held by at most LARGE_HEADS connections: one more
    closes the oldest, and the TA's own large head still gets its page."""
    from autograder.serve.server import LARGE_HEADS, SMALL_HEAD_BYTES

    base, token, *_ = workspace
    u = urlsplit(base)
    held = []
    try:
        for _ in range(LARGE_HEADS + 4):
            s = socket.create_connection((u.hostname, u.port), timeout=5)
            s.sendall(b"GET / HTTP/1.1\r\nHost: 127.0.0.1\r\nCookie: " + b"x" * (SMALL_HEAD_BYTES + 100))
            held.append(s)
            time.sleep(0.05)
        deadline = time.monotonic() + 5
        closed = [n for n, s in enumerate(held) if _closed_by_server(s, deadline if n < 4 else 0)]
        assert closed == [0, 1, 2, 3], closed
        status, _, _ = request(base, "GET", f"/?token={token}", {"Cookie": _flood()})
        assert status == 303
    finally:
        for s in held:
            s.close()
