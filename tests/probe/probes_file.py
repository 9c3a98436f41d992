"""A kit's probes module for plugin tests with a stand-in backend: written as `probes.py` and imported, as the
grader imports an assignment's probes (never put in `sys.modules`)."""

from __future__ import annotations

import importlib.util
from pathlib import Path
from types import ModuleType


def probes_module(folder: Path, source: str, name: str) -> ModuleType:
    """`source` written to `folder/probes.py` and imported as module `name`."""
    path = folder / "probes.py"
    path.write_text(source)
    spec = importlib.util.spec_from_file_location(name, path)
    probes = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(probes)
    return probes
