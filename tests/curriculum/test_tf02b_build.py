"""tf02b_kernels: the kit builds a submission's op_source() once for the CPU ops and the GPU kernel together, and a
GPU kernel that does not build costs the GPU exercise only (the CPU ops get a library built from the source alone).
A source whose first lines are #include lines only, the framework's three among them, is built with the precompiled
header `make install` builds; any other source as it is.

`kit_compile` runs in a child Python (it imports TensorFlow for its compile flags; this process never does), with
`_compile` counted, and its builds' folders in the test's own (TMPDIR, as a worker's is its own).
"""

from __future__ import annotations

import importlib.util
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

# found, never imported: TensorFlow loaded into this process would stay for the whole session (and abort a later
# in-process import of Triton, whose LLVM clashes with it)
pytestmark = pytest.mark.skipif(importlib.util.find_spec("tensorflow") is None, reason="TensorFlow is not installed")

KIT = Path(__file__).resolve().parents[2]
# the start of each child: the kit's root is argv[1]; `p` is tf02b's probes module, `master_source` the master's C++
LOAD_PROBES = r"""
import importlib.util, json, os, subprocess, sys, tempfile
sys.path.insert(0, sys.argv[1])
from bench.tf_compile import master_source
spec = importlib.util.spec_from_file_location("tf02b_probes", sys.argv[1] + "/assignments/tf02b_kernels/probes.py")
p = importlib.util.module_from_spec(spec)
spec.loader.exec_module(p)
"""
CHILD = (
    LOAD_PROBES
    + r"""
calls = []
real = p._compile
p._compile = lambda folder, source, gpu: (calls.append(gpu), real(folder, source, gpu))[1]
source = master_source()
if sys.argv[2] == "broken gpu kernel":
    source = source.replace("KitSiluKernel", "KitSiluKernl")   # a typo: the kit's launcher names a kernel that is not there
built = p.kit_compile({}, source)
print(json.dumps({"calls": calls, "lib": len(built.get("lib", b"")), "gpu_error": built.get("gpu_error"),
                  "error": built.get("error")}))
"""
)


def _child(tmp: Path, *argv: str) -> dict:
    done = subprocess.run(
        [sys.executable, "-c", *argv],
        capture_output=True,
        text=True,
        timeout=300,
        env={**os.environ, "TMPDIR": str(tmp)},
    )
    assert done.returncode == 0, done.stderr[-3000:]
    return json.loads(done.stdout.strip().splitlines()[-1])


@pytest.mark.slow
def test_one_build_serves_the_cpu_ops_and_the_gpu_kernel(tmp_path):
    got = _child(tmp_path, CHILD, str(KIT), "master")
    assert got["calls"] == [True], got
    assert got["lib"] > 0 and got["gpu_error"] == "" and got["error"] is None


@pytest.mark.slow
def test_a_gpu_kernel_that_does_not_build_leaves_the_cpu_ops_a_library(tmp_path):
    got = _child(tmp_path, CHILD, str(KIT), "broken gpu kernel")
    assert got["calls"] == [True, False], got
    assert got["lib"] > 0 and got["error"] is None
    assert "KitSiluKernel" in got["gpu_error"] and "launcher" in got["gpu_error"], got["gpu_error"][:300]


PCH_CHILD = (
    LOAD_PROBES
    + r"""
master = master_source()
op_h = '#include "tensorflow/core/framework/op.h"'
sources = {"master": master, "comment first": "// my ops\n/* two */\n" + master.lstrip(),
           "another header among them": master.replace(op_h, op_h + '\n#include "tensorflow/core/framework/common_shape_fns.h"', 1),
           "define first": "#define EIGEN_USE_THREADS\n" + master,
           "define among them": master.replace(op_h, op_h + "\n#define EIGEN_USE_THREADS", 1),
           "one missing": master.replace(op_h, "#include <cmath>", 1)}
included = {}
for name, source in sources.items():
    argv = p.compile_command(tempfile.mkdtemp(), source, gpu=True)
    included[name] = os.path.basename(argv[argv.index("-include") + 1])
argv = p.compile_command(tempfile.mkdtemp(), master, gpu=True)
done = subprocess.run([*argv, "-H"], capture_output=True, text=True, timeout=300)
used = [line for line in done.stderr.splitlines() if line.endswith(".gch")]
print(json.dumps({"included": included, "rc": done.returncode, "used": used, "err": done.stderr[-2000:] if done.returncode else ""}))
"""
)


@pytest.mark.slow
def test_a_source_that_begins_with_the_framework_includes_uses_the_precompiled_header(tmp_path):
    got = _child(tmp_path, PCH_CHILD, str(KIT))
    assert got["included"] == {
        "master": "kit_framework.h",
        "comment first": "kit_framework.h",
        "another header among them": "kit_framework.h",
        "define first": "prelude.h",
        "define among them": "prelude.h",
        "one missing": "prelude.h",
    }, got  # `make install` built it
    assert got["rc"] == 0, got["err"]
    assert len(got["used"]) == 1 and got["used"][0].startswith("! "), got["used"]  # g++ -H: "!" a valid PCH, "x" not
