import pytest

from autograder.execute.sandbox import Bubblewrap, SandboxUnavailable, WarmBubblewrap


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
