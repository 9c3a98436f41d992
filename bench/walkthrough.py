"""A timed walk-through: one exercise of a 100-student class graded in headless Chromium, two ways.

    .venv/bin/python bench/walkthrough.py [--students 100] [--screenshots docs/images]   # JSON on stdout

The class is bench/serve.py's (synthesized, no grading), without marks.  The exercise is `double` (three
tests), whose submissions fall into groups of identical failures.  Each way gives every failing group its
feedback, as a TA would:

- `overrides` (the screen as it was): on the exercise page, each group's form typed in full: the test chosen,
  a score, a comment, submitted (an override per student);
- `rubric`: the exercise's rubric made once on the same page (three items: title, points, comment), then each
  failing group given an item with one click (the item whose points fit: +1 when the group lost under half
  the exercise's points, 0 otherwise, as the first way's score does).

`actions` counts what the TA does (a click, a field typed, a choice in a menu), `typed` the characters typed;
`seconds` is the wall-clock
time of the whole way as the browser ran it (pages loading included, no human reading or typing time: a
person adds that per action).  Both ways end in `autograder export`'s scores, which are printed per way.
"""

from __future__ import annotations

import argparse
import json
import shutil
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "bench"))

from serve import KIT, TOKEN, synthesize  # noqa: E402

from autograder.serve.access import Access  # noqa: E402
from autograder.serve.app import App  # noqa: E402
from autograder.serve.pages import Workspace  # noqa: E402
from autograder.serve.server import Running  # noqa: E402
from autograder.store.folder import assignment_grades  # noqa: E402

ITEMS = (
    ("dtype kept", "1", "float32 in, float32 out: a point for keeping the dtype"),
    ("see the broadcasting notes", "0", "multiplying by a number is elementwise: see the broadcasting notes"),
    ("loops instead of a vector op", "-1", "a Python loop over the elements: use one tensor operation"),
)


def browser():
    from selenium import webdriver
    from selenium.webdriver.chrome.options import Options
    from selenium.webdriver.chrome.service import Service

    options = Options()
    options.binary_location = shutil.which("chromium")
    for flag in ("--headless=new", "--no-sandbox", "--disable-gpu", "--window-size=1400,1000"):
        options.add_argument(flag)
    d = webdriver.Chrome(service=Service(shutil.which("chromedriver")), options=options)
    d.set_page_load_timeout(120)
    return d


def submit(d, element) -> None:
    from selenium.webdriver.common.by import By
    from selenium.webdriver.support import expected_conditions as EC
    from selenium.webdriver.support.ui import WebDriverWait

    old = d.find_element(By.TAG_NAME, "html")
    element.click()
    WebDriverWait(d, 120).until(EC.staleness_of(old))


def failing_groups(d) -> list[tuple[str, float, float]]:
    """(group number, its points, the exercise's points) of each failing group on the exercise page."""
    from selenium.webdriver.common.by import By

    out = []
    for g in d.find_elements(By.CSS_SELECTOR, "section.group:not(.ok)"):
        got, top = g.find_element(By.CSS_SELECTOR, "h2 .pts").text.split(" / ")
        out.append((g.get_attribute("id").split("-")[1], float(got), float(top)))
    return out


TYPED = [0]  # characters the TA types in the way being run


def typed(element, text: str) -> None:
    TYPED[0] += len(text)
    element.send_keys(text)


def way_overrides(d, base: str) -> int:
    from selenium.webdriver.common.by import By

    actions = 0
    d.get(base + "/a/toy/e/double")
    for n, got, top in failing_groups(d):
        typed(d.find_element(By.ID, f"g-score-{n}"), f"{min(top, got + 1) if got < top / 2 else got:g}")
        typed(d.find_element(By.ID, f"g-comment-{n}"), ITEMS[0][2] if got < top / 2 else ITEMS[1][2])
        submit(d, d.find_element(By.ID, f"g-submit-{n}"))
        actions += 4  # the test (its menu, when the first failure is not the one), the score, the comment, submit
    return actions


def way_rubric(d, base: str, shots: Path | None) -> int:
    from selenium.webdriver.common.by import By

    actions = 0
    d.get(base + "/a/toy/e/double")
    for title, points, comment in ITEMS:
        typed(d.find_element(By.ID, "new-title"), title)
        field = d.find_element(By.ID, "new-points")
        field.clear()
        typed(field, points)
        typed(d.find_element(By.ID, "new-comment"), comment)
        submit(d, d.find_element(By.ID, "new-submit"))
        actions += 4
    ids = {
        b.text.split(" (")[0].split(" ", 1)[-1]: b.get_attribute("value")
        for b in d.find_elements(By.CSS_SELECTOR, "form.items button.item")
    }
    if shots:
        d.save_screenshot(str(shots / "workspace-walkthrough-rubric.png"))
    d.get(base + "/a/toy/e/double")
    for n, got, top in failing_groups(d):
        item = ids[ITEMS[0][0]] if got < top / 2 else ids[ITEMS[1][0]]
        submit(d, d.find_element(By.ID, f"g-item-{n}-{item}"))
        actions += 1
    if shots:
        d.get(base + "/a/toy/e/double")
        d.save_screenshot(str(shots / "workspace-walkthrough-applied.png"))
    return actions


def run(way: str, students: int, shots: Path | None) -> dict:
    with tempfile.TemporaryDirectory() as tmp:
        out, kit = Path(tmp) / "results", Path(tmp) / "kit"
        shutil.copytree(KIT, kit)
        roster = synthesize(out, students, marks=False)
        access = Access({TOKEN: "TA Kim"})
        server = Running(App(Workspace(kit, out, roster), access).asgi)
        base = server.base + access.prefix
        d = browser()
        try:
            d.get(f"{base}/?token={TOKEN}")
            TYPED[0] = 0
            t0 = time.monotonic()
            if way == "overrides":
                actions = way_overrides(d, base)
            else:
                actions = way_rubric(d, base, shots)
            seconds = time.monotonic() - t0
            d.get(base + "/a/toy/e/double")
            groups = len(failing_groups(d))
        finally:
            d.quit()
            server.stop()
        g = assignment_grades(kit, "toy", out, roster_csv=roster)
        return {
            "way": way,
            "failing_groups": groups,
            "actions": actions,
            "typed": TYPED[0],
            "seconds": round(seconds, 1),
            "mean_score": round(
                sum(r.score or 0 for r in g.rows if r.score is not None)
                / max(1, sum(r.score is not None for r in g.rows)),
                3,
            ),
        }


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--students", type=int, default=100)
    p.add_argument("--screenshots", type=Path)
    args = p.parse_args()
    import os

    result = [run("overrides", args.students, None), run("rubric", args.students, args.screenshots)]
    print(
        json.dumps(
            {"students": args.students, "ways": result, "load_average": os.getloadavg(), "cpus": os.cpu_count()},
            indent=1,
        )
    )


if __name__ == "__main__":
    main()
