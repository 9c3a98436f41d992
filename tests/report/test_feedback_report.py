"""Student feedback (HTML + Markdown) and the instructor report (its own checks: test_instructor_report.py);
both render in headless Chromium."""

import re
from datetime import datetime, timezone

from autograder.config.deadline import LatePolicy
from autograder.grades.late import apply_late_policy
from autograder.grades.rows import grade_rows
from autograder.intake.roster import Identity
from autograder.report.feedback import render_html, render_markdown, write_feedback
from autograder.report.instructor_report import write_report
from tests.chromium import needs_chromium, render
from tests.grades.factory import cell_error, grader_failure, result

HIDDEN_MSG = "tensors differ at index 3: got 5.0, expected 6.0"


def partial(policy="summary"):
    return result(
        "alice",
        (0, 0.5, 1, "error", 1),
        status="crashed",
        policy=policy,
        hidden_msg=HIDDEN_MSG,
        message="cell 3 raised",
        cells=[cell_error()],
    )


def test_feedback_summary_policy_hides_hidden_messages():
    html = render_html(partial(), Identity("a1", "Alice Liddell"))
    assert "Alice Liddell" in html and "5.5 / 10" in html
    assert HIDDEN_MSG not in html  # hidden test: name + outcome only
    assert "double() agrees with the reference" in html
    assert "expected [2., 4.], got [1., 2.]" in html  # public test message shown ...
    assert "Hint: Multiplying a tensor by a Python number is elementwise." in html  # ... with its hint
    assert "&lt;script&gt;alert(1)&lt;/script&gt;" in html and "<script>" not in html  # student code escaped
    assert "ZeroDivisionError" in html and "Cell 3" in html
    assert not re.search(r"(src|href)=\"(https?:)?//", html)  # no external assets


def test_feedback_messages_policy_and_markdown():
    md = render_markdown(partial("messages"), Identity("a1", "Alice"))
    assert HIDDEN_MSG in md and "**Score: 5.5 / 10**" in md
    assert (
        "```python\nx = 1 / 0" in md and "| 2 | ` double() on a known vector ` | ` double ` | 0 / 1 | failed |" in md
    )  # after `answer`: no master order, alphabetical
    assert md.startswith("# toy: feedback for Alice\n") and "| ` double ` | 3.5 / 6 | 1 of 3 passed |" in md
    assert HIDDEN_MSG not in render_markdown(partial("summary"))


def test_feedback_with_late_penalty(tmp_path):
    r = result("bob")
    who = Identity("b", "Bob", submitted_at=datetime(2026, 10, 3, tzinfo=timezone.utc))
    late = apply_late_policy(
        r.score,
        r.max_score,
        who.submitted_at,
        LatePolicy.from_table({"due": "2026-10-01T23:59:00+00:00", "penalty_percent": 10}),
    )
    html, md = write_feedback(tmp_path, r, who, late, title="Homework 1")
    text = md.read_text()
    assert "**Score: 8 / 10**" in text and "2 days' penalty" in text
    assert "Homework 1" in html.read_text()


def klass():
    rs = [result(f"s{i:02d}", (1, 1, (i % 3) / 2, 1 if i % 4 else 0, 1), time=1 + i) for i in range(12)]
    rs += [
        partial(),
        grader_failure("ghost"),
        result("inv", (0, 0, 0, 0, 0), status="invalid", message="not JSON"),
        result("assign_bug", (1, "error", 1, 1, 1), hidden_msg="fixture raised KeyError 'x'"),
    ]
    return rs


@needs_chromium
def test_pages_render_in_headless_chromium(tmp_path):
    import matplotlib.image

    feedback, _ = write_feedback(tmp_path, partial())
    report = write_report(tmp_path / "report.html", grade_rows(klass()), title="Toy")
    for page in (feedback, report):
        shot = tmp_path / f"{page.stem}.png"
        dom = render(page, shot, 1200, 1600)
        img = matplotlib.image.imread(shot)
        assert img.shape[:2] == (1600, 1200)
        assert img[..., :3].std() > 0.05  # not a blank page
        assert 'id="title"' in dom and 'id="tests"' in dom
