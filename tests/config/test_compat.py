"""The Python 3.10 path (no tomllib): manifests and deadlines still load, through tomli."""

from __future__ import annotations

import subprocess
import sys

from tests.conftest import ROOT


def test_manifests_load_without_tomllib():
    code = (
        "import sys; sys.modules['tomllib'] = None  # as on Python 3.10\n"
        "from autograder.config.compat import tomllib; assert tomllib.__name__ == 'tomli', tomllib\n"
        "from autograder.config.assignment import list_assignments, load_assignment\n"
        "print(sorted(load_assignment(a).title for a in list_assignments()))"
    )
    r = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=ROOT)
    assert r.returncode == 0, r.stderr
    assert "01 · Tensors: the bricks" in r.stdout
