"""The instructor report: per-exercise pass rates, roster names, missing students, lateness, statuses,
times, common failures; plots checked on their matplotlib axes, the page in headless Chromium."""

import base64
import re
from dataclasses import replace
from datetime import datetime, timezone
from html.parser import HTMLParser

import pytest

from autograder.config.deadline import LatePolicy
from autograder.grades.rows import grade_rows
from autograder.intake.roster import Identity
from autograder.report.escape import plot_label
from autograder.report.instructor_report import (
    EXAMPLE_MESSAGE_CHARS,
    exercise_figure,
    histogram_figure,
    render_report,
    write_report,
)
from tests.chromium import needs_chromium, render
from tests.grades.factory import grader_failure, result

pytest.importorskip("matplotlib")

DUE = "2026-10-01T23:59:00+00:00"
LONG = "got <b>5.0</b> " + "x" * 2000


class Tables(HTMLParser):
    """Every table by id: a list of rows, each a list of cell texts."""

    def __init__(self, html: str):
        super().__init__()
        self.tables: dict[str, list[list[str]]] = {}
        self._table = self._row = self._cell = None
        self.imgs: list[str] = []
        self.feed(html)

    def handle_starttag(self, tag, attrs):
        a = dict(attrs)
        if tag == "table":
            self._table = self.tables.setdefault(a.get("id", ""), [])
        elif tag == "tr" and self._table is not None:
            self._row = []
            self._table.append(self._row)
        elif tag in ("td", "th") and self._row is not None:
            self._cell = []
        elif tag == "img":
            self.imgs.append(a["src"])

    def handle_endtag(self, tag):
        if tag in ("td", "th") and self._cell is not None:
            self._row.append("".join(self._cell).strip())
            self._cell = None
        elif tag == "table":
            self._table = self._row = None

    def handle_data(self, data):
        if self._cell is not None:
            self._cell.append(data)

    def body(self, tid: str) -> list[list[str]]:
        return self.tables[tid][1:]


def klass():
    """12 graded (one late), a crashed one, a grader failure, an invalid, a timeout, a provisional one; an
    exercise ("later") nobody passes; roster names for all; two roster students without a submission."""
    rs = [
        result(
            f"s{i:02d}",
            (1, 1, (i % 3) / 2, 1 if i % 4 else 0, 0),
            time=1 + i,
            hidden_msg=LONG if i == 0 else "tensors differ",
        )
        for i in range(12)
    ]
    rs += [
        result("cr", (0, 0.5, 1, "error", 0), status="crashed", message="cell 3 raised"),
        grader_failure("ghost"),
        result("inv", (0, 0, 0, 0, 0), status="invalid", message="not JSON"),
        result("slow", (0, 0, 0, 0, 0), status="timeout", time=600.0),
        replace(result("prov", (1, 1, 1, 1, 0)), provisional="host fault"),
    ]
    names = {r.submission_id: Identity(f"id-{r.submission_id}", f"Student {r.submission_id.upper()}") for r in rs}
    names["s03"] = replace(names["s03"], submitted_at=datetime(2026, 10, 3, 12, tzinfo=timezone.utc))
    missing = [Identity("m1", "Zed Absent", email="zed@example.edu"), Identity("m2", "Amy Away")]
    return rs, names, missing


def page(order=()):
    rs, names, missing = klass()
    policy = LatePolicy.from_table({"due": DUE, "penalty_percent": 10})
    return render_report(rs, title="Toy", identities=names, missing=missing, policy=policy, order=order)


def test_exercises_in_the_notebooks_order_with_zero_listed():
    """As every face lists them (`notebook.cells.exercise_key`): the master's order, not the hardest first."""
    ex = Tables(page(["double", "later", "answer"])).body("exercises")
    assert [row[0] for row in ex] == ["double", "later", "answer"]
    assert dict((row[0], row[3]) for row in ex)["later"] == "0%"  # nobody passes it: listed, at its place
    # the grader failure and the provisional result are not in the statistics: 15 scored submissions
    assert all(row[2] == "15" for row in ex)
    assert [row[0] for row in Tables(page()).body("exercises")] == ["answer", "double", "later"]  # no master's order


def test_roster_names_missing_students_and_statuses():
    t = Tables(page())
    everyone = [row[0] for row in t.body("all")]
    rs, names, missing = klass()
    assert set(everyone) == {i.name for i in names.values()} | {"Zed Absent", "Amy Away"}
    assert everyone == sorted(everyone, key=str.casefold)
    assert [row[0] for row in t.body("missing")] == ["Amy Away", "Zed Absent"]
    assert ["Zed Absent", "m1", "zed@example.edu"] in t.body("missing")
    head, counts = t.tables["statuses"]
    assert dict(zip(head, counts)) == {
        "graded": "13",
        "invalid": "1",
        "timeout": "1",
        "crashed": "2",
        "provisional": "1",
        "missing": "2",
    }


def test_lateness_time_and_common_failures():
    t = Tables(page())
    late = t.body("late")
    assert len(late) == 1 and late[0][0] == "Student S03" and "penalty" in late[0][1]
    assert late[0][2] == "2" and late[0][3].replace(" ", "") == "6→4"  # 2 days at 10 % of 10
    s03 = next(row for row in t.body("all") if row[0] == "Student S03")
    assert s03[2] == "4 / 10" and s03[3] == "2"
    summary = t.body("summary")[0]
    assert summary[6] == "5.5 s" and summary[7] == "600.0 s"  # median, slowest (the grader failure ran nothing)
    assert t.body("slowest")[0][:2] == ["Student SLOW", "600.0 s"]
    fails = t.body("failures")
    counts = [int(row[2].split("/")[0]) for row in fails]
    assert counts == sorted(counts, reverse=True) and fails[0][1] == "later"
    example = next(row[3] for row in fails if row[0].startswith("double() keeps"))
    assert example.startswith("got <b>5.0</b>") and len(example) < EXAMPLE_MESSAGE_CHARS + 100  # cut
    assert "&lt;b&gt;5.0&lt;/b&gt;" in page()  # escaped
    # a test that errored (could not check an answer) is listed with its full message: a likely assignment bug
    assert t.body("errors") == [
        ["Student CR", "cr", "hidden/test_double.py::test_answer", "tensors differ at index 3: got 5.0, expected 6.0"]
    ]


def test_plots_are_inline_pngs():
    imgs = Tables(page()).imgs
    assert len(imgs) == 2
    for src in imgs:
        assert src.startswith("data:image/png;base64,")
        assert base64.b64decode(src.split(",", 1)[1])[:8] == b"\x89PNG\r\n\x1a\n"


def test_histogram_counts_are_integers():
    import matplotlib.pyplot as plt

    fig = histogram_figure([3.0, 7.5, 7.5, 10.0], 10.0)  # 2 is the tallest bar: matplotlib would tick 0.25
    ticks = fig.axes[0].get_yticks()
    plt.close(fig)
    assert len(ticks) >= 2 and all(float(y).is_integer() for y in ticks)


def test_zero_percent_bar_is_drawn_and_labelled():
    import matplotlib.pyplot as plt

    exercises = [{"exercise": "later", "pass_rate": 0.0}, {"exercise": "double", "pass_rate": 0.5}]
    fig = exercise_figure(exercises)
    ax = fig.axes[0]
    stubs = [p for p in ax.patches if p.get_facecolor()[3] == 0 and p.get_width() > 0]
    texts = [x.get_text() for x in ax.texts]
    labels = [x.get_text() for x in ax.get_yticklabels()]
    plt.close(fig)
    assert len(stubs) == 1 and stubs[0].get_y() < 0.5 < stubs[0].get_y() + 1  # on the first row
    assert texts == ["0%", "50%"] and labels == ["later", "double"]


def test_plot_label_is_literal_and_wrapped():
    assert plot_label("$x^2$") == r"\$x^2\$"  # no mathtext
    assert plot_label("a\x1b[31mb") == "a\\x1b[31mb"
    long = plot_label("word " * 40, width=20, lines=2)
    assert long.count("\n") == 1 and long.endswith("\u2026") and all(len(x) <= 20 for x in long.split("\n"))
    # a label matplotlib would parse as (broken) mathtext renders as text instead of raising
    import matplotlib.pyplot as plt

    fig = exercise_figure([{"exercise": "$\\frac{x$", "pass_rate": 0.0}])
    fig.canvas.draw()
    assert fig.axes[0].get_yticklabels()[0].get_text() == r"\$\frac{x\$"
    plt.close(fig)


def test_report_command_uses_the_roster(toy_kit, tmp_path):
    from tests.cli.test_commands import run, setup_out

    out = setup_out(tmp_path)
    assert run(["report", "toy", "--out", str(out), "--roster", str(tmp_path / "roster.csv")], toy_kit) == 0
    t = Tables((out / "toy" / "report.html").read_text())
    assert {row[0] for row in t.body("all")} == {"Smith, John", "Doe, Jane", "Roe, Rick"}
    assert [row[0] for row in t.body("missing")] == ["Roe, Rick"]


@needs_chromium
def test_report_renders_in_headless_chromium(tmp_path):
    import matplotlib.image

    rs, names, missing = klass()
    path = write_report(tmp_path / "report.html", grade_rows(rs, names, roster=missing), title="Toy")
    shot = tmp_path / "shot.png"
    dom = render(path, shot, 1280, 2400)
    assert shot.stat().st_size > 20_000
    img = matplotlib.image.imread(shot)
    assert img.shape[:2] == (2400, 1280) and img[..., :3].std() > 0.05  # not a blank page
    t = Tables(dom)
    assert [row[0] for row in t.body("missing")] == ["Amy Away", "Zed Absent"]
    assert len(t.body("all")) == len(rs) + 2 and len(t.imgs) == 2
    assert not re.search(r"(src|href)=\"(https?:)?//", dom)
