"""`quiet_stderr`: file descriptor 2 (where a native library writes, below Python) is quiet inside the block
and given back however the block ends, with what Python buffered before it kept."""

from __future__ import annotations

import subprocess
import sys

SCRIPT = r'''
import os, sys
from autograder.execute.quiet import quiet_stderr
sys.stderr.write("buffered before\n")          # still in Python's buffer when the block starts
with quiet_stderr():
    os.write(2, b"native inside\n")              # what a C library's fprintf(stderr) does
    sys.stderr.write("python inside\n")
try:
    with quiet_stderr():
        raise ImportError("no such module")
except ImportError as e:
    os.write(2, b"raised: " + str(e).encode() + b"\n")
os.write(2, b"native after\n")
'''


def test_only_what_is_written_inside_the_block_is_dropped():
    proc = subprocess.run([sys.executable, "-c", SCRIPT], capture_output=True, text=True, timeout=60)
    assert proc.returncode == 0, proc.stderr
    assert proc.stderr.splitlines() == ["buffered before", "raised: no such module", "native after"]
