"""Rubric items in headless Chromium, each step checked in `autograder export`: an item made on the exercise
page, applied by its key on a submission and by a button to a whole group of identical failures; its points
edited on the page and every affected score changed."""

from __future__ import annotations

import pytest

from tests.serve.test_browser import CHROMIUM, DRIVER, browser, click_and_load, export_json, press  # noqa: F401

pytestmark = pytest.mark.skipif(
    DRIVER is None or CHROMIUM is None,
    reason="chromium and chromium-driver are not installed (scripts/install-system-deps)",
)


def test_items_by_key_to_a_group_and_edited(workspace, browser):
    from selenium.webdriver.common.by import By

    from autograder.store.database import Gradebook
    from autograder.store.marks import Marks
    from tests.grades.factory import result
    from tests.serve.conftest import trail

    base, token, out, kit, roster = workspace
    gb = Gradebook(out / "gradebook.sqlite")
    gb.put(result("student4_1004", (0, 0, 0, 0, 0)))  # the same failures as student3_1003
    gb.close()
    before = export_json(out, roster, kit)
    assert [before[s]["score"] for s in ("student1_1001", "student3_1003", "student4_1004")] == [3, 0, 0]
    browser.get(f"{base}/a/toy/e/double?token={token}")
    browser.find_element(By.ID, "new-title").send_keys("dtype kept")
    points = browser.find_element(By.ID, "new-points")
    points.clear()
    points.send_keys("1")
    browser.find_element(By.ID, "new-comment").send_keys("float32 in, float32 out: one point for it")
    click_and_load(browser, browser.find_element(By.ID, "new-submit"))
    [item] = Marks(out).items("toy")
    assert (item.exercise, item.points, item.key) == ("double", 1.0, "1")
    # by its key on a submission: the exercise in view is double (the one with items)
    browser.get(f"{base}/a/toy/s/student1_1001")
    assert browser.find_element(By.ID, f"item-{item.id}").get_attribute("data-key") == "1"
    press(browser, "1")
    assert "✔" in browser.find_element(By.ID, f"item-{item.id}").text
    assert export_json(out, roster, kit)["student1_1001"]["score"] == 4
    # to a whole group of identical failures on the exercise page
    browser.get(f"{base}/a/toy/e/double")
    group = next(
        g
        for g in browser.find_elements(By.CSS_SELECTOR, "section.group")
        if "student3_1003" in g.text and "student4_1004" in g.text
    )
    n = group.get_attribute("id").split("-")[1]
    click_and_load(browser, browser.find_element(By.ID, f"g-item-{n}-{item.id}"))
    assert "Recorded for 2 students" in browser.find_element(By.ID, "done").text
    after = export_json(out, roster, kit)
    assert [after[s]["score"] for s in ("student1_1001", "student3_1003", "student4_1004")] == [4, 1, 1]
    assert trail(out, "toy") == []  # items, not overrides
    # its points edited: everyone who has it re-scored, nobody else
    field = browser.find_element(By.ID, f"item-points-{item.id}")
    field.clear()
    field.send_keys("2")
    click_and_load(browser, browser.find_element(By.ID, f"item-save-{item.id}"))
    assert "3 of 3 students who have it re-scored" in browser.find_element(By.ID, "notice").text
    edited = export_json(out, roster, kit)
    assert [edited[s]["score"] for s in ("student1_1001", "student3_1003", "student4_1004")] == [5, 2, 2]
    assert edited["student0_1000"]["score"] == before["student0_1000"]["score"]
    assert edited["student2_1002"]["score"] == before["student2_1002"]["score"]
    # and taken off again by its key: back to the autograded score plus nothing
    browser.get(f"{base}/a/toy/s/student1_1001")
    press(browser, "1")
    assert export_json(out, roster, kit)["student1_1001"]["score"] == 3


def test_regrade_preview(team, browser, capsys):
    """The class's scores reached Canvas (a passback recorded them); a hidden test is fixed and two students
    are graded again: the preview page lists exactly those two with their change, the export holds the new
    scores, and `autograder passback` refuses to send until confirmed."""
    import dataclasses

    from selenium.webdriver.common.by import By

    from autograder.pipeline import record_sent
    from autograder.store.database import Gradebook
    from autograder.store.folder import assignment_grades
    from tests.cli.test_commands import run
    from tests.grades.factory import result

    base, tokens, out, kit, roster = team
    canvas = "https://canvas.example.edu/courses/7/assignments/42"
    record_sent(assignment_grades(kit, "toy", out, roster_csv=roster), canvas)  # what the last passback sent
    browser.get(f"{base}/a/toy/changes?token={tokens['TA Kim']}")
    assert canvas in browser.find_element(By.ID, "target-1").text
    assert "No score differs" in browser.find_element(By.ID, "target-1").text
    gb = Gradebook(out / "gradebook.sqlite")  # the regrade after the fix: test_answer now passes for two
    for sid, fractions in (("student1_1001", (1, 0, 0, 1, 1)), ("student3_1003", (0, 0, 0, 1, 0))):
        gb.put(dataclasses.replace(result(sid, fractions), sha256="ab" * 32))
    gb.close()
    browser.get(f"{base}/a/toy/changes")
    target = browser.find_element(By.ID, "target-1")
    assert "2 of the 5 scores it holds would change (2 up, 0 down)" in target.text
    rows = [r.text.split("\n") for r in target.find_elements(By.CSS_SELECTOR, "table.changes tr")[1:]]
    assert [(r[1].split()[0], r[-1].split()[-3:]) for r in rows] == [
        ("student1_1001", ["3.0", "5.0", "+2"]),
        ("student3_1003", ["0.0", "2.0", "+2"]),
    ]
    exported = export_json(out, roster, kit)
    assert exported["student1_1001"]["score"] == 5 and exported["student3_1003"]["score"] == 2
    capsys.readouterr()
    assert (
        run(
            [
                "passback",
                "toy",
                "--out",
                str(out),
                "--roster",
                str(roster),
                "--to",
                "canvas",
                "--canvas-url",
                "https://canvas.example.edu",
                "--course",
                "7",
                "--canvas-assignment",
                "42",
            ],
            kit,
        )
        == 1
    )
    said = capsys.readouterr()
    assert "student1_1001: 3 -> 5" in said.out and "--confirm" in said.err
