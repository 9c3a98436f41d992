"""Code that reads otherwise than it runs (issue 49 §3): a returned value hidden behind bidi controls (Trojan
Source, CVE-2021-42574), a zero-width space, a Cyrillic look-alike.  On every page that shows code (a
submission, grade by exercise, similarity) each such character is drawn as a visible ⟨U+…⟩ mark, none is left
to act, and the cell is flagged, as code hosts do; in headless Chromium, what the TA sees."""

from __future__ import annotations

import pytest

from autograder.report.escape import code_html, hidden_characters, hidden_warning
from tests.serve.test_browser import (
    CHROMIUM,
    DRIVER,
    browser,  # noqa: F401  (the fixture)
)


@pytest.mark.parametrize(
    "text,kinds",
    [
        (
            "return x\u202e # \u2066",
            [
                "U+202E RIGHT-TO-LEFT OVERRIDE (bidirectional control)",
                "U+2066 LEFT-TO-RIGHT ISOLATE (bidirectional control)",
            ],
        ),
        (
            "a\u200bb\ufeff\u2060\u00ad",
            [
                "U+00AD SOFT HYPHEN (invisible)",
                "U+200B ZERO WIDTH SPACE (invisible)",
                "U+2060 WORD JOINER (invisible)",
                "U+FEFF ZERO WIDTH NO-BREAK SPACE (invisible)",
            ],
        ),
        ("x\u3164 = 1\u00a0", ["U+00A0 NO-BREAK SPACE (unusual space)", "U+3164 HANGUL FILLER (invisible)"]),
        (
            "p\u0430ss = \uff58 + \U0001d431",
            [
                "U+0430 CYRILLIC SMALL LETTER A (looks like 'a')",
                "U+1D431 MATHEMATICAL BOLD SMALL X (looks like 'x')",
                "U+FF58 FULLWIDTH LATIN SMALL LETTER X (looks like 'x')",
            ],
        ),
        ("ok = 'é ü ß 中文 😀 ²'\r\n", []),
    ],
)
def test_hidden_characters_are_named_and_drawn(text, kinds):
    assert hidden_characters(text) == kinds
    shown = str(code_html(text))
    assert all(f"⟨U+{k[2:].split()[0]}⟩" in shown for k in kinds)
    assert not any(ch in shown for ch in "\u202e\u2066\u200b\ufeff\u2060\u00ad\u3164\u00a0")
    assert bool(str(hidden_warning(text))) == bool(kinds)
    assert "<script>" not in str(code_html("<script>\u202e")) and "&lt;script&gt;" in str(code_html("<script>"))


@pytest.mark.skipif(DRIVER is None or CHROMIUM is None, reason="chromium and chromium-driver are not installed")
def test_trojan_source_is_shown_and_flagged_on_every_page_of_code(workspace, browser):  # noqa: F811
    from selenium.webdriver.common.by import By

    base, token, *_ = workspace
    browser.get(f"{base}/?token={token}")
    for path in ["/a/toy/s/hostile_666", "/a/toy/e/double", "/a/toy/similarity"]:
        browser.get(base + path)
        text = browser.find_element(By.TAG_NAME, "body").text
        assert "⟨U+202E⟩" in text and "⟨U+2066⟩" in text and "⟨U+200B⟩" in text and "х⟨U+0445⟩" in text, path
        assert not any(ch in text for ch in "\u202e\u2066\u2069\u200b"), path  # none left to act
        flags = browser.find_elements(By.CSS_SELECTOR, ".uc-warn")
        assert flags and "RIGHT-TO-LEFT OVERRIDE" in flags[0].text, path
        marks = browser.find_elements(By.CSS_SELECTOR, "mark.uc")
        assert marks and marks[0].value_of_css_property("background-color") != "rgba(0, 0, 0, 0)", path
