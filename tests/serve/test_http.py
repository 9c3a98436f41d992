"""The workspace over plain HTTP: 403 and nothing else without a session, CSRF, CSP, escaping, and the
override form writing the CLI's audit trail."""

from __future__ import annotations

import http.client
import re
from urllib.parse import urlencode, urlsplit

from autograder.serve.access import Access, AccessError
from tests.serve.conftest import (
    trail,  # noqa: E402
)


def request(base, method, path, headers=None, body=None):
    """`path` under the workspace's prefix (`base` ends with it), as a browser on one of its pages sends it:
    a POST carries the page's Origin."""
    u = urlsplit(base)
    c = http.client.HTTPConnection(u.hostname, u.port, timeout=30)
    origin = {"Origin": f"http://{u.netloc}"} if method == "POST" else {}
    c.request(method, u.path + path, body=body, headers={**origin, **(headers or {})})
    r = c.getresponse()
    data = r.read()
    c.close()
    return r.status, {k.lower(): v for k, v in r.getheaders()}, data


def basis(page) -> str:
    """The `basis` a page's first form carries (what it was drawn from: `serve.team`)."""
    text = page.decode() if isinstance(page, bytes) else page
    return re.search(r'name="basis" value="([^"]+)"', text).group(1)


def login(base, token):
    status, headers, _ = request(base, "GET", f"/a/toy?status=graded&token={token}")
    prefix = urlsplit(base).path
    assert status == 303 and headers["location"] == prefix + "/a/toy?status=graded"
    assert "HttpOnly" in headers["set-cookie"] and "SameSite=Strict" in headers["set-cookie"]
    assert f"Path={prefix}/" in headers["set-cookie"]
    return {"Cookie": headers["set-cookie"].split(";")[0]}


def test_no_or_wrong_token_is_403_and_nothing_else(workspace):
    base, token, *_ = workspace
    for path in [
        "/",
        "/a/toy",
        "/a/toy/s/student0_1000",
        "/static/workspace.css",
        "/nothing",
        "/?token=wrong",
        f"/?token={token[:-1]}",
    ]:
        status, headers, body = request(base, "GET", path)
        assert (status, body) == (403, b""), path
        assert "set-cookie" not in headers
    status, _, body = request(base, "GET", "/", {"Cookie": "autograder_session=forged"})
    assert (status, body) == (403, b"")
    outside = base.rsplit("/", 1)[0]  # the same server, without the instance's prefix: nothing there
    cookie = login(base, token)
    for path in ["/", f"/?token={token}", "/a/toy", "/static/workspace.css"]:
        assert request(outside, "GET", path, cookie)[::2] == (403, b""), path
    status, _, body = request(base, "POST", "/a/toy/s/student0_1000/override", body=b"score=1")
    assert (status, body) == (403, b"")


def test_pages_csp_and_escaping(workspace):
    base, token, *_ = workspace
    cookie = login(base, token)
    for path in [
        "/",
        "/a/toy",
        "/a/toy?status=graded&sort=score",
        "/a/toy/s/hostile_666",
        "/a/toy/similarity",
        "/a/toy/s/student1_1001",
        "/a/toy/e/double",
        "/a/toy/e/answer",
    ]:
        status, headers, body = request(base, "GET", path, cookie)
        assert status == 200, path
        csp = headers["content-security-policy"]
        assert "default-src 'none'" in csp and "script-src 'self';" in csp and "style-src 'self'" in csp
        assert "unsafe-inline" not in csp and "unsafe-eval" not in csp
        assert headers["x-content-type-options"] == "nosniff" and headers["referrer-policy"] == "no-referrer"
        page = body.decode()
        assert (
            page.count("<script") == 1
            and f'<script src="{urlsplit(base).path}/static/workspace.js" defer></script>' in page
        )
        assert "onerror=" not in page.replace("onerror=&#34;", "")
        assert page.count("<svg") == page.count('<figure id="histogram"><svg xmlns=') <= 1  # the page's own chart
        assert "<iframe" not in page and 'href="javascript:' not in page
    page = request(base, "GET", "/a/toy/s/hostile_666", cookie)[2].decode()
    assert "&lt;script&gt;document.title=" in page
    assert len(page) < 2_000_000  # huge outputs are cut
    course = request(base, "GET", "/", cookie)[2].decode()
    assert f'href="{urlsplit(base).path}/a/toy"' in course and "Similar pairs" in course


def test_filters(workspace):
    base, token, *_ = workspace
    cookie = login(base, token)
    failing = request(base, "GET", "/a/toy?" + urlencode({"test": "hidden/test_double.py::test_answer"}), cookie)[
        2
    ].decode()
    listed = set(re.findall(r'class="sub" href="[^"]*/a/toy/s/([^"]+)"', failing))
    assert listed == {"student1_1001", "student3_1003", "hostile_666"}
    missing = request(base, "GET", "/a/toy?status=missing", cookie)[2].decode()
    assert not re.findall(r'class="sub"', missing)


def test_override_needs_csrf_and_writes_the_trail(workspace):

    base, token, out, *_ = workspace
    cookie = login(base, token)
    form = {"test": "hidden/test_double.py::test_answer", "score": "2", "comment": "regraded by hand"}
    headers = {**cookie, "Content-Type": "application/x-www-form-urlencoded"}
    assert request(base, "POST", "/a/toy/s/student1_1001/override", headers, urlencode(form).encode())[:3:2] == (
        403,
        b"",
    )
    bad = {**form, "csrf": "0" * 64}
    assert request(base, "POST", "/a/toy/s/student1_1001/override", headers, urlencode(bad).encode())[0] == 403
    other = login(base, token)  # another session's CSRF token is no good either
    page = request(base, "GET", "/a/toy/s/student1_1001", other)[2].decode()
    foreign = re.search(r'name="csrf" value="([0-9a-f]+)"', page).group(1)
    assert (
        request(
            base, "POST", "/a/toy/s/student1_1001/override", headers, urlencode({**form, "csrf": foreign}).encode()
        )[0]
        == 403
    )
    assert trail(out, "toy", "student1_1001") == []
    page = request(base, "GET", "/a/toy/s/student1_1001", cookie)[2].decode()
    csrf = re.search(r'name="csrf" value="([0-9a-f]+)"', page).group(1)
    form["basis"] = basis(page)
    status, h, _ = request(
        base, "POST", "/a/toy/s/student1_1001/override", headers, urlencode({**form, "csrf": csrf}).encode()
    )
    assert status == 303 and h["location"] == urlsplit(base).path + "/a/toy/s/student1_1001"
    [o] = trail(out, "toy", "student1_1001")
    assert (o.test_id, o.new_score, o.comment, o.by) == (
        "hidden/test_double.py::test_answer",
        2.0,
        "regraded by hand",
        "TA Kim",
    )
    form["basis"] = basis(request(base, "GET", "/a/toy/s/student1_1001", cookie)[2])
    status, _, body = request(
        base,
        "POST",
        "/a/toy/s/student1_1001/override",
        headers,
        urlencode({**form, "score": "lots", "csrf": csrf}).encode(),
    )
    assert status == 400 and b"must be a number" in body


def test_tokens_from_the_course_file():
    with __import__("pytest").raises(AccessError):
        Access.create({"Kim": "short"}, "me")
    access, printed = Access.create({"Kim": "k" * 20}, "me")
    assert printed is None and access.who(access.login("k" * 20)) == "Kim" and access.login("k" * 19) is None
    access, printed = Access.create(None, "me")
    assert len(printed) >= 24 and access.who(access.login(printed)) == "me"


def test_history_diff_and_the_notebook(workspace):
    base, token, *_ = workspace
    cookie = login(base, token)
    page = request(base, "GET", "/a/toy/s/student1_1001", cookie)[2].decode()
    history = page.split('id="history"')[1].split("</table>")[0]
    assert history.count("<tr>") == 3 and history.count("counts") == 1 and "abababababab" in history
    assert "-    return x + x" in page and "+    return 2 * x" in page  # the diff of the code cells
    assert 'id="nb-2"' in page and "return 2 * x" in page.split('id="notebook"')[1]
    old = request(base, "GET", "/a/toy/s/student1_1001?v=" + "11" * 32, cookie)[2].decode()
    assert "return x + x" in old.split('id="notebook"')[1]
    hostile = request(base, "GET", "/a/toy/s/hostile_666", cookie)[2].decode()
    shown = hostile.split('id="notebook"')[1]
    assert shown.count("<img ") == 1 and 'src="data:image/png;base64,iVBOR' in shown  # the PNG only
    assert "<svg" not in shown and "<script" not in shown and "&lt;script&gt;" in shown
    assert "(cut: " in shown and len(hostile) < 3_000_000


def test_needs_a_look_filter(workspace):
    base, token, *_ = workspace
    cookie = login(base, token)
    page = request(base, "GET", "/a/toy?status=look", cookie)[2].decode()
    listed = set(re.findall(r'class="sub" href="[^"]*/a/toy/s/([^"]+)"', page))
    assert "student0_1000" not in listed and listed  # full marks needs no look


def test_the_serve_command_prints_a_token_url_and_takes_course_tokens(toy_kit, tmp_path):
    """`autograder serve` as an instructor starts it: a URL with a fresh token; with [serve.tokens] none is printed."""
    import os
    import subprocess
    import sys

    from tests.serve.conftest import write_results

    out = tmp_path / "results"
    write_results(out)
    course = tmp_path / "course.toml"
    for toml, named in (("", False), ('[serve.tokens]\n"TA Lee" = "lee-token-0123456789abcdef"\n', True)):
        course.write_text(toml)
        proc = subprocess.Popen(
            [
                sys.executable,
                "-m",
                "autograder",
                "--kit",
                str(toy_kit),
                "--course-file",
                str(course),
                "serve",
                "--out",
                str(out),
                "--port",
                "0",
            ],
            stdout=subprocess.PIPE,
            text=True,
            cwd=tmp_path,
            env={**os.environ, "PYTHONPATH": str(__import__("pathlib").Path(__file__).parents[2])},
        )
        try:
            line = proc.stdout.readline()
            url = re.search(r"(http://127\.0\.0\.1:\d+/[A-Za-z0-9_-]{20,}/)(\?token=(\S+))?", line)
            assert url, line
            assert bool(url.group(3)) is not named
            token = "lee-token-0123456789abcdef" if named else url.group(3)
            status, headers, _ = request(url.group(1).rstrip("/"), "GET", f"/?token={token}")
            assert status == 303
            page = request(url.group(1).rstrip("/"), "GET", "/", {"Cookie": headers["set-cookie"].split(";")[0]})[
                2
            ].decode()
            assert ("signed in as TA Lee" in page) is named
        finally:
            proc.terminate()
            proc.wait(timeout=30)


def test_oversized_or_malformed_bodies_are_refused(workspace):
    base, token, *_ = workspace
    cookie = login(base, token)
    status, _, body = request(base, "POST", "/a/toy/s/student0_1000/override", {**cookie, "Content-Length": "99999999"})
    assert status == 413 and body == b""
    for length in ("nonsense", "-1"):  # not HTTP: the parser refuses it
        status, _, body = request(base, "POST", "/a/toy/s/student0_1000/override", {**cookie, "Content-Length": length})
        assert status == 400


def test_the_address_without_its_last_slash_is_sent_on(workspace):
    base, token, *_ = workspace
    status, headers, _ = request(base, "GET", f"?token={token}")
    assert status == 308 and headers["location"] == urlsplit(base).path + f"/?token={token}"
    assert request(base, "GET", "x/")[0] == 403  # another path that only starts like the prefix
