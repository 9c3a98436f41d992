"""What the hidden tests share: the probes' own layouts, applied on the trusted side."""
import pytest


@pytest.fixture
def laid_out(probes):
    """probes._layout: a test sizes v (or computes an expected value) for the laid-out x the probe hands to the
    student's code.  The judge imports probes.py itself; `_layout` only makes a view."""
    return probes._layout
