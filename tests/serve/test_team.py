"""A team of TAs over plain HTTP: two on one submission (who else has it open; a form based on what the other
has since changed refused with what changed), the class split among them with "next for me" and progress,
anonymous grading and its recorded reveal, and the statistics page's pass rates and per-TA adjustments."""

from __future__ import annotations

import re
from urllib.parse import urlencode

import pytest

from tests.serve.conftest import trail  # noqa: E402
from tests.serve.test_http import basis, request

FORM = {"Content-Type": "application/x-www-form-urlencoded"}
ANSWER = "hidden/test_double.py::test_answer"


def sign_in(base, token) -> dict[str, str]:
    status, headers, _ = request(base, "GET", f"/?token={token}")
    assert status == 303
    return {"Cookie": headers["set-cookie"].split(";")[0]}


def csrf(page: bytes) -> str:
    return re.search(rb'name="csrf" value="([0-9a-f]+)"', page).group(1).decode()


def post(base, path, cookie, page, **fields):
    return request(base, "POST", path, {**cookie, **FORM}, urlencode({"csrf": csrf(page), **fields}).encode())


def test_two_tas_on_one_submission(team):

    base, tokens, out, *_ = team
    kim, lee = sign_in(base, tokens["TA Kim"]), sign_in(base, tokens["TA Lee"])
    page_kim = request(base, "GET", "/a/toy/s/student1_1001", kim)[2]
    assert b'id="others"' not in page_kim
    page_lee = request(base, "GET", "/a/toy/s/student1_1001", lee)[2].decode()
    assert re.search(r'id="others">Also open: <strong>TA Kim</strong>', page_lee)
    status, _, _ = post(
        base,
        "/a/toy/s/student1_1001/override",
        kim,
        page_kim,
        test=ANSWER,
        score="2",
        comment="right idea",
        basis=basis(page_kim),
    )
    assert status == 303
    status, _, body = post(
        base,
        "/a/toy/s/student1_1001/override",
        lee,
        page_lee.encode(),
        test=ANSWER,
        score="0",
        comment="no: wrong",
        basis=basis(page_lee),
    )
    text = body.decode()
    assert status == 409 and "Not applied" in text and "TA Kim set ANSWER is right of student1_1001: 0 → 2" in text
    assert [(o.by, o.new_score) for o in trail(out, "toy", "student1_1001")] == [("TA Kim", 2.0)]
    status, _, _ = post(
        base,
        "/a/toy/s/student1_1001/override",
        lee,
        text.encode(),
        test=ANSWER,
        score="1",
        comment="half",
        basis=basis(text),
    )  # the refused page is the page as it is now
    assert status == 303
    assert (
        post(
            base,
            "/a/toy/s/student1_1001/override",
            lee,
            text.encode(),
            test=ANSWER,
            score="1",
            comment="half",
            basis="",
        )[0]
        == 409
    )  # no basis: refused too
    request(base, "GET", "/a/toy/s/student2_1002", kim)  # Kim moved on: no longer has it open
    assert b'id="others"' not in request(base, "GET", "/a/toy/s/student1_1001", lee)[2]


def test_split_next_for_me_and_progress(team):
    from autograder.store import team as team_store

    base, tokens, out, *_ = team
    kim, lee = sign_in(base, tokens["TA Kim"]), sign_in(base, tokens["TA Lee"])
    status, headers, _ = request(base, "GET", "/a/toy/next", kim)
    assert status == 303 and headers["location"].endswith("/a/toy/team?done=all")  # no split yet
    page = request(base, "GET", "/a/toy/team", kim)[2]
    status, _, _ = post(
        base, "/a/toy/team/split", kim, page, unit="submission", how="even", **{"ta:TA Kim": "1", "ta:TA Lee": "1"}
    )
    assert status == 303
    s = team_store.current(out / "gradebook.sqlite", "toy")
    assert (s.unit, s.how, s.by) == ("submission", "even", "TA Kim")
    order = ["student0_1000", "student1_1001", "student2_1002", "student3_1003", "hostile_666"]
    graded = [x for x in order if x in s.shares]
    assert sorted(graded) == sorted(order) and sorted(s.shares.values()).count("TA Kim") == 3
    mine = [x for x in sorted(s.shares, key=lambda x: x) if s.shares[x] == "TA Kim"]
    status, headers, _ = request(base, "GET", "/a/toy/next", kim)
    first = headers["location"].rsplit("/", 1)[1]
    assert status == 303 and s.shares[first] == "TA Kim"
    page = request(base, "GET", f"/a/toy/s/{first}", kim)[2]
    assert b'id="nav-mine"' in page
    status, headers, _ = post(base, f"/a/toy/s/{first}/done", kim, page)
    second = headers["location"].rsplit("/", 1)[1]
    assert status == 303 and second != first and s.shares[second] == "TA Kim"
    progress = request(base, "GET", "/a/toy/team", lee)[2].decode()
    assert re.search(r"<td>TA Kim</td><td>3 submissions</td><td class=\"num\">1 / 3</td>", progress)
    assert re.search(r"<td>TA Lee</td><td>2 submissions</td><td class=\"num\">0 / 2</td>", progress)
    for sid in mine:
        page = request(base, "GET", f"/a/toy/s/{sid}", kim)[2]
        post(base, f"/a/toy/s/{sid}/done", kim, page)
    assert request(base, "GET", "/a/toy/next", kim)[1]["location"].endswith("/a/toy/team?done=all")
    # by exercise, at random: the seed recorded, each TA sent to an exercise page
    page = request(base, "GET", "/a/toy/team", kim)[2]
    assert (
        post(
            base, "/a/toy/team/split", kim, page, unit="exercise", how="random", **{"ta:TA Kim": "1", "ta:TA Lee": "1"}
        )[0]
        == 303
    )
    s = team_store.current(out / "gradebook.sqlite", "toy")
    assert s.unit == "exercise" and s.seed and set(s.shares) == {"answer", "double", "later"}
    assert team_store.share(list(s.shares), ["TA Kim", "TA Lee"], "random", s.seed) == s.shares  # reproducible
    where = request(base, "GET", "/a/toy/next", lee)[1]["location"]
    assert re.search(r"/a/toy/e/(answer|double|later)$", where) and s.shares[where.rsplit("/", 1)[1]] == "TA Lee"
    assert post(base, "/a/toy/team/split", kim, page, unit="exercise", how="sideways", **{"ta:TA Kim": "1"})[0] == 400


@pytest.mark.parametrize("team", [True], indirect=True)
def test_anonymous_grading_until_revealed(team):
    from autograder.store import team as team_store

    base, tokens, out, *_ = team
    kim = sign_in(base, tokens["TA Kim"])
    for path in (
        "/",
        "/a/toy",
        "/a/toy?sort=who",
        "/a/toy/s/student1_1001",
        "/a/toy/e/double",
        "/a/toy/similarity",
        "/a/toy/changes",
    ):
        page = request(base, "GET", path, kim)[2].decode()
        text = re.sub(r'(href|value|action)="[^"]*"', "", page)  # addresses and form fields hold ids, not names
        leaks = re.findall(r".{0,80}student1.{0,40}", text)
        leaks += re.findall(r".{0,80}hostile_666.{0,40}", text)
        assert not leaks, (path, leaks)
        assert re.search(r"Student \d+", text) or path in ("/", "/a/toy/changes"), path
    page = request(base, "GET", "/a/toy", kim)[2]
    assert b'id="reveal"' in page
    assert team_store.revealed(out / "gradebook.sqlite", "toy") is None
    assert post(base, "/a/toy/reveal", kim, page)[0] == 303
    who, at = team_store.revealed(out / "gradebook.sqlite", "toy")
    assert who == "TA Kim"
    page = request(base, "GET", "/a/toy", kim)[2].decode()
    assert "Names revealed by TA Kim" in page and "student1_1001</a>" in page
    assert "Student 1" in request(base, "GET", "/a/toy/s/student1_1001", kim)[2].decode()


def test_statistics_per_exercise(team):
    base, tokens, out, *_ = team
    kim, lee = sign_in(base, tokens["TA Kim"]), sign_in(base, tokens["TA Lee"])
    for who, sid, score in ((kim, "student1_1001", "2"), (lee, "student3_1003", "0.5")):
        page = request(base, "GET", f"/a/toy/s/{sid}", who)[2]
        assert (
            post(base, f"/a/toy/s/{sid}/override", who, page, test=ANSWER, score=score, comment="c", basis=basis(page))[
                0
            ]
            == 303
        )
    page = request(base, "GET", "/a/toy/stats", kim)[2].decode()
    answer = page[page.index('id="stats-answer"') :]
    answer = answer[: answer.index("</section>")]
    assert "ANSWER is right" in answer and "2 / 5" in answer  # passed by student0 and student2
    assert "<td>TA Kim</td><td class=\"num\">1</td><td class=\"num\">+2</td>" in answer
    assert "<td>TA Lee</td><td class=\"num\">1</td><td class=\"num\">+0.5</td>" in answer
    from autograder.pipeline import rubric_add, rubric_apply
    from autograder.store.folder import assignment_grades

    kit, roster = team[3], team[4]
    item = rubric_add(
        assignment_grades(kit, "toy", out, roster_csv=roster),
        exercise="answer",
        title="units",
        points=-0.5,
        comment="say the units",
        by="TA Lee",
    )
    rubric_apply(
        assignment_grades(kit, "toy", out, roster_csv=roster), item.id, ["student0_1000", "student2_1002"], by="TA Lee"
    )
    page = request(base, "GET", "/a/toy/stats", kim)[2].decode()
    answer = page[page.index('id="stats-answer"') :]
    answer = answer[: answer.index("</section>")]
    assert "<td>units</td><td class=\"num\">-0.5</td><td class=\"num\">2</td>" in answer
    assert "<td>TA Lee</td><td class=\"num\">3</td><td class=\"num\">-0.167</td>" in answer  # (0.5 - 0.5 - 0.5) / 3
    later = page[page.index('id="stats-later"') :]
    assert "public" not in later and "No adjustment yet" in later[: later.index("</section>")]


def test_an_item_applied_over_another_tas_change_is_refused(team):
    """The basis covers rubric items too: Lee's key press, on a page drawn before Kim applied an item to the
    same submission, is refused with what Kim did; nothing of Lee's is recorded."""
    from autograder.pipeline import rubric_add
    from autograder.store.folder import assignment_grades
    from autograder.store.marks import Marks

    base, tokens, out, kit, roster = team
    item = rubric_add(
        assignment_grades(kit, "toy", out, roster_csv=roster),
        exercise="double",
        title="dtype kept",
        points=1,
        comment="float32 kept",
        by="Prof",
    )
    other = rubric_add(
        assignment_grades(kit, "toy", out, roster_csv=roster),
        exercise="double",
        title="loops",
        points=-1,
        comment="use a tensor op",
        by="Prof",
    )
    kim, lee = sign_in(base, tokens["TA Kim"]), sign_in(base, tokens["TA Lee"])
    page_kim = request(base, "GET", "/a/toy/s/student1_1001", kim)[2]
    page_lee = request(base, "GET", "/a/toy/s/student1_1001", lee)[2]
    assert (
        post(
            base, "/a/toy/s/student1_1001/item", kim, page_kim, item=str(item.id), action="apply", basis=basis(page_kim)
        )[0]
        == 303
    )
    status, _, body = post(
        base, "/a/toy/s/student1_1001/item", lee, page_lee, item=str(other.id), action="apply", basis=basis(page_lee)
    )
    assert status == 409 and "TA Kim applied “dtype kept” to student1_1001" in body.decode()
    assert [(a.item_id, a.by) for a in Marks(out).applied("toy")] == [(item.id, "TA Kim")]


def test_answer_cells_leave_out_the_released_scaffolding(tmp_path):
    from autograder.serve.notebook_view import answer_cells, code_cells
    from tests.serve.conftest import notebook

    setup = "%pip install course\nimport torch\nfrom course import Checker\ncheck = Checker('toy')\n"
    stub = "def double(x):\n    raise NotImplementedError\n"
    released = tmp_path / "released.ipynb"
    released.write_text(notebook([("code", setup, []), ("code", stub, []), ("code", 'check("double")', [])]))
    mine = tmp_path / "mine.ipynb"
    mine.write_text(
        notebook(
            [
                ("code", setup + "\n", []),
                ("code", "def double(x):\n    return 2 * x\n", []),
                ("code", "print(double(3))", []),
                ("code", 'check("double")', []),
            ]
        )
    )
    shown = answer_cells(mine, "double", set(), code_cells(released))
    assert [c["source"] for c in shown] == ["def double(x):\n    return 2 * x\n", "print(double(3))"]
    assert [c["number"] for c in answer_cells(mine, "double", {1}, code_cells(released))] == [1, 2, 3]  # failed: shown
