"""The workspace in a real headless Chromium (Selenium + Debian's chromium-driver): log in with the token,
filter the class, open a submission, override one test with a comment, and the Canvas export and the audit
trail change accordingly; a hostile submission renders inert."""
from __future__ import annotations

import csv
import io
import shutil

import pytest

from tests.exports.test_commands import run

webdriver = pytest.importorskip("selenium.webdriver")
DRIVER = shutil.which("chromedriver")
CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser")
pytestmark = pytest.mark.skipif(DRIVER is None or CHROMIUM is None,
                                reason="chromium and chromium-driver are not installed (scripts/install-system-deps)")


@pytest.fixture
def browser():
    from selenium.webdriver.chrome.options import Options
    from selenium.webdriver.chrome.service import Service

    options = Options()
    options.binary_location = CHROMIUM
    for flag in ("--headless=new", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage",
                 "--window-size=1400,1000"):
        options.add_argument(flag)
    options.set_capability("goog:loggingPrefs", {"browser": "ALL"})
    driver = webdriver.Chrome(service=Service(DRIVER), options=options)
    driver.set_page_load_timeout(60)
    try:
        yield driver
    finally:
        driver.quit()


def canvas_score(out, roster, kit, who: str) -> str:
    assert run(["export", "toy", "--out", str(out), "--format", "canvas", "--assignment-id", "77",
                "--roster", str(roster)], kit) == 0
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
    assert "signed in" not in browser.page_source   # 403, nothing else
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
    Select(browser.find_element(By.ID, "o-test")).select_by_value("hidden/test_double.py::test_answer")
    browser.find_element(By.ID, "o-score").send_keys("2")
    browser.find_element(By.ID, "o-comment").send_keys("right idea, the dtype was off: regraded by hand")
    click_and_load(browser, browser.find_element(By.ID, "o-submit"))
    assert browser.current_url.endswith("/a/toy/s/student1_1001")
    trail = browser.find_element(By.ID, "trail").text
    assert "right idea, the dtype was off" in trail and "TA Kim" in trail
    assert canvas_score(out, roster, kit, "Student 1") == "5"      # 3 + the 2 points given back
    capsys.readouterr()
    assert run(["override", "toy", "--out", str(out), "--list"], kit) == 0
    listed = capsys.readouterr().out
    assert "TA Kim" in listed and "right idea, the dtype was off" in listed and "student1_1001" in listed


def test_hostile_submission_renders_inert(workspace, browser):
    from selenium.webdriver.common.by import By

    base, token, *_ = workspace
    browser.get(f"{base}/?token={token}")
    for path in ["/a/toy/s/hostile_666", "/a/toy", "/a/toy/similarity", "/"]:
        browser.get(base + path)
        assert "PWNED" not in browser.title, path
        found = browser.execute_script(
            "return [document.scripts.length, document.querySelectorAll('svg, iframe, img:not([src^=\"data:image/png;base64,\"]), link[href^=http], "
            "a[href^=javascript], [onerror], [onload]').length, window.getComputedStyle(document.body).fontFamily]")
        assert found[:2] == [0, 0], (path, found)
        assert "system-ui" in found[2]   # the workspace's own stylesheet loaded under the CSP
        assert "<script>document.title" in browser.find_element(By.TAG_NAME, "body").text or path == "/"
        if path == "/a/toy/s/hostile_666":   # the notebook's one PNG output shows (a data: URI), nothing else
            assert browser.execute_script("return Array.from(document.images).map(i => i.naturalWidth)") == [1]
    errors = [e for e in browser.get_log("browser") if "198.51.100.1" in e.get("message", "")]
    assert errors == []   # nothing external was even requested
