"""Turn what an instructor points at (files, folders, zips) into a list of submissions.

Submission ids become directory names under results/, so they are sanitised: ASCII
letters, digits, `.`, `_`, `-` only, never starting with a dot, at most 80 characters; a
collision or an empty name gets the file's hash appended.  Zip members are extracted by
their base name only (no path traversal) with a cap on the total size (no zip bombs).
"""
from __future__ import annotations

import hashlib
import re
import unicodedata
import zipfile
from dataclasses import dataclass
from pathlib import Path

MAX_ZIP_MEMBER = 50 * 2**20
MAX_ZIP_TOTAL = 2 * 2**30


class IntakeError(ValueError):
    """A path given on the command line that cannot be used (a usage error)."""


@dataclass(frozen=True)
class Submission:
    id: str        # safe, unique within the batch
    path: Path     # the notebook on disk
    source: str    # the name as the instructor gave it (for reports)


def safe_id(name: str) -> str:
    stem = name[: -len(".ipynb")] if name.lower().endswith(".ipynb") else name
    ascii_ = unicodedata.normalize("NFKD", stem).encode("ascii", "ignore").decode()
    clean = re.sub(r"[^A-Za-z0-9._-]+", "_", ascii_).strip("._-")
    return clean[:80]


def file_sha256(path: Path) -> str:
    h = hashlib.sha256()
    with open(path, "rb") as f:
        for chunk in iter(lambda: f.read(1 << 20), b""):
            h.update(chunk)
    return h.hexdigest()


def _notebooks_in(folder: Path) -> list[Path]:
    found = [p for p in sorted(folder.rglob("*.ipynb")) if ".ipynb_checkpoints" not in p.parts and p.is_file()]
    return found


def extract_member(zf: zipfile.ZipFile, info: zipfile.ZipInfo, target: Path, zip_path: Path) -> None:
    """Copy one member to `target` (a name we chose), refusing one larger than the cap or than it claims."""
    with zf.open(info) as src, open(target, "wb") as dst:
        left = MAX_ZIP_MEMBER + 1
        while chunk := src.read(1 << 20):
            left -= len(chunk)
            if left < 0:
                raise IntakeError(f"{zip_path}: {info.filename} is larger than it claims")
            dst.write(chunk)


def _extract_zip(path: Path, into: Path) -> list[tuple[Path, str]]:
    out: list[tuple[Path, str]] = []
    total = 0
    try:
        zf = zipfile.ZipFile(path)
    except zipfile.BadZipFile:
        raise IntakeError(f"{path} is not a readable zip file") from None
    with zf:
        dest = into / safe_id(path.name)
        dest.mkdir(parents=True, exist_ok=True)
        for info in zf.infolist():
            base = Path(info.filename.replace("\\", "/")).name
            if info.is_dir() or not base.lower().endswith(".ipynb") or "__MACOSX" in info.filename:
                continue
            total += info.file_size
            if info.file_size > MAX_ZIP_MEMBER or total > MAX_ZIP_TOTAL:
                raise IntakeError(f"{path}: {info.filename} is too large to extract")
            target = dest / f"{len(out):04d}_{safe_id(base) or 'notebook'}.ipynb"
            extract_member(zf, info, target, path)
            out.append((target, base))
    return out


def collect(paths: list[Path], scratch: Path) -> list[Submission]:
    """All submissions under `paths` (notebooks, folders, zips), with unique safe ids."""
    found: list[tuple[Path, str]] = []
    for p in paths:
        if not p.exists():
            raise IntakeError(f"no such file or folder: {p}")
        if p.is_dir():
            found += [(nb, str(nb.relative_to(p))) for nb in _notebooks_in(p)]
        elif p.suffix.lower() == ".zip":
            found += _extract_zip(p, scratch)
        elif p.suffix.lower() == ".ipynb":
            found.append((p, p.name))
        else:
            raise IntakeError(f"{p} is not a notebook, a folder or a zip")
    subs: list[Submission] = []
    seen: set[str] = set()
    for path, source in found:
        sid = safe_id(Path(source).name)
        if not sid or sid in seen:
            sid = f"{sid or 'submission'}-{file_sha256(path)[:8]}"
        seen.add(sid)
        subs.append(Submission(sid, path.resolve(), source))
    return subs
