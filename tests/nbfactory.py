"""Build test notebooks from a master notebook by editing its cells."""

from __future__ import annotations

from pathlib import Path

import nbformat


def edit(master: Path, out: Path, replace: dict[str, str] | None = None, insert: dict[int, str] | None = None) -> Path:
    """Copy `master` to `out`, replacing text in code cells and inserting code cells before positions."""
    nb = nbformat.read(master, as_version=4)
    for old, new in (replace or {}).items():
        hits = [c for c in nb.cells if c.cell_type == "code" and old in c.source]
        assert len(hits) == 1, f"{old!r} found in {len(hits)} cells of {master}"
        hits[0].source = hits[0].source.replace(old, new)
    for pos, src in sorted((insert or {}).items(), reverse=True):
        cell = nbformat.v4.new_code_cell(src)
        cell["id"] = f"inserted-{pos}"
        nb.cells.insert(pos, cell)
    out.parent.mkdir(parents=True, exist_ok=True)
    nbformat.write(nb, out)
    return out
