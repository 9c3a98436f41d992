"""A page rendered by a real headless Chromium: a screenshot of it and the DOM the browser built from it."""

from __future__ import annotations

import shutil
import subprocess
import tempfile
from pathlib import Path

import pytest

CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser")
needs_chromium = pytest.mark.skipif(CHROMIUM is None, reason="chromium is not installed")


def render(page: Path, shot: Path, width: int, height: int) -> str:
    """Screenshot `page` to `shot` in a `width` x `height` window and return its DOM (a fresh profile, no
    network chatter of the browser's own)."""
    with tempfile.TemporaryDirectory() as profile:
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
        )
        return subprocess.run(
            base + ["--dump-dom", page.as_uri()], check=True, capture_output=True, text=True, timeout=120
        ).stdout
