"""The workspace's team features in headless Chromium, each checked in what lands in the exports: an export
downloaded from the page; two TAs on one submission, the second's stale form refused; the split and "next for
me"; anonymous grading and its reveal."""

from __future__ import annotations

import csv
import io
import json
import time

import pytest

from tests.chromium import driven
from tests.serve.conftest import trail  # noqa: E402
from tests.serve.test_browser import CHROMIUM, DRIVER, browser, click_and_load, export_json  # noqa: F401

pytestmark = pytest.mark.skipif(
    DRIVER is None or CHROMIUM is None,
    reason="chromium and chromium-driver are not installed (scripts/install-system-deps)",
)
ANSWER = "hidden/test_double.py::test_answer"


@pytest.fixture
def second_browser():
    """Another TA's browser: a profile of its own (its own cookies)."""
    with driven() as driver:
        yield driver


def test_an_export_downloads_from_the_page(workspace, browser, tmp_path):
    """The class view's csv and json buttons download the file (the browser stays on the page), with the
    scores `autograder export` writes; nothing is written in the results folder."""
    from selenium.webdriver.common.by import By

    base, token, out, kit, roster = workspace
    downloads = tmp_path / "downloads"
    downloads.mkdir()
    browser.execute_cdp_cmd("Browser.setDownloadBehavior", {"behavior": "allow", "downloadPath": str(downloads)})
    browser.get(f"{base}/a/toy?token={token}")
    page = browser.current_url
    for fmt, name in (("json", "toy_grades_export.json"), ("csv", "toy_grades_export.csv")):
        browser.find_element(By.ID, f"export-{fmt}").click()
        deadline = time.monotonic() + 60
        while not (downloads / name).is_file() and time.monotonic() < deadline:
            time.sleep(0.2)
        assert (downloads / name).is_file(), list(downloads.iterdir())
        assert browser.current_url == page and browser.find_element(By.ID, "students")
    assert not (out / "toy" / "grades_export.json").exists()
    got = {
        s["submission_id"]: s["score"]
        for s in json.loads((downloads / "toy_grades_export.json").read_text())["students"]
        if s["submission_id"]
    }
    assert got == {sid: s["score"] for sid, s in export_json(out, roster, kit).items()}
    rows = list(csv.DictReader(io.StringIO((downloads / "toy_grades_export.csv").read_text(encoding="utf-8-sig"))))
    assert len(rows) >= 5


def test_two_tas_on_one_submission_the_stale_form_refused(team, browser, second_browser):
    """TA Lee opens a submission TA Kim has open and sees so; Kim gives 2 points beside the failing test; Lee's
    form, drawn before, is refused with what Kim changed, and the export holds Kim's score."""
    from selenium.webdriver.common.by import By

    base, tokens, out, kit, roster = team
    kim, lee = browser, second_browser
    kim.get(f"{base}/a/toy/s/student1_1001?token={tokens['TA Kim']}")
    lee.get(f"{base}/a/toy/s/student1_1001?token={tokens['TA Lee']}")
    assert "Also open: TA Kim" in lee.find_element(By.ID, "others").text
    kim.find_element(By.ID, f"t-score-{ANSWER}").send_keys("1")
    kim.find_element(By.ID, f"t-comment-{ANSWER}").send_keys("right idea, regraded by hand")
    click_and_load(kim, kim.find_element(By.ID, f"t-submit-{ANSWER}"))
    assert export_json(out, roster, kit)["student1_1001"]["score"] == 4
    lee.find_element(By.ID, f"t-score-{ANSWER}").send_keys("0")
    lee.find_element(By.ID, f"t-comment-{ANSWER}").send_keys("wrong answer")
    click_and_load(lee, lee.find_element(By.ID, f"t-submit-{ANSWER}"))
    error = lee.find_element(By.ID, "error").text
    assert "Not applied" in error and "TA Kim set ANSWER is right of student1_1001: 0 → 1" in error
    assert [(o.by, o.new_score) for o in trail(out, "toy", "student1_1001")] == [("TA Kim", 1.0)]
    assert export_json(out, roster, kit)["student1_1001"]["score"] == 4  # Kim's change stands
    lee.find_element(By.ID, f"t-score-{ANSWER}").send_keys("2")  # the page as it is now: applied
    lee.find_element(By.ID, f"t-comment-{ANSWER}").send_keys("full marks: the answer is right after all")
    click_and_load(lee, lee.find_element(By.ID, f"t-submit-{ANSWER}"))
    assert lee.find_elements(By.ID, "error") == []
    assert export_json(out, roster, kit)["student1_1001"]["score"] == 5


def test_the_split_and_next_for_me(team, browser):
    """Kim splits the class evenly by submission; "next for me" and "Done, next for me" walk Kim through
    Kim's share only; the team page counts what is done; an override made on the way lands in the export."""
    from selenium.webdriver.common.by import By
    from selenium.webdriver.support.ui import Select

    from autograder.store import team as team_store

    base, tokens, out, kit, roster = team
    browser.get(f"{base}/a/toy/team?token={tokens['TA Kim']}")
    Select(browser.find_element(By.ID, "split-unit")).select_by_value("submission")
    Select(browser.find_element(By.ID, "split-how")).select_by_value("even")
    click_and_load(browser, browser.find_element(By.ID, "split-submit"))
    s = team_store.current(out / "gradebook.sqlite", "toy")
    mine = {sid for sid, ta in s.shares.items() if ta == "TA Kim"}
    assert "split by submission, evenly" in browser.find_element(By.ID, "split").text.lower()
    click_and_load(browser, browser.find_element(By.ID, "team-next"))
    seen = []
    while "/s/" in browser.current_url:
        sid = browser.current_url.rsplit("/", 1)[1]
        seen.append(sid)
        if sid == "student1_1001":
            browser.find_element(By.ID, f"t-score-{ANSWER}").send_keys("2")
            browser.find_element(By.ID, f"t-comment-{ANSWER}").send_keys("right idea")
            click_and_load(browser, browser.find_element(By.ID, f"t-submit-{ANSWER}"))
        click_and_load(browser, browser.find_element(By.ID, "done-next"))
        assert len(seen) <= len(mine)
    assert set(seen) == mine and browser.find_element(By.ID, "all-done")
    progress = browser.find_element(By.ID, "progress").text
    assert f"TA Kim {len(mine)} submissions {len(mine)} / {len(mine)}" in progress
    assert f"TA Lee {5 - len(mine)} submissions 0 / {5 - len(mine)}" in progress
    if "student1_1001" in mine:
        assert export_json(out, roster, kit)["student1_1001"]["score"] == 5


@pytest.mark.parametrize("team", [True], indirect=True)
def test_anonymous_mode(team, browser):
    """Under `[serve] anonymous`, the class view, a submission and the exercise page show pseudonyms; a group
    comment given there lands in the export under the student's real id; "Reveal names" is recorded and
    brings the names back."""
    from selenium.webdriver.common.by import By

    from autograder.store import team as team_store

    base, tokens, out, kit, roster = team
    browser.get(f"{base}/a/toy?token={tokens['TA Kim']}")
    table = browser.find_element(By.ID, "students").text
    assert "student1_1001" not in table and "hostile_666" not in table and "Student" in table
    link = next(
        a
        for a in browser.find_elements(By.CSS_SELECTOR, "#students a.sub")
        if a.get_attribute("href").endswith("/s/student1_1001")
    )
    alias = link.text
    assert alias.startswith("Student ")
    click_and_load(browser, link)
    assert browser.find_element(By.TAG_NAME, "h1").text.startswith(alias)
    assert "student1_1001" not in browser.find_element(By.TAG_NAME, "body").text
    browser.find_element(By.ID, f"t-score-{ANSWER}").send_keys("1")
    browser.find_element(By.ID, f"t-comment-{ANSWER}").send_keys("one point for the idea")
    click_and_load(browser, browser.find_element(By.ID, f"t-submit-{ANSWER}"))
    assert export_json(out, roster, kit)["student1_1001"]["score"] == 4
    browser.get(f"{base}/a/toy/e/double")
    assert "student1_1001" not in browser.find_element(By.TAG_NAME, "body").text
    browser.get(f"{base}/a/toy")
    click_and_load(browser, browser.find_element(By.ID, "reveal"))
    assert "Names revealed by TA Kim" in browser.find_element(By.ID, "revealed").text
    assert team_store.revealed(out / "gradebook.sqlite", "toy")[0] == "TA Kim"
    assert "student1_1001" in browser.find_element(By.ID, "students").text


def test_the_class_view_fits_the_window(workspace, browser):
    """At 1400 pixels the class view needs no sideways scrolling (Late and Message included), and no row is
    stretched into a tall band by a long message (one unbroken path of 400 characters, then 800 of words)."""
    from selenium.webdriver.common.by import By

    from autograder.store.database import Gradebook
    from tests.grades.factory import result

    base, token, out, *_ = workspace
    gb = Gradebook(out / "gradebook.sqlite")
    gb.put(result("student2_1002", (1, 1, 0.5, 1, 1), message="/tmp/" + "x" * 400 + " " + "the kernel died " * 50))
    gb.close()
    browser.get(f"{base}/a/toy?token={token}")
    width = browser.execute_script("return [document.documentElement.scrollWidth, window.innerWidth]")
    assert width[0] <= width[1], width
    heights = browser.execute_script(
        "return Array.from(document.querySelectorAll('#students tr')).map(r => r.getBoundingClientRect().height)"
    )
    assert max(heights) < 150, heights
    assert [h.text for h in browser.find_elements(By.CSS_SELECTOR, "#students th")][-2:] == ["Late", "Message"]
