"""The start of a child Python that runs an assignment's probes outside any worker: a test of probes that touch
process-wide state (torch's op registry, TensorFlow) runs them in a child, so nothing stays in the test process."""

from __future__ import annotations


def load_probes(assignment: str) -> str:
    """Code that puts the kit's root (the child's argv[1]) on sys.path and imports `assignment`'s probes.py as `p`."""
    return rf"""
import importlib.util, json, os, subprocess, sys, tempfile
sys.path.insert(0, sys.argv[1])
spec = importlib.util.spec_from_file_location("{assignment}_probes", sys.argv[1] + "/assignments/{assignment}/probes.py")
p = importlib.util.module_from_spec(spec)
spec.loader.exec_module(p)
"""
