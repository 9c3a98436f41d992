"""A real headless Chromium: a page rendered (a screenshot of it and the DOM the browser built from it), and a
browser driven through Selenium (`driven`).

Chromium leaves files in its temporary folder when a headless run ends (its singleton socket's folder), so each
run gets a temporary folder of its own (TMPDIR) that goes with it: a test run leaves nothing in /tmp.
"""

from __future__ import annotations

import contextlib
import os
import shutil
import subprocess
import tempfile
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser")
DRIVER = shutil.which("chromedriver")
needs_chromium = pytest.mark.skipif(CHROMIUM is None, reason="chromium is not installed")


@contextlib.contextmanager
def driven() -> Iterator[Any]:
    """A Selenium driver of a headless Chromium with a fresh profile (its own cookies), quit and its temporary
    folder removed on the way out."""
    from selenium import webdriver
    from selenium.webdriver.chrome.options import Options
    from selenium.webdriver.chrome.service import Service

    options = Options()
    options.binary_location = CHROMIUM
    for flag in (
        "--headless=new",
        "--no-sandbox",
        "--disable-gpu",
        "--disable-dev-shm-usage",
        "--window-size=1400,1000",
    ):
        options.add_argument(flag)
    options.set_capability("goog:loggingPrefs", {"browser": "ALL"})
    with tempfile.TemporaryDirectory(prefix="ag-chromium-") as tmp:
        driver = webdriver.Chrome(service=Service(DRIVER, env={**os.environ, "TMPDIR": tmp}), options=options)
        driver.set_page_load_timeout(60)
        try:
            yield driver
        finally:
            driver.quit()


def render(page: Path, shot: Path, width: int, height: int) -> str:
    """Screenshot `page` to `shot` in a `width` x `height` window and return its DOM (a fresh profile, no
    network chatter of the browser's own)."""
    with tempfile.TemporaryDirectory(prefix="ag-chromium-") as profile:
        env = {**os.environ, "TMPDIR": profile}
        base = [
            CHROMIUM,
            "--headless",
            "--no-sandbox",
            "--disable-gpu",
            "--disable-background-networking",
            "--disable-component-update",
            "--disable-sync",
            "--no-first-run",
            f"--user-data-dir={profile}",
        ]
        subprocess.run(
            base + [f"--screenshot={shot}", f"--window-size={width},{height}", page.as_uri()],
            check=True,
            capture_output=True,
            timeout=120,
            env=env,
        )
        return subprocess.run(
            base + ["--dump-dom", page.as_uri()], check=True, capture_output=True, text=True, timeout=120, env=env
        ).stdout
