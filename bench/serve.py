"""The workspace's pages for a 1,000-submission class: each should answer in under 300 ms.

    .venv/bin/python bench/serve.py [--students 1000] [--screenshots docs/images]   # a JSON object on stdout

The class is synthesized (no grading): 1,000 results of the toy assignment written to a fresh gradebook,
with identities, a roster, a deadline (a tenth late), a few provisional ones, an override and a similarity
file.  The workspace is served on 127.0.0.1 as `autograder serve` serves it (uvicorn, `serve.server`) and
each page is fetched over HTTP with the session cookie.

- `start`: what `autograder serve` does before it prints its address (`Workspace.warm`: every assignment's
  grades read from the gradebook as `autograder export` reads them, and the report's context);
- `pages`: each page's median of five (`ms`), the gradebook unchanged (grade-by-exercise pages included);
- `after_override`: an override through the submission page's form (the POST), then the first page after it
  (the assignment page, the costliest: every row of the class); `after_cli_override`: the same after
  `autograder override` in a terminal (`pipeline.set_override`, the server not told);
  `after_regrade`: after a student's result is stored again (a re-grade: only that row computed again);
  `after_new_submission`: after a submission the gradebook did not hold is stored (everything read again,
  as at start).

Each time is the wall-clock time of the request (`ms`) and the CPU time the server's thread spent on it
(`cpu_ms`, `time.thread_time` around `App.answer`): on a machine shared with other work the first grows with the load, the
second hardly, so it estimates the time on a quiet machine.  With `--screenshots`, headless Chromium saves
each page as workspace-<page>.png there (docs/workspace.md shows them).
"""

from __future__ import annotations

import argparse
import dataclasses
import http.client
import json
import os
import random
import re
import shutil
import statistics
import sys
import tempfile
import time
from datetime import datetime, timedelta
from pathlib import Path
from urllib.parse import urlencode

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from autograder import pipeline as ov  # noqa: E402
from autograder.intake.roster import Identity, write_identities  # noqa: E402
from autograder.judge.results import CellIssue  # noqa: E402
from autograder.serve.access import Access  # noqa: E402
from autograder.serve.app import App  # noqa: E402
from autograder.serve.pages import Workspace  # noqa: E402
from autograder.serve.server import Running  # noqa: E402
from autograder.store import history  # noqa: E402
from autograder.store.database import Gradebook  # noqa: E402
from autograder.store.folder import assignment_grades  # noqa: E402
from tests.grades.factory import result  # noqa: E402

KIT = ROOT / "tests" / "fixtures" / "kit"
TOKEN = "bench-token-0123456789abcdef"
DUE = "2026-10-01T12:00:00+00:00"
CANVAS = {
    "canvas": {"url": "https://canvas.example.edu", "course": 7},
    "assignments": {"toy": {"canvas_assignment": 42}},
}
CANVAS_PAGE = "https://canvas.example.edu/courses/7/assignments/42"  # the target the regrade preview compares with


def synthesize(out: Path, n: int, seed: int = 0, marks: bool = True) -> Path:
    rng = random.Random(seed)
    gb = Gradebook(out / "gradebook.sqlite")
    people, lines = {}, ["Student,ID,SIS User ID,SIS Login ID,Section"]
    due = datetime.fromisoformat(DUE)
    for i in range(n):
        sid = f"student{i:04d}_{10000 + i}"
        fractions = tuple(rng.choice((1, 1, 1, 0.5, 0)) for _ in range(5))
        cells = (
            [
                CellIssue(
                    cell=3,
                    status="error",
                    type="RuntimeError",
                    message="shape mismatch",
                    code="y = x @ w  # the student's cell",
                )
            ]
            if 0 in fractions
            else []
        )
        r = result(sid, fractions, cells=cells, time=rng.uniform(2, 9))
        if i % 97 == 0:
            r.provisional = "a host fault"
        gb.put(r)
        late = rng.random() < 0.1
        people[sid] = Identity(
            str(10000 + i),
            f"Student {i:04d}",
            login_id=f"s{i}",
            lms_user_id=str(10000 + i),
            submitted_at=due + (timedelta(hours=rng.uniform(1, 50)) if late else -timedelta(hours=3)),
        )
        lines.append(f"\"Student {i:04d}\",{10000 + i},S{i},s{i},A")
    gb.close()
    lines += [f"\"Absent {j}\",{90000 + j},X{j},x{j},B" for j in range(n // 50)]
    write_identities(out / "toy" / "identities.json", people)
    ov.set_override(
        assignment_grades(KIT, "toy", out),
        "student0001_10001",
        test=None,
        score=10,
        comment="regraded by hand",
        by="TA Kim",
    )
    if marks:
        rubric(out, n, rng)
    code = {
        "student0002_10002": {"3": "def double(x):\n    return x * 2\n"},
        "student0005_10005": {"4": "def twice(v):\n    return v * 2\n"},
    }
    (out / "toy" / "similarity.json").write_text(
        json.dumps(
            {
                "assignment": "toy",
                "threshold": 0.5,
                "notebooks": n,
                "unreadable": {},
                "students": {},
                "code": code,
                "pairs": [
                    {
                        "a": "student0002_10002",
                        "b": "student0005_10005",
                        "score": 0.93,
                        "shared": 41,
                        "spans": [{"a_cell": 3, "a_lines": [[1, 2]], "b_cell": 4, "b_lines": [[1, 2]], "prints": 41}],
                    }
                ],
            }
        )
    )
    shown = out / "student0001.ipynb"  # two graded versions of one student, for the history and the diff
    for sha, body, answer in (
        ("cd" * 32, "def double(x):\n    return x + x\n", "ANSWER = 41"),
        ("ab" * 32, "def double(x):\n    # elementwise\n    return 2 * x\n", "ANSWER = 42"),
    ):
        error = {
            "output_type": "error",
            "ename": "AssertionError",
            "evalue": "ANSWER is not right",
            "traceback": ["AssertionError: ANSWER is not right"],
        }
        cells = [
            ("markdown", "## Exercise 1: double\n\nWrite `double(x)`: **elementwise**.", []),
            ("code", body, [{"output_type": "stream", "name": "stdout", "text": "tensor([2., 4.])\n"}]),
            ("code", 'check("double")', []),
            ("markdown", "## Exercise 2: the answer", []),
            ("code", answer, []),
            ("code", 'check("answer")', [error]),
        ]
        shown.write_text(
            json.dumps(
                {
                    "nbformat": 4,
                    "nbformat_minor": 5,
                    "metadata": {},
                    "cells": [
                        {
                            "cell_type": kind,
                            "metadata": {},
                            "source": src,
                            **({"execution_count": 1, "outputs": outs} if kind == "code" else {}),
                        }
                        for kind, src, outs in cells
                    ],
                }
            )
        )
        history.keep(out, dataclasses.replace(result("student0001_10001", (1, 1, 0.5, 0, 1)), sha256=sha), shown)
    roster = out / "roster.csv"
    roster.write_text("\n".join(lines) + "\n")
    return roster


def rubric(out: Path, n: int, rng: random.Random) -> None:
    """Rubric items on two exercises, each applied to a fifth to a third of the class by three TAs, the scores
    recorded as sent to the LMS then a few regraded (the regrade preview lists them), and the class split
    among the TAs by submission with some done."""
    from autograder.store import team

    g = assignment_grades(KIT, "toy", out)
    ids = [r.submission_id for r in g.counted if not r.provisional]
    items = []
    for ex, title, pts in (
        ("double", "dtype kept", 1.0),
        ("double", "loops instead of a vector op", -1.0),
        ("double", "see the broadcasting notes", 0.0),
        ("answer", "right reasoning", 0.5),
        ("answer", "units missing", -0.5),
    ):
        items.append(
            ov.rubric_add(
                assignment_grades(KIT, "toy", out), exercise=ex, title=title, points=pts, comment=title, by="TA Kim"
            )
        )
    for k, item in enumerate(items):
        g = assignment_grades(KIT, "toy", out)
        chosen = rng.sample(ids, len(ids) // rng.choice((3, 4, 5)))
        ov.rubric_apply(g, item.id, chosen, by=("TA Kim", "TA Lee", "TA Ana")[k % 3])
    g = assignment_grades(KIT, "toy", out)
    ov.record_sent(g, CANVAS_PAGE)
    gb = Gradebook(out / "gradebook.sqlite")
    for sid in ids[10:20]:
        gb.put(result(sid, (1, 1, 1, 1, 1)))
    gb.close()
    order = sorted(ids)
    team.split(
        out / "gradebook.sqlite",
        "toy",
        order,
        ["TA Kim", "TA Lee", "TA Ana"],
        unit="submission",
        how="even",
        by="TA Kim",
    )
    team.mark_done(out / "gradebook.sqlite", "toy", order[: n // 10], "", "TA Kim")


PAGES = {
    "course": "/",
    "assignment": "/a/toy",
    "assignment-filtered": "/a/toy?status=graded&late=yes&sort=score",
    "submission": "/a/toy/s/student0001_10001",
    "similarity": "/a/toy/similarity",
    "exercise": "/a/toy/e/double",
    "exercise-answer": "/a/toy/e/answer",
    "team": "/a/toy/team",
    "statistics": "/a/toy/stats",
    "regrade-preview": "/a/toy/changes",
}


CPU = [0.0]  # the server thread's CPU seconds for the last request answered


def timed(app: App) -> App:
    """`app` whose pages record the CPU time of the thread that computes them (`CPU`)."""
    answer = app.answer

    def answer_timed(*args):
        t = time.thread_time()
        try:
            return answer(*args)
        finally:
            CPU[0] = time.thread_time() - t

    app.answer = answer_timed  # type: ignore[method-assign]
    return app


PREFIX = [""]  # the instance's prefix, before every page's path


def fetch(port: int, path: str, cookie: str, method: str = "GET", body: bytes = b"") -> tuple[int, float, float, bytes]:
    """(status, wall seconds, the server's CPU seconds, body) of one request, as a browser on the workspace's
    own page sends it."""
    c = http.client.HTTPConnection("127.0.0.1", port, timeout=60)
    headers = {"Cookie": cookie}
    if method == "POST":
        headers.update({"Content-Type": "application/x-www-form-urlencoded", "Origin": f"http://127.0.0.1:{port}"})
    t = time.perf_counter()
    c.request(method, PREFIX[0] + path, body=body or None, headers=headers)
    r = c.getresponse()
    content = r.read()
    wall = time.perf_counter() - t
    c.close()
    return r.status, wall, CPU[0], content


def ms(wall: float, cpu: float) -> dict[str, float]:
    return {"ms": round(1000 * wall, 1), "cpu_ms": round(1000 * cpu, 1)}


def screenshots(base: str, folder: Path) -> None:
    from selenium import webdriver
    from selenium.webdriver.chrome.options import Options
    from selenium.webdriver.chrome.service import Service

    options = Options()
    options.binary_location = shutil.which("chromium")
    for flag in ("--headless=new", "--no-sandbox", "--disable-gpu", "--window-size=1400,1000"):
        options.add_argument(flag)
    driver = webdriver.Chrome(service=Service(shutil.which("chromedriver")), options=options)
    try:
        driver.get(f"{base}/?token={TOKEN}")
        for name in (
            "course",
            "assignment",
            "submission",
            "exercise",
            "similarity",
            "team",
            "statistics",
            "regrade-preview",
        ):
            driver.get(base + PAGES[name] + ("?status=graded&sort=score" if name == "assignment" else ""))
            folder.mkdir(parents=True, exist_ok=True)
            driver.save_screenshot(str(folder / f"workspace-{name}.png"))
    finally:
        driver.quit()


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--students", type=int, default=1000)
    p.add_argument("--screenshots", type=Path)
    args = p.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        out, kit = Path(tmp) / "results", Path(tmp) / "kit"
        shutil.copytree(KIT, kit)
        manifest = kit / "assignments" / "toy" / "manifest.toml"
        manifest.write_text(
            manifest.read_text() + f'\n[deadline]\ndue = "{DUE}"\npenalty_percent = 10\nperiod = "day"\n'
        )
        roster = synthesize(out, args.students)
        from autograder.config.course import Course

        course_file = Path(tmp) / "course.toml"
        course_file.write_text(
            '[canvas]\nurl = "https://canvas.example.edu"\ncourse = 7\n[assignments.toy]\ncanvas_assignment = 42\n'
        )
        ws = Workspace(kit, out, roster, Course(course_file.resolve(), CANVAS))
        wall, cpu = time.perf_counter(), time.process_time()
        ws.warm()  # as `autograder serve` does before printing its address
        start = ms(time.perf_counter() - wall, time.process_time() - cpu)
        access = Access({TOKEN: "bench"})
        PREFIX[0] = access.prefix
        server = Running(timed(App(ws, access)).asgi)
        port = int(server.base.rsplit(":", 1)[1])
        c = http.client.HTTPConnection("127.0.0.1", port)
        c.request("GET", f"{access.prefix}/?token={TOKEN}")
        cookie = c.getresponse().getheader("Set-Cookie").split(";")[0]
        c.close()
        timings = {}
        for name, path in PAGES.items():
            runs = []
            for _ in range(5):
                status, wall, cpu, _ = fetch(port, path, cookie)
                assert status == 200, (name, status)
                runs.append((wall, cpu))
            timings[name] = ms(statistics.median(w for w, _ in runs), statistics.median(c for _, c in runs))
        after = {}
        form = fetch(port, PAGES["submission"].replace("0001_10001", "0003_10003"), cookie)[3].decode()
        csrf = re.search(r'name="csrf" value="([^"]+)"', form).group(1)
        basis = re.search(r'name="basis" value="([^"]+)"', form).group(1)
        status, wall, cpu, _ = fetch(
            port,
            "/a/toy/s/student0003_10003/override",
            cookie,
            "POST",
            urlencode({"csrf": csrf, "basis": basis, "test": "", "score": "9", "comment": "bench"}).encode(),
        )
        assert status == 303, status
        after["override_post"] = ms(wall, cpu)
        status, wall, cpu, _ = fetch(port, PAGES["assignment"], cookie)
        after["assignment"] = ms(wall, cpu)
        form = fetch(port, "/a/toy/s/student0006_10006", cookie)[3].decode()
        item = re.search(r'name="item" value="(\d+)"', form).group(1)
        basis = re.search(r'name="basis" value="([^"]+)"', form).group(1)
        status, wall, cpu, _ = fetch(
            port,
            "/a/toy/s/student0006_10006/item",
            cookie,
            "POST",
            urlencode({"csrf": csrf, "basis": basis, "item": item, "action": "apply"}).encode(),
        )
        assert status == 303, status
        after["item_post"] = ms(wall, cpu)
        status, wall, cpu, _ = fetch(port, PAGES["assignment"], cookie)
        after["assignment_after_item"] = ms(wall, cpu)
        ov.set_override(
            assignment_grades(kit, "toy", out, roster_csv=roster),
            "student0004_10004",
            test=None,
            score=8,
            comment="bench, from a terminal",
            by="bench",
        )
        status, wall, cpu, _ = fetch(port, PAGES["assignment"], cookie)
        after_cli = {"assignment": ms(wall, cpu)}
        gb = Gradebook(out / "gradebook.sqlite")
        gb.put(result("student0005_10005", (1, 1, 1, 1, 0)))
        gb.close()
        status, wall, cpu, _ = fetch(port, PAGES["assignment"], cookie)
        after_regrade = {"assignment": ms(wall, cpu)}
        gb = Gradebook(out / "gradebook.sqlite")
        gb.put(result("late_joiner_99999", (1, 1, 0, 0, 0)))
        gb.close()
        status, wall, cpu, _ = fetch(port, PAGES["assignment"], cookie)
        after_new = {"assignment": ms(wall, cpu)}
        if args.screenshots:
            screenshots(server.base + access.prefix, args.screenshots)
        server.stop()
    pages = [t["ms"] for t in timings.values()] + [
        t["ms"] for t in (after["assignment"], after["assignment_after_item"], after_cli["assignment"])
    ]
    print(
        json.dumps(
            {
                "students": args.students,
                "start": start,
                "pages": timings,
                "after_override": after,
                "after_cli_override": after_cli,
                "after_regrade": after_regrade,
                "after_new_submission": after_new,
                "worst_page_ms": max(pages),
                "under_300_ms": max(pages) < 300,
                "load_average": os.getloadavg(),
                "cpus": os.cpu_count(),
            },
            indent=1,
        )
    )


if __name__ == "__main__":
    main()
