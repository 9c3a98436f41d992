"""The class view (the assignment page): points per exercise, a histogram drawn on the server, overridden,
late and provisional marks with the reason, the course's title, and export buttons that run `autograder
export` (POST with the session's CSRF token)."""

from __future__ import annotations

import dataclasses
import json
import re
from urllib.parse import urlencode, urlsplit

from autograder.config.course import load_course
from autograder.pipeline import set_override
from autograder.serve import pages
from autograder.store.database import Gradebook
from tests.grades.factory import result
from tests.serve.conftest import trail  # noqa: E402
from tests.serve.test_http import login, request


def test_columns_histogram_marks_and_title(workspace, tmp_path):
    base, token, out, kit, roster = workspace
    gb = Gradebook(out / "gradebook.sqlite")
    gb.put(dataclasses.replace(result("student2_1002", (1, 1, 0.5, 1, 1)), provisional="a host fault (worker lost)"))
    gb.close()
    course = tmp_path / "course.toml"
    course.write_text('[course]\ntitle = "Deep Learning, autumn"\n')
    ws = pages.Workspace(kit, out, roster, load_course(course))
    set_override(ws.grades("toy")[0], "student1_1001", test=None, score=9, comment="by hand", by="TA")
    ctx = pages.assignment_page(ws, "toy", {})
    assert ctx["columns"] == ["answer", "double", "later"]
    marks = ctx["marks"]
    assert marks["student0_1000"]["ex"]["double"] == [6.0, 6.0] and marks["student3_1003"]["ex"]["double"] == [0.0, 6.0]
    assert marks["student1_1001"]["overridden"] and not marks["student0_1000"]["overridden"]
    assert marks["student2_1002"]["provisional"] == "a host fault (worker lost)"
    h = ctx["histogram"]
    assert [b["n"] for b in h["bars"]] == [1, 1, 0, 0, 0, 0, 0, 0, 0, 2]  # 0, 1 (hostile), 9 (overridden), 10
    assert pages.course_page(ws)["title"] == "Deep Learning, autumn"
    html = pages_html(ws, "assignment.html.j2", ctx)
    assert "Deep Learning, autumn" in html and "provisional: a host fault (worker lost)" in html
    assert html.count('class="mark ov"') == 1 and html.count("<rect ") == 10
    assert re.search(r'<td class="num">10\.0 / 10\.0', html)


def pages_html(ws, template, ctx):
    from autograder.serve.access import Access
    from autograder.serve.app import App

    app = App(ws, Access({"x" * 20: "TA"}))
    return app.env.get_template(template).render(who="TA", csrf="c", **ctx)


def _signed_in_form(base, token, path, csrf_pattern):
    """A TA's session, the CSRF token `csrf_pattern` finds on `path`, and the headers of a form posted with it."""
    cookie = login(base, token)
    page = request(base, "GET", path, cookie)[2].decode()
    csrf = re.search(csrf_pattern, page).group(1)
    return cookie, csrf, {"Content-Type": "application/x-www-form-urlencoded", **cookie}


def test_export_buttons_run_the_exports_with_csrf(workspace):
    base, token, out, kit, roster = workspace
    cookie, csrf, form = _signed_in_form(
        base, token, "/a/toy", r'id="exports">\s*<input type="hidden" name="csrf" value="([0-9a-f]+)"'
    )
    assert request(base, "POST", "/a/toy/export", form, urlencode({"format": "json"}).encode())[0] == 403
    assert not (out / "toy" / "grades_export.json").exists()
    status, headers, body = request(
        base, "POST", "/a/toy/export", form, urlencode({"csrf": csrf, "format": "json"}).encode()
    )
    assert status == 200 and headers["content-disposition"] == 'attachment; filename="toy_grades_export.json"'
    assert not (out / "toy" / "grades_export.json").exists()  # downloaded, not written on the server
    students = json.loads(body)["students"]
    assert {s["submission_id"] for s in students} >= {"student0_1000", "hostile_666"}
    from tests.cli.test_commands import run

    assert run(["export", "toy", "--out", str(out), "--format", "json", "--roster", str(roster)], kit) == 0
    cli = json.loads((out / "toy" / "grades_export.json").read_text())["students"]
    assert [(s["submission_id"], s["score"]) for s in students] == [(s["submission_id"], s["score"]) for s in cli]
    status, headers, body = request(
        base, "POST", "/a/toy/export", form, urlencode({"csrf": csrf, "format": "csv"}).encode()
    )
    assert status == 200 and headers["content-type"].startswith("text/csv") and b"student0_1000" in body
    status, _, body = request(
        base, "POST", "/a/toy/export", form, urlencode({"csrf": csrf, "format": "canvas"}).encode()
    )
    assert status == 400 and "canvas_assignment" in body.decode()  # no Canvas id: said, nothing written
    assert request(base, "GET", "/a/toy/export", cookie)[0] == 405


def test_a_group_form_needs_csrf_a_test_of_the_exercise_and_a_comment(workspace):

    base, token, out, kit, roster = workspace
    cookie, csrf, headers = _signed_in_form(base, token, "/a/toy/e/double", r'name="csrf" value="([0-9a-f]+)"')
    import time

    from autograder.serve import pages

    now = pages.basis(pages.Workspace(kit, out, roster), "toy", ["student1_1001", "student3_1003"], time.time())
    form = [
        ("sid", "student1_1001"),
        ("sid", "student3_1003"),
        ("test", "hidden/test_double.py::test_double_partial"),
        ("score", "1"),
        ("comment", "dtype kept"),
        ("basis", now),
    ]
    assert request(base, "POST", "/a/toy/e/double/apply", headers, urlencode(form).encode())[0] == 403
    other = [*form[:2], ("test", "hidden/test_double.py::test_answer"), *form[3:], ("csrf", csrf)]
    status, _, body = request(base, "POST", "/a/toy/e/double/apply", headers, urlencode(other).encode())
    assert status == 400 and "not one of double" in body.decode()
    status, _, body = request(
        base,
        "POST",
        "/a/toy/e/double/apply",
        headers,
        urlencode([*form[:4], ("comment", " "), ("csrf", csrf)]).encode(),
    )
    assert status == 400 and "write a comment" in body.decode()
    too_high = [*form[:3], ("score", "3"), *form[4:], ("csrf", csrf)]
    assert request(base, "POST", "/a/toy/e/double/apply", headers, urlencode(too_high).encode())[0] == 400
    assert trail(out, "toy") == []  # all or nothing: nothing recorded
    status, headers_, _ = request(
        base, "POST", "/a/toy/e/double/apply", headers, urlencode([*form, ("csrf", csrf)]).encode()
    )
    assert status == 303 and headers_["location"] == urlsplit(base).path + "/a/toy/e/double?done=2"
    assert [(o.submission_id, o.new_score, o.by) for o in trail(out, "toy")] == [
        ("student1_1001", 1.0, "TA Kim"),
        ("student3_1003", 1.0, "TA Kim"),
    ]
    assert request(base, "GET", "/a/toy/e/nothing", cookie)[0] == 404
