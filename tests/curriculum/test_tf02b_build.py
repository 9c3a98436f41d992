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

from tests.curriculum.probes_child import load_probes

# found, never imported: TensorFlow loaded into this process would stay for the whole session (and abort a later
# in-process import of Triton, whose LLVM clashes with it)
pytestmark = pytest.mark.skipif(importlib.util.find_spec("tensorflow") is None, reason="TensorFlow is not installed")

KIT = Path(__file__).resolve().parents[2]
# the start of each child: the kit's root is argv[1]; `p` is tf02b's probes module, `master_source` the master's C++
LOAD_PROBES = load_probes("tf02b_kernels") + "from bench.tf_compile import master_source\n"
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


PRE_CHILD = (
    LOAD_PROBES
    + r"""
master = master_source()
cflags, _ = p.compile_flags()
tf_include, std = p.tf.sysconfig.get_include(), p._std_folder(cflags)
runs, real = [], subprocess.run
def counted(argv, *a, **k):
    if "-E" in argv and "-fpch-preprocess" in argv:
        runs[-1].append(os.path.basename(argv[argv.index("-include") + 1]))
    return real(argv, *a, **k)
p.subprocess.run = counted
verdicts, pragma = {}, None
for header in ("", "<vector>", "<iostream>", '"tensorflow/core/platform/logging.h"', "<cstdio>"):
    folder, runs[:] = tempfile.mkdtemp(), [[]]
    source = master.replace("#include <cmath>", "#include <cmath>\n#include " + header, 1) if header else master
    problem, registrations = p._preprocess(p.compile_command(folder, source, gpu=True), folder, False, tf_include, std)
    verdicts[header] = [problem.split(",")[0], len(registrations), runs[0]]
    if not header:
        with open(os.path.join(folder, "ops.ii")) as f:
            pragma = "#pragma GCC pch_preprocess" in f.read()
print(json.dumps({"verdicts": verdicts, "pragma": pragma}))
"""
)


@pytest.mark.slow
def test_the_preprocessor_reads_the_precompiled_header_and_a_refusal_is_read_again_as_text(tmp_path):
    """g++ -E runs through the precompiled header (0.05 s where the framework headers as text cost 0.7 s), which
    makes it enter again every header they had included (skipped unseen when read as text): a source refused that
    way is preprocessed again with the headers as text, so an #include of a header already there (it adds nothing)
    passes as it always did, and one of a file the framework never included is still refused."""
    got = _child(tmp_path, PRE_CHILD, str(KIT))
    assert got["pragma"] is True, got  # the precompiled header served g++ -E
    fast, twice = ["kit_framework.h"], ["kit_framework.h", "framework_as_text.h"]
    assert got["verdicts"] == {
        "": ["", 4, fast],
        "<vector>": ["", 4, fast],  # allowed, and entered again through the precompiled header
        "<iostream>": ["", 4, twice],  # not allowed, but already there: as text, nothing is entered
        '"tensorflow/core/platform/logging.h"': ["", 4, twice],
        "<cstdio>": ["op_source() includes cstdio", 0, twice],
    }, got


WARM_CHILD = (
    LOAD_PROBES
    + r"""
from autograder.probe import elf
read, real = [], elf.read_dynamic
elf.read_dynamic = lambda data: (read.append(len(data)), real(data))[1]
p.warm_up()  # as the zygote runs it, before any worker
warm = len(read)
built = p.kit_compile({}, master_source())
print(json.dumps({"warm": warm, "after": len(read) - warm, "error": built.get("error"), "lib": len(built.get("lib", b""))}))
"""
)


@pytest.mark.slow
def test_the_zygote_reads_the_linked_libraries_exports_once(tmp_path):
    """warm_up (run by the fork server) reads what each library the kit links exports; a build's check in a worker
    forked after it reads only the library it built, not TensorFlow's framework again (0.15 s a submission)."""
    got = _child(tmp_path, WARM_CHILD, str(KIT))
    assert got["warm"] >= 4 and got["error"] is None and got["lib"] > 0, got  # the framework, libstdc++, libm, libc...
    assert got["after"] == 1, got  # the built library itself
