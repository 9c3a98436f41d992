import shutil
from pathlib import Path

import pytest

try:  # before any test imports TensorFlow in this process (pytest-xdist gives each process its own order):
    # Triton's LLVM and TensorFlow's register the same LLVM options, and Triton loaded second aborts the
    # process ("Option ... registered more than once"); loaded first, both work.  Tests reach Triton
    # through torch._inductor (meta-device probes) and TensorFlow through the TensorFlow assignments.
    import triton  # noqa: F401
except ImportError:  # a student's environment: no Triton
    pass

from autograder.execute.sandbox import Bubblewrap, SandboxUnavailable, WarmBubblewrap

ROOT = Path(__file__).resolve().parents[1]
TOY_KIT = ROOT / "tests" / "fixtures" / "kit"


@pytest.fixture(scope="session")
def kit_root() -> Path:
    return ROOT


@pytest.fixture(scope="session")
def toy_kit() -> Path:
    return TOY_KIT


LATE_POLICY = """
[deadline]
due = "2026-10-01T12:00:00+00:00"
penalty_percent = 10
period = "day"
[deadline.extensions]
"ext@b.c" = 3
"""


@pytest.fixture(scope="session")
def late_toy_kit(tmp_path_factory) -> Path:
    """The toy kit with a deadline: 10 % of the maximum per day (or part of one) late; ext@b.c has 3 more days."""
    kit = tmp_path_factory.mktemp("late") / "kit"
    shutil.copytree(TOY_KIT, kit)
    manifest = kit / "assignments" / "toy" / "manifest.toml"
    manifest.write_text(manifest.read_text() + LATE_POLICY)
    return kit


@pytest.fixture
def sandbox():
    """`sandbox(kind, gpu=False)`: a warm (zygote) or cold bubblewrap isolation, closed after the test;
    the test is skipped where bubblewrap cannot run."""
    made = []

    def make(kind: str, gpu: bool = False):
        if not Bubblewrap.available():
            pytest.skip("bubblewrap is not available here")
        try:
            iso = Bubblewrap(gpu=gpu) if kind == "cold" else WarmBubblewrap(gpu=gpu)
        except SandboxUnavailable as e:
            pytest.skip(str(e))
        made.append(iso)
        return iso

    yield make
    for iso in made:
        iso.close()
