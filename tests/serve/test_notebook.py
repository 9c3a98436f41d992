"""A submitted notebook rendered for the grade-by-submission page: as the student saw it (Markdown rendered,
outputs with images, errors), cut into exercises beside their tests, and inert and bounded however hostile."""

from __future__ import annotations

import base64

from autograder.notebook.cells import exercise_of_cells
from autograder.serve import notebook_view as notebook
from autograder.serve.pages import _sections
from tests.grades.factory import result
from tests.serve.conftest import HOSTILE
from tests.serve.conftest import notebook as nb_json

PNG = "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg=="
JPEG = base64.b64encode(b"\xff\xd8\xff\xe0" + b"\0" * 16).decode()
SVG = '<svg xmlns="http://www.w3.org/2000/svg" onload="alert(1)"><script>alert(2)</script><circle r="5"/></svg>'


def _html(cells) -> str:
    """Every piece of the rendered cells as a page would hold it (escaped text, sanitised HTML)."""
    from markupsafe import escape

    parts = []
    for c in cells:
        parts.append(str(c["html"]) if c["html"] is not None else str(escape(c["source"])))
        for o in c["outputs"]:
            parts.append(str(o["html"]) if o["kind"] == "html" else o.get("src") or str(escape(o.get("text", ""))))
    return "\n".join(parts)


def test_hostile_notebook_renders_nothing_that_runs(tmp_path):
    path = tmp_path / "h.ipynb"
    path.write_text(
        nb_json(
            [
                (
                    "markdown",
                    "# Title\n\n**bold** and a [link](https://example.org) "
                    + HOSTILE
                    + "\n\n[x](javascript:alert(1)) <a href=\"javascript:alert(3)\">y</a> <a href=\"data:text/html,<script>\">z</a>"
                    + "\n\n<img src=\"x\" onerror=\"alert(4)\"> <form action=\"http://198.51.100.1/\"><input></form>"
                    + "<style>body{display:none}</style><div style=\"background:url(http://198.51.100.1/)\">styled</div>",
                    [],
                ),
                (
                    "code",
                    "x = 1",
                    [
                        {
                            "output_type": "display_data",
                            "data": {
                                "text/html": "<table><tr><td onclick=\"alert(5)\">1</td></tr></table>" + HOSTILE,
                                "text/plain": "df",
                            },
                        },
                        {"output_type": "display_data", "data": {"image/svg+xml": SVG}},
                        {"output_type": "display_data", "data": {"image/png": PNG}},
                        {"output_type": "display_data", "data": {"image/jpeg": JPEG}},
                        {"output_type": "display_data", "data": {"image/png": '" onerror="alert(6)'}},
                        {
                            "output_type": "error",
                            "ename": "ValueError",
                            "evalue": "<b>bad</b>",
                            "traceback": ["\x1b[0;31mValueError\x1b[0m: <b>bad</b>", "\x1b]8;;http://x\x07link"],
                        },
                    ],
                ),
            ]
        )
    )
    cells, why = notebook.render(path, {2})
    assert why == "" and [c["type"] for c in cells] == ["markdown", "code"] and cells[1]["fail"]
    page = _html(cells)
    md = str(cells[0]["html"])
    assert "<h1>Title</h1>" in md and "<strong>bold</strong>" in md and 'href="https://example.org"' in md
    for bad in (
        "<script",
        'onerror="',
        'onload="',
        'onclick="',
        'href="javascript:',
        "data:text",
        "<svg",
        "<iframe",
        "<form",
        "<input",
        "<style",
        'style="',
        "<link",
        "<img",
        'http://198.51.100.1/"',
    ):
        assert bad not in page.replace('src="data:image', ""), bad
    kinds = [o["kind"] for o in cells[1]["outputs"]]
    assert kinds == ["html", "svg", "image", "image", "error"]  # the broken PNG is dropped
    assert "<td>1</td>" in str(cells[1]["outputs"][0]["html"])  # a pandas-like table stays a table
    assert cells[1]["outputs"][1]["text"] == SVG  # an SVG is text, escaped by the template
    assert [o["src"][:22] for o in cells[1]["outputs"][2:4]] == ["data:image/png;base64,", "data:image/jpeg;base64"]
    error = cells[1]["outputs"][4]["text"]
    assert "\x1b" not in error and "\x07" not in error and "ValueError: <b>bad</b>" in error


def test_huge_outputs_are_cut_and_the_page_keeps_its_budget(tmp_path):
    path = tmp_path / "big.ipynb"  # 15 MB, under the grader's 20 MB notebook cap
    spam = {"output_type": "stream", "name": "stdout", "text": "spam\n" * 5_000}
    path.write_text(nb_json([("code", f"print({i})", [spam] * 20) for i in range(30)]))
    cells, why = notebook.render(path, set())
    assert why == "" and all(len(c["outputs"]) <= notebook.MAX_OUTPUTS for c in cells)
    assert all(len(o["text"]) <= notebook.MAX_TEXT + 100 for c in cells for o in c["outputs"])
    assert "cut: 5,000 more characters" in cells[0]["outputs"][0]["text"]
    assert cells[-1]["type"] == "cut" and "to 30 are past" in cells[-1]["source"] and len(cells) == 30
    assert sum(notebook._size(c) for c in cells) <= notebook.PAGE_BUDGET


def test_cells_are_cut_into_exercises_beside_their_tests(tmp_path):
    sources = [
        "# Intro",
        "## Double",
        "def double(x):\n    return x * 2",
        'check("double")',
        "## The answer",
        "ANSWER = 41",
        'check("answer")',
        "# What's next",
    ]
    assert exercise_of_cells(sources) == ["double"] * 4 + ["answer"] * 3 + [""]
    path = tmp_path / "n.ipynb"
    path.write_text(nb_json([("markdown" if s.startswith("#") else "code", s, []) for s in sources]))
    cells, _ = notebook.render(path, {6})
    r = result("s", (1, 1, 0.5, 0, 1))
    sections = _sections(cells, r.tests, ["double", "answer", "later"])
    assert [(s["exercise"], [c["number"] for c in s["cells"]], len(s["tests"])) for s in sections] == [
        ("double", [1, 2, 3, 4], 3),
        ("answer", [5, 6, 7], 1),
        ("", [8], 0),
        ("later", [], 1),
    ]
    double, answer = sections[0], sections[1]
    assert (double["score"], double["max"], len(double["failed"]), len(double["passed"])) == (5.0, 6.0, 1, 2)
    assert answer["bad_cells"] == 1 and answer["failed"][0].name == "ANSWER is right"
