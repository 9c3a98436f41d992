from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
TOY_KIT = ROOT / "tests" / "fixtures" / "kit"


@pytest.fixture(scope="session")
def kit_root() -> Path:
    return ROOT


@pytest.fixture(scope="session")
def toy_kit() -> Path:
    return TOY_KIT
