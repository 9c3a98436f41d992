"""The workspace in a real headless Chromium (Selenium + Debian's chromium-driver): log in with the token,
filter the class, open a submission, override one test with a comment, and the Canvas export and the audit
trail change accordingly; a hostile submission renders inert."""

from __future__ import annotations

import csv
import io
import json

import pytest

from tests.chromium import CHROMIUM, DRIVER, driven
from tests.cli.test_commands import run
from tests.serve.conftest import trail  # noqa: E402

webdriver = pytest.importorskip("selenium.webdriver")
pytestmark = pytest.mark.skipif(
    DRIVER is None or CHROMIUM is None,
    reason="chromium and chromium-driver are not installed (scripts/install-system-deps)",
)


@pytest.fixture
def browser():
    with driven() as driver:
        yield driver


def canvas_score(out, roster, kit, who: str) -> str:
    assert (
        run(
            [
                "export",
                "toy",
                "--out",
                str(out),
                "--format",
                "canvas",
                "--assignment-id",
                "77",
                "--roster",
                str(roster),
            ],
            kit,
        )
        == 0
    )
    rows = list(csv.reader(io.StringIO((out / "toy" / "canvas.csv").read_text(encoding="utf-8-sig"))))
    return next(r[-1] for r in rows if r[0] == who)


def click_and_load(browser, element) -> None:
    """Click a link or a submit button and wait for the page it opens: Selenium's click returns once the
    click is dispatched, and a form that posts back to the same address leaves the old page (and the
    old URL) in place until the answer arrives."""
    from selenium.webdriver.common.by import By
    from selenium.webdriver.support import expected_conditions as EC
    from selenium.webdriver.support.ui import WebDriverWait

    old = browser.find_element(By.TAG_NAME, "html")
    element.click()
    wait = WebDriverWait(browser, 60)
    wait.until(EC.staleness_of(old))
    wait.until(lambda b: b.execute_script("return document.readyState") == "complete")


def test_log_in_filter_open_override(workspace, browser, capsys):
    from selenium.webdriver.common.by import By
    from selenium.webdriver.support.ui import Select

    base, token, out, kit, roster = workspace
    assert canvas_score(out, roster, kit, "Student 1") == "3"
    browser.get(base + "/")
    assert "signed in" not in browser.page_source  # 403, nothing else
    browser.get(f"{base}/?token={token}")
    assert "token=" not in browser.current_url
    assert browser.find_element(By.TAG_NAME, "h1").text == "Course"
    assert "signed in as TA Kim" in browser.find_element(By.TAG_NAME, "header").text
    click_and_load(browser, browser.find_element(By.LINK_TEXT, "toy"))
    Select(browser.find_element(By.ID, "f-test")).select_by_value("hidden/test_double.py::test_answer")
    click_and_load(browser, browser.find_element(By.ID, "f-apply"))
    listed = {a.text for a in browser.find_elements(By.CSS_SELECTOR, "#students a.sub")}
    assert listed == {"student1_1001", "student3_1003", "hostile_666"}
    click_and_load(browser, browser.find_element(By.LINK_TEXT, "student1_1001"))
    assert browser.current_url.endswith("/a/toy/s/student1_1001")
    jump = browser.find_element(By.ID, "jump")  # links to the failing exercises, a form beside the failing test
    assert "answer" in jump.text and "double" in jump.text and "later" not in jump.text
    browser.find_element(By.ID, "t-score-hidden/test_double.py::test_answer").send_keys("2")
    browser.find_element(By.ID, "t-comment-hidden/test_double.py::test_answer").send_keys(
        "right idea, the dtype was off: regraded by hand"
    )
    click_and_load(browser, browser.find_element(By.ID, "t-submit-hidden/test_double.py::test_answer"))
    assert browser.current_url.endswith("/a/toy/s/student1_1001")
    trail = browser.find_element(By.ID, "trail").text
    assert "right idea, the dtype was off" in trail and "TA Kim" in trail
    assert canvas_score(out, roster, kit, "Student 1") == "5"  # 3 + the 2 points given back
    capsys.readouterr()
    assert run(["override", "toy", "--out", str(out), "--list"], kit) == 0
    listed = capsys.readouterr().out
    assert "TA Kim" in listed and "right idea, the dtype was off" in listed and "student1_1001" in listed


def test_hostile_submission_renders_inert(workspace, browser):
    from urllib.parse import urlsplit

    from selenium.webdriver.common.by import By

    base, token, *_ = workspace
    script = urlsplit(base).path + "/static/workspace.js"  # the one script: this instance's, under its prefix
    browser.get(f"{base}/?token={token}")
    for path in ["/a/toy/s/hostile_666", "/a/toy", "/a/toy/similarity", "/a/toy/e/double", "/"]:
        browser.get(base + path)
        assert "PWNED" not in browser.title, path
        found = browser.execute_script(
            "return [Array.from(document.scripts).filter(s => s.getAttribute('src') !== arguments[0]).length, "
            "document.querySelectorAll('svg:not(#histogram > svg), iframe, img:not([src^=\"data:image/png;base64,\"]), link[href^=http], "
            "a[href^=javascript], [onerror], [onload]').length, window.getComputedStyle(document.body).fontFamily]",
            script,
        )
        assert found[:2] == [0, 0], (path, found)
        assert "system-ui" in found[2]  # the workspace's own stylesheet loaded under the CSP
        assert "<script>document.title" in browser.find_element(By.TAG_NAME, "body").text or path == "/"
        if path == "/a/toy/s/hostile_666":  # the notebook's one PNG output shows (a data: URI), nothing else
            assert browser.execute_script("return Array.from(document.images).map(i => i.naturalWidth)") == [1]
    errors = [e for e in browser.get_log("browser") if "198.51.100.1" in e.get("message", "")]
    assert errors == []  # nothing external was even requested


ATTACK = """<!DOCTYPE html><html><head><title>waiting</title></head><body>
<form id="f" method="post" action="{action}">
<input name="csrf" value="{csrf}"><input name="test" value="hidden/test_double.py::test_answer">
<input name="score" value="2"><input name="comment" value="posted from another port">
</form>
<script>
fetch("{page}", {{credentials: "include"}}).then(r => r.text()).then(t => {{ document.title = "read " + t.length; }},
  () => {{ document.title = "not read"; }}).finally(() => {{ if (location.search == "?post") document.getElementById("f").submit(); }});
</script></body></html>"""


def test_a_page_on_another_port_gets_no_session(workspace, browser):
    """The TA, signed in, opens a page served from another port of 127.0.0.1 (a neighbour's notebook server):
    its server never receives the workspace's cookie, its script reads no page of the workspace, and the
    override form it posts (given a valid CSRF token: the worst case) changes nothing."""
    import http.server
    import threading
    from urllib.parse import urlsplit

    from selenium.webdriver.common.by import By
    from selenium.webdriver.support.ui import WebDriverWait

    base, token, out, *_ = workspace
    browser.get(f"{base}/?token={token}")
    browser.get(base + "/a/toy/s/student1_1001")
    csrf = browser.find_element(By.NAME, "csrf").get_attribute("value")
    cookies: list[str] = []

    class Neighbour(http.server.BaseHTTPRequestHandler):
        def do_GET(self):  # noqa: N802
            cookies.append(self.headers.get("Cookie") or "")
            body = ATTACK.format(
                action=base + "/a/toy/s/student1_1001/override", csrf=csrf, page=base + "/a/toy/s/student1_1001"
            ).encode()
            self.send_response(200)
            self.send_header("Content-Type", "text/html")
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

        def log_message(self, *args):
            pass

    neighbour = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Neighbour)
    threading.Thread(target=neighbour.serve_forever, daemon=True).start()
    try:
        there = f"http://127.0.0.1:{neighbour.server_address[1]}"
        for path in ("/", "/a/toy/s/student1_1001", urlsplit(base).path[:4] + "/"):
            browser.get(there + path)
            WebDriverWait(browser, 30).until(lambda b: b.title != "waiting")
            assert browser.title == "not read", path
        browser.get(there + "/?post")
        WebDriverWait(browser, 30).until(lambda b: not b.current_url.startswith(there))
        WebDriverWait(browser, 30).until(lambda b: b.execute_script("return document.readyState") == "complete")
        assert cookies and not any("autograder" in c for c in cookies), cookies
        assert trail(out, "toy", "student1_1001") == []
    finally:
        neighbour.shutdown()
        neighbour.server_close()
    browser.get(base + "/a/toy/s/student1_1001")  # the TA's own session still works
    assert "signed in as TA Kim" in browser.find_element(By.TAG_NAME, "header").text


def press(browser, key: str) -> None:
    from selenium.webdriver.common.by import By
    from selenium.webdriver.support import expected_conditions as EC
    from selenium.webdriver.support.ui import WebDriverWait

    old = browser.find_element(By.TAG_NAME, "html")
    browser.find_element(By.TAG_NAME, "body").send_keys(key)
    WebDriverWait(browser, 60).until(EC.staleness_of(old))
    WebDriverWait(browser, 60).until(lambda b: b.execute_script("return document.readyState") == "complete")


def test_grade_by_submission_next_previous_and_keys(workspace, browser):
    from selenium.webdriver.common.by import By
    from selenium.webdriver.common.keys import Keys

    base, token, *_ = workspace
    browser.get(f"{base}/a/toy/s/student1_1001?token={token}")
    assert "3 of 5" in browser.find_element(By.ID, "pager").text
    shown = browser.find_element(By.ID, "notebook")
    assert "My answer" in shown.text and "return 2 * x" in shown.text  # Markdown rendered, code as written
    heads = [h.text for h in browser.find_elements(By.CSS_SELECTOR, "section.ex h2")]
    assert "double 1.0 / 6.0" in heads and "later 2.0 / 2.0" in heads
    passed = browser.find_elements(By.CSS_SELECTOR, "details.passed summary")
    assert [p.text for p in passed] == ["1 passed (1.0 / 1.0)", "1 passed (2.0 / 2.0)"]  # passed tests compact
    groups = [g.get_attribute("label") for g in browser.find_elements(By.CSS_SELECTOR, "#o-test optgroup")]
    assert groups == ["answer", "double", "later"]  # the override menu by exercise, tests by name
    assert "double() keeps the dtype (0.0/2.0)" in browser.find_element(By.ID, "o-test").text
    press(browser, "j")
    assert browser.current_url.endswith("/a/toy/s/student2_1002")
    press(browser, Keys.ARROW_LEFT)
    assert browser.current_url.endswith("/a/toy/s/student1_1001")
    press(browser, "k")
    assert browser.current_url.endswith("/a/toy/s/student0_1000")
    press(browser, "n")  # the next one after it that needs a look (wrapping round): a cell raised
    assert browser.current_url.endswith("/a/toy/s/hostile_666")
    browser.find_element(By.ID, "o-comment").send_keys("jk")  # keys typed in a form stay there
    assert browser.current_url.endswith("/a/toy/s/hostile_666")
    click_and_load(browser, browser.find_element(By.ID, "nav-next"))
    assert browser.current_url.endswith("/a/toy/s/student0_1000")


def export_json(out, roster, kit) -> dict:
    import json

    assert run(["export", "toy", "--out", str(out), "--format", "json", "--roster", str(roster)], kit) == 0
    return {
        s["submission_id"]: s
        for s in json.loads((out / "toy" / "grades_export.json").read_text())["students"]
        if s["submission_id"]
    }


def test_grade_by_exercise_one_comment_to_a_group(workspace, browser, capsys):
    from selenium.webdriver.common.by import By
    from selenium.webdriver.support.ui import Select

    from autograder.store.database import Gradebook
    from tests.grades.factory import result

    base, token, out, kit, roster = workspace
    gb = Gradebook(out / "gradebook.sqlite")
    gb.put(result("student4_1004", (1, 0, 0, 0, 1)))  # the same failures as student1_1001
    gb.close()
    before = export_json(out, roster, kit)
    assert before["student1_1001"]["score"] == 3 and before["student4_1004"]["score"] == 3
    browser.get(f"{base}/a/toy?token={token}")
    click_and_load(browser, browser.find_element(By.LINK_TEXT, "double"))  # the exercise's column
    assert browser.current_url.endswith("/a/toy/e/double")
    group = next(
        g
        for g in browser.find_elements(By.CSS_SELECTOR, "section.group")
        if "student1_1001" in g.text and "student4_1004" in g.text
    )
    assert "2 failing the same way" in group.text and "double() keeps the dtype" in group.text
    n = group.get_attribute("id").split("-")[1]
    Select(browser.find_element(By.ID, f"g-test-{n}")).select_by_visible_text("double() keeps the dtype (/2.0)")
    browser.find_element(By.ID, f"g-score-{n}").send_keys("1")
    browser.find_element(By.ID, f"g-comment-{n}").send_keys("dtype: right idea, float32 kept")
    click_and_load(browser, browser.find_element(By.ID, f"g-submit-{n}"))
    assert "Recorded for 2 students" in browser.find_element(By.ID, "done").text
    after = export_json(out, roster, kit)
    assert after["student1_1001"]["score"] == 4 and after["student4_1004"]["score"] == 4  # +1 each
    assert after["student0_1000"]["score"] == before["student0_1000"]["score"]
    rows = trail(out, "toy")
    assert [(o.submission_id, o.by, o.comment) for o in rows] == [
        ("student1_1001", "TA Kim", "dtype: right idea, float32 kept"),
        ("student4_1004", "TA Kim", "dtype: right idea, float32 kept"),
    ]
    # a comment alone (no score) for another group: a comment, not an override (a zero-point rubric item)
    group = next(g for g in browser.find_elements(By.CSS_SELECTOR, "section.group") if "student3_1003" in g.text)
    n = group.get_attribute("id").split("-")[1]
    browser.find_element(By.ID, f"g-comment-{n}").send_keys("look at the dtype of the result")
    click_and_load(browser, browser.find_element(By.ID, f"g-submit-{n}"))
    assert "Recorded for 1 students" in browser.find_element(By.ID, "done").text
    assert export_json(out, roster, kit)["student3_1003"]["score"] == 0  # a comment alone: the score kept
    assert [o.submission_id for o in trail(out, "toy")] == ["student1_1001", "student4_1004"]  # no override
    from autograder.store.marks import Marks

    [item] = [i for i in Marks(out).items("toy") if i.exercise == "double"]
    assert (item.points, item.comment) == (0.0, "look at the dtype of the result")
    assert [(a.submission_id, a.by) for a in Marks(out).applied("toy")] == [("student3_1003", "TA Kim")]
    browser.get(f"{base}/a/toy")
    row = next(r for r in browser.find_elements(By.CSS_SELECTOR, "#students tr") if "student3_1003" in r.text)
    assert "overridden" not in row.text and "1 item" in row.text
    feedback = export_json(out, roster, kit)["student3_1003"]
    assert "Score set" not in json.dumps(feedback) and "root" not in json.dumps(feedback)


def test_clearing_a_stale_override_in_the_page(workspace, browser, capsys):
    import dataclasses

    from selenium.webdriver.common.by import By

    from autograder.store.database import Gradebook
    from tests.grades.factory import result

    base, token, out, kit, roster = workspace
    assert (
        run(
            [
                "override",
                "toy",
                "student2_1002",
                "--score",
                "6",
                "--comment",
                "copied part 2",
                "--by",
                "Prof",
                "--out",
                str(out),
            ],
            kit,
        )
        == 0
    )
    assert export_json(out, roster, kit)["student2_1002"]["score"] == 6
    gb = Gradebook(out / "gradebook.sqlite")
    gb.put(dataclasses.replace(result("student2_1002", (1, 1, 0.5, 1, 1)), sha256="cd" * 32))  # resubmitted
    gb.close()
    capsys.readouterr()
    assert export_json(out, roster, kit)["student2_1002"]["score"] == 9  # stale: not applied
    assert "is stale" in capsys.readouterr().err
    browser.get(f"{base}/a/toy/s/student2_1002?token={token}")
    stale = browser.find_element(By.ID, "stale").text
    assert "copied part 2" in stale and "another version" in stale
    click_and_load(browser, browser.find_element(By.ID, "o-reapply-1"))  # re-applied to the counted version
    assert "stale" not in browser.find_element(By.ID, "summary").text and browser.find_elements(By.ID, "stale") == []
    assert export_json(out, roster, kit)["student2_1002"]["score"] == 6
    click_and_load(browser, browser.find_element(By.CSS_SELECTOR, "#in-force button"))  # and cleared
    assert browser.find_elements(By.ID, "in-force") == []
    trail = browser.find_element(By.ID, "trail").text
    assert "reapply" in trail and "clear" in trail and "TA Kim" in trail
    capsys.readouterr()
    assert export_json(out, roster, kit)["student2_1002"]["score"] == 9
    assert "is stale" not in capsys.readouterr().err
