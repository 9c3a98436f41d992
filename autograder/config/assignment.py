"""An assignment as the grader sees it: where its pieces live, its limits, its version."""

from __future__ import annotations

import functools
import hashlib
from dataclasses import dataclass
from pathlib import Path

import autograder
from autograder.config import locate
from autograder.config.compat import tomllib
from autograder.config.deadline import LatePolicy
from autograder.config.limits import Limits

FEEDBACK_POLICIES = ("summary", "messages")
FRAMEWORKS = ("torch", "tensorflow")


class AssignmentError(ValueError):
    """The assignment does not exist or its manifest is wrong (a usage error)."""


@dataclass(frozen=True)
class Framework:
    """What the notebooks of an assignment are written in, and how its workers start it: the manifest's
    `framework` ("torch", the default, or "tensorflow") and its `[tensorflow]` table.  torch is in every
    worker; a TensorFlow assignment's zygote (or cold worker) also imports TensorFlow and Keras, and each
    worker splits its CPU into `logical_cpus` logical devices before any student code (`worker.py`)."""

    name: str = "torch"
    logical_cpus: int = 1

    @classmethod
    def from_manifest(cls, data: dict) -> "Framework":
        name = data.get("framework", "torch")
        if name not in FRAMEWORKS:
            raise ValueError(f"framework must be one of {FRAMEWORKS}, not {name!r}")
        table = data.get("tensorflow", {})
        if type(table) is not dict or set(table) - {"logical_cpus"}:
            raise ValueError("[tensorflow] takes only logical_cpus")
        if table and name != "tensorflow":
            raise ValueError('a [tensorflow] table needs framework = "tensorflow"')
        cpus = table.get("logical_cpus", 1)
        if type(cpus) is not int or not 1 <= cpus <= 64:
            raise ValueError("tensorflow.logical_cpus must be an integer from 1 to 64")
        return cls(name, cpus)

    def env(self) -> dict[str, str]:
        """What a worker of this assignment is told in its environment (read before any student code);
        torch's is empty, so nothing changes for the PyTorch assignments."""
        if self.name == "torch":
            return {}
        return {
            "AUTOGRADER_FRAMEWORK": self.name,
            "AUTOGRADER_TF_LOGICAL_CPUS": str(self.logical_cpus),
            "KERAS_BACKEND": "tensorflow",
            "TF_CPP_MIN_LOG_LEVEL": "2",
        }  # TF's C++ log: errors only


@dataclass(frozen=True)
class ManualExercise:
    """An exercise graded by hand (a free-text explanation, a plot, a design question): the manifest's
    `[manual.EXERCISE]` with its `points` and `title`.  It has no test: its score is what its rubric items give
    (`grades.rubric`), and it is pending until one is applied."""

    exercise: str
    points: float
    title: str

    @classmethod
    def from_manifest(cls, data: dict) -> tuple["ManualExercise", ...]:
        table = data.get("manual", {})
        if type(table) is not dict:
            raise ValueError("[manual] holds one table per exercise graded by hand: [manual.EXERCISE]")
        out = []
        for name, t in table.items():
            if type(t) is not dict or set(t) - {"points", "title"}:
                raise ValueError(f"[manual.{name}] takes points and title")
            points = t.get("points")
            if not isinstance(points, (int, float)) or isinstance(points, bool) or not 0 < points <= 1000:
                raise ValueError(f"manual.{name}.points must be a number above 0 (at most 1000)")
            if not name.replace("_", "").replace("-", "").isalnum():
                raise ValueError(f"manual.{name}: an exercise name is letters, digits, _ and -")
            out.append(cls(name, float(points), str(t.get("title") or name)))
        return tuple(out)


def master_of(probes: Path) -> Path:
    """The master notebook of the assignment whose `probes.py` this is (`Assignment.solution`)."""
    return Path(probes).parent.parent.parent / "solutions" / f"{Path(probes).parent.name}.ipynb"


@functools.lru_cache(maxsize=64)
def _framework_in(manifest: Path, mtime_ns: int) -> Framework:
    try:
        return Framework.from_manifest(tomllib.loads(manifest.read_text(encoding="utf-8")))
    except (OSError, ValueError, TypeError):
        return Framework()  # load_assignment reports a bad manifest; the engine never grades under one


def framework_of(probes: Path | None) -> Framework:
    """The framework of the assignment whose `probes.py` this is (its manifest beside it): the engine
    knows an assignment by its probes file, as its zygotes are kept per probes file."""
    if probes is None:
        return Framework()
    manifest = Path(probes).parent / "manifest.toml"
    try:
        return _framework_in(manifest, manifest.stat().st_mtime_ns)
    except OSError:
        return Framework()


@dataclass(frozen=True)
class Assignment:
    id: str
    kit: Path
    title: str
    total_points: float
    limits: Limits
    hidden_feedback: str  # "summary": name and pass/fail only; "messages": check messages too
    framework: Framework = Framework()
    manual: tuple[ManualExercise, ...] = ()  # exercises graded by hand, in the manifest's order

    @property
    def root(self) -> Path:
        return self.kit / "assignments" / self.id

    @property
    def solution(self) -> Path:
        return master_of(self.probes)

    @property
    def probes(self) -> Path:
        return self.root / "probes.py"

    @property
    def public_dir(self) -> Path:
        return self.root / "public"

    @property
    def hidden_dir(self) -> Path:
        return self.root / "hidden"

    def version(self) -> str:
        """Hash of everything that decides a score: manifest, probes, tests, master, grader version."""
        return self._hash(list(self._digests))

    def base_version(self) -> str:
        """Hash of what every test's result depends on: `version()` without the `test_*.py` files.

        While it stays the same, a test file that did not change gives the same results, so after
        an edit to some tests only those are run again (`test_files` says which)."""
        tests = set(self._test_paths())
        return self._hash([f for f in self._digests if f not in tests])

    def test_files(self) -> dict[str, str]:
        """Each test file, relative to the assignment folder (`hidden/test_x.py`) -> its content hash."""
        return {str(f.relative_to(self.root)): self._digests[f].hex()[:16] for f in self._test_paths()}

    @functools.cached_property
    def _digests(self) -> dict[Path, bytes]:
        """Content hash of every file that decides a score, read once per loaded assignment
        (grading a submission asks for the versions several times)."""
        tests = self._test_paths()
        shared = [
            f for f in [*sorted(self.public_dir.glob("*.py")), *sorted(self.hidden_dir.glob("*.py"))] if f not in tests
        ]
        return {
            f: hashlib.sha256(f.read_bytes()).digest() if f.exists() else b"<missing>"
            for f in [self.root / "manifest.toml", self.probes, self.solution, *shared, *tests]
        }

    def _test_paths(self) -> list[Path]:
        return [*sorted(self.public_dir.glob("test_*.py")), *sorted(self.hidden_dir.glob("test_*.py"))]

    def _hash(self, files: list[Path]) -> str:
        h = hashlib.sha256(autograder.__version__.encode())
        for f in files:
            h.update(str(f.relative_to(self.kit)).encode() + b"\0" + self._digests[f])
        return h.hexdigest()[:16]


def find_kit(start: Path | None = None) -> Path:
    """The kit root: $AUTOGRADER_KIT, else the nearest parent of cwd with assignments/ that only the caller can
    change, else the package's repo (`config.locate.kit`: a kit someone else could plant is refused)."""
    return locate.kit(start=start)


def load_assignment(name: str, kit: Path | None = None) -> Assignment:
    kit = (kit or find_kit()).resolve()
    if not name or "/" in name or name.startswith("."):
        raise AssignmentError(f"not an assignment name: {name!r}")
    manifest = kit / "assignments" / name / "manifest.toml"
    if not manifest.is_file():
        known = sorted(p.parent.name for p in (kit / "assignments").glob("*/manifest.toml"))
        raise AssignmentError(f"unknown assignment {name!r} (known: {', '.join(known) or 'none'})")
    try:
        data = tomllib.loads(manifest.read_text(encoding="utf-8"))
    except tomllib.TOMLDecodeError as e:
        raise AssignmentError(f"{manifest}: {e}") from None
    feedback = data.get("feedback", {}).get("hidden", "summary")
    if feedback not in FEEDBACK_POLICIES:
        raise AssignmentError(f"{manifest}: feedback.hidden must be one of {FEEDBACK_POLICIES}")
    try:
        limits = Limits.from_table(data.get("limits"))
        framework = Framework.from_manifest(data)
        manual = ManualExercise.from_manifest(data)
        LatePolicy.from_table(data.get("deadline"))  # a bad [deadline] table fails here, not at export
    except (ValueError, TypeError) as e:
        raise AssignmentError(f"{manifest}: {e}") from None
    return Assignment(
        id=name,
        kit=kit,
        title=str(data.get("title", name)),
        total_points=float(data.get("total_points", 100)),
        limits=limits,
        hidden_feedback=feedback,
        framework=framework,
        manual=manual,
    )


def list_assignments(kit: Path | None = None) -> list[str]:
    kit = kit or find_kit()
    return sorted(p.parent.name for p in (kit / "assignments").glob("*/manifest.toml"))
