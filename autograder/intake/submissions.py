"""Turn what an instructor points at (files, folders, zips) into a list of submissions.

Submission ids become directory names under results/, so they are sanitised: ASCII
letters, digits, `.`, `_`, `-` only, never starting with a dot, at most 80 characters.  An id
is made from where the file is, never from what it holds (trust rule 6): a notebook given or at a
folder's top is named after its file (`alice.ipynb` -> `alice`), one in a subfolder after its path
(`alice/01_tensors.ipynb` -> `alice_01_tensors`), and a collision or an empty name gets a hash of
that path appended (`unique_id`), so a file keeps its id whichever other files come with it, and
a byte-for-byte copy of a classmate's notebook never takes the classmate's id.  Zip members are extracted by
their base name only (no path traversal), member by member with size caps that hold while
copying (no zip bombs, no zip read into memory); a member that cannot be extracted becomes a
submission with a `problem` (graded `invalid`), so one bad member never stops a class.
"""

from __future__ import annotations

import hashlib
import re
import unicodedata
import zipfile
import zlib
from dataclasses import dataclass
from pathlib import Path

MAX_ZIP_MEMBER = 50 * 2**20  # one notebook extracted from a zip (the notebook parser refuses > 20 MiB anyway)
MAX_ZIP_TOTAL = 2 * 2**30  # every notebook extracted from one zip, together (scratch disk)
_CHUNK = 1 << 20
# a link in a folder of submissions (a student's hub folder may hold one to a classmate's notebook, or the master)
LINK = "the file is a link to another file; links are not followed: a submission is the file handed in"


class IntakeError(ValueError):
    """A path given on the command line that cannot be used (a usage error)."""


@dataclass(frozen=True)
class Submission:
    id: str  # safe, unique within the batch
    path: Path  # the notebook on disk (absent when `problem` is set)
    source: str  # the name as the instructor gave it (for reports)
    problem: str = ""  # why intake could not use it (damaged, encrypted, too large): graded `invalid`, never run


def safe_id(name: str) -> str:
    stem = name[: -len(".ipynb")] if name.lower().endswith(".ipynb") else name
    ascii_ = unicodedata.normalize("NFKD", stem).encode("ascii", "ignore").decode()
    clean = re.sub(r"[^A-Za-z0-9._-]+", "_", ascii_).strip("._-")
    return clean[:80]


def file_sha256(path: Path) -> str:
    h = hashlib.sha256()
    with open(path, "rb") as f:
        for chunk in iter(lambda: f.read(_CHUNK), b""):
            h.update(chunk)
    return h.hexdigest()


def unique_id(base: str, key: str, seen: set[str]) -> str:
    """`base` (a safe id) when it is free, else `base-<8 hex digits of a hash of key>`; added to `seen`.  `key`
    says which file or student it is (a path, an LMS id), never what the file holds: the same file or student
    gets the same id in every run, and two files never share one, whatever their content."""
    sid, n = base, 0
    while not sid or sid in seen:
        sid = f"{base or 'submission'}-{hashlib.sha256(f'{key}{chr(0)}{n}'.encode()).hexdigest()[:8]}"
        n += 1
    seen.add(sid)
    return sid


def _notebooks_in(folder: Path) -> list[Path]:
    found = [p for p in sorted(folder.rglob("*.ipynb")) if ".ipynb_checkpoints" not in p.parts and p.is_file()]
    return found


def open_zip(path: Path) -> zipfile.ZipFile:
    """The zip's directory (read from its end; members stay on disk), or IntakeError when there is none."""
    try:
        return zipfile.ZipFile(path)
    except (zipfile.BadZipFile, zipfile.LargeZipFile, OSError, ValueError, EOFError) as e:
        raise IntakeError(f"{path} is not a readable zip file ({e})") from None


class ZipExtractor:
    """Copies members of one zip, one at a time in bounded chunks (never the whole zip in memory),
    keeping every extracted notebook under `MAX_ZIP_MEMBER` and all of them under `MAX_ZIP_TOTAL`.

    A member that cannot be used (damaged, encrypted, too large, lying about its size) is reported
    as that member's problem, so one bad file costs its own submission, never the class."""

    def __init__(self) -> None:
        self.total = 0

    def extract(self, zf: zipfile.ZipFile, info: zipfile.ZipInfo, target: Path) -> str:
        """Copy `info` to `target` (a name we chose); '' on success, else why not (nothing left at `target`)."""
        cap = min(MAX_ZIP_MEMBER, MAX_ZIP_TOTAL - self.total)
        if info.flag_bits & 0x1:
            return "the file is encrypted (password-protected) in the zip; it could not be read"
        if info.file_size > MAX_ZIP_MEMBER:
            return f"the file is {info.file_size / 2**20:.1f} MiB, over the {MAX_ZIP_MEMBER // 2**20} MiB limit"
        if info.file_size > cap:
            return f"the zip's notebooks together are over the {MAX_ZIP_TOTAL // 2**20} MiB limit; this one was not extracted"
        written = 0
        try:
            # zipfile stops after the size the directory declares (checked against the caps above) and
            # then checks the CRC, so a member lying about its size ends as damaged, never as a big file
            with zf.open(info) as src, open(target, "wb") as dst:
                while True:
                    try:
                        chunk = src.read(_CHUNK)
                    except (
                        zipfile.BadZipFile,
                        zlib.error,
                        EOFError,
                        NotImplementedError,
                        RuntimeError,
                        ValueError,
                        OSError,
                    ) as e:
                        raise _Damaged(_damaged(e, info)) from None
                    if not chunk:
                        break
                    written += len(chunk)
                    dst.write(chunk)
        except _Damaged as e:
            target.unlink(missing_ok=True)
            return str(e)
        except (zipfile.BadZipFile, zlib.error, EOFError, NotImplementedError, RuntimeError, ValueError) as e:
            target.unlink(missing_ok=True)  # zf.open refused the member's header (or its compression method)
            return _damaged(e, info)
        self.total += written
        return ""


class _Damaged(Exception):
    pass


def _damaged(e: BaseException, info: zipfile.ZipInfo) -> str:
    """Why a member could not be read, without its (hostile) name, which zipfile's messages quote."""
    why = str(e).replace(repr(info.filename), "").replace(info.filename, "").replace(" for file", "")
    return f"the file is damaged in the zip ({type(e).__name__}: {why.strip()})"


def _extract_zip(path: Path, into: Path) -> list[tuple[Path, str, str]]:
    """(extracted file, member path, problem) per notebook member; the member path without `.`/`..` parts and
    without a folder every notebook of the zip is in (a zipped folder's own name: `hw1/alice.ipynb` is
    `alice.ipynb`, as the folder itself would give it)."""
    out: list[tuple[Path, str, str]] = []
    extractor = ZipExtractor()
    with open_zip(path) as zf:
        dest = into / (safe_id(path.name) or "zip")
        dest.mkdir(parents=True, exist_ok=True)
        members = []
        for info in zf.infolist():
            parts = [p for p in info.filename.replace("\\", "/").split("/") if p not in ("", ".", "..")]
            if info.is_dir() or not parts or not parts[-1].lower().endswith(".ipynb") or "__MACOSX" in info.filename:
                continue
            members.append((info, parts))
        wrapped = len({parts[0] for _, parts in members}) == 1 and all(len(parts) > 1 for _, parts in members)
        for info, parts in members:
            target = dest / f"{len(out):04d}_{safe_id(parts[-1]) or 'notebook'}.ipynb"
            out.append((target, "/".join(parts[1:] if wrapped else parts), extractor.extract(zf, info, target)))
    return out


def collect(paths: list[Path], scratch: Path) -> list[Submission]:
    """All submissions under `paths` (notebooks, folders, zips), with unique safe ids made from where each
    file is (`source`: its path inside the folder or zip given), never from its content."""
    found: list[tuple[Path, str, str, str]] = []  # (file, source, problem, what tells it from any other)
    for p in paths:
        if not p.exists():
            raise IntakeError(f"no such file or folder: {p}")
        if p.is_dir():
            inside = p.resolve()
            found += [
                (
                    nb,
                    nb.relative_to(p).as_posix(),
                    "" if not nb.is_symlink() and inside in nb.resolve().parents else LINK,
                    f"{p}\0{nb.relative_to(p).as_posix()}",
                )
                for nb in _notebooks_in(p)
            ]
        elif p.suffix.lower() == ".zip":
            found += [(t, source, problem, f"{p}\0{source}") for t, source, problem in _extract_zip(p, scratch)]
        elif p.suffix.lower() == ".ipynb":
            found.append((p, p.name, "", str(p)))
        else:
            raise IntakeError(f"{p} is not a notebook, a folder or a zip")
    subs: list[Submission] = []
    seen: set[str] = set()
    for path, source, problem, key in found:
        subs.append(Submission(unique_id(path_id(source), key, seen), path.resolve(), source, problem))
    return subs


def path_id(source: str) -> str:
    """The id a file's place gives it: its name at the top (`alice.ipynb` -> `alice`), its path below
    (`alice/01_tensors.ipynb` -> `alice_01_tensors`)."""
    return safe_id(source.replace("\\", "/").strip("/"))
