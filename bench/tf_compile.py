"""What one tf02b_kernels submission's C++ costs to compile, as the kit builds it and as the notebook does.

The kit compiles op_source()'s text once per submission in a fresh worker, for both kernel tests (custom_op, gpu),
with `probes.compile_flags()` (-O0, TensorFlow's own flags, -z defs) and the kit's launcher of KitSiluKernel
appended (the source alone only when that fails), and the framework's headers precompiled when `make install` built
them (`probes.build_framework_pch`), and the notebook compiles it once more with its own flags (-O2).  This script
compiles the master's source those ways, plus a minimal op (one REGISTER_OP and one kernel), and prints the
compiler's CPU time (user + sys of the child, from getrusage) and wall time, with the machine's load beside them.

    .venv/bin/python bench/tf_compile.py [--repeat 3]
"""

from __future__ import annotations

import argparse
import importlib.util
import json
import os
import resource
import statistics
import subprocess
import tempfile
import time
from pathlib import Path

import nbformat

ROOT = Path(__file__).resolve().parents[1]
MINIMAL = r'''
#include "tensorflow/core/framework/op.h"
#include "tensorflow/core/framework/op_kernel.h"
using namespace tensorflow;
REGISTER_OP("KitMinimal").Input("x: float").Output("y: float");
class KitMinimalOp : public OpKernel {
 public:
  using OpKernel::OpKernel;
  void Compute(OpKernelContext* ctx) override { ctx->set_output(0, ctx->input(0)); }
};
REGISTER_KERNEL_BUILDER(Name("KitMinimal").Device(DEVICE_CPU), KitMinimalOp);
'''


def _probes():
    spec = importlib.util.spec_from_file_location("tf02b_probes", ROOT / "assignments" / "tf02b_kernels" / "probes.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def master_source() -> str:
    """op_source() of the master notebook (the kit's own, trusted code)."""
    nb = nbformat.read(ROOT / "solutions" / "tf02b_kernels.ipynb", as_version=4)
    cell = next(c.source for c in nb.cells if c.cell_type == "code" and "def op_source" in c.source)
    scope: dict = {}
    exec(cell, scope)  # noqa: S102 - the master's cell
    return scope["op_source"]()


def compile_once(argv: list[str]) -> tuple[float, float]:
    """(CPU seconds of the compiler and linker, wall seconds) for one g++ run."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    t0 = time.perf_counter()
    subprocess.run(argv, check=True, capture_output=True)
    wall = time.perf_counter() - t0
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    return (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime), wall


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args()
    probes = _probes()
    import tensorflow as tf

    cflags, lflags = probes.compile_flags()
    folder = Path(tempfile.mkdtemp(prefix="tf-compile-"))
    master = master_source()
    prelude = folder / "prelude.h"
    prelude.write_text(probes._GPU_PRELUDE)
    builds = {
        "minimal op, kit flags": (MINIMAL, cflags, lflags),
        "master, kit flags (the source alone: a GPU kernel that does not build)": (master, cflags, lflags),
        "master + launcher, kit flags (without precompiled headers)": (
            master + "\n" + probes._GPU_EPILOGUE,
            cflags,
            lflags,
        ),
        "master, notebook flags (-O2)": (
            master,
            ["-shared", "-fPIC", "-O2", *tf.sysconfig.get_compile_flags()],
            list(tf.sysconfig.get_link_flags()),
        ),
    }
    argvs = {}
    for i, (name, (source, cf, lf)) in enumerate(builds.items()):
        src = folder / f"ops{i}.cc"
        src.write_text(source)
        argvs[name] = ["g++", *cf, "-include", str(prelude), "-o", str(folder / "ops.so"), str(src), *lf]
    # the kit's own command (it writes its files): the precompiled headers where `make install` built them
    (folder / "kit").mkdir()
    kit = probes.compile_command(str(folder / "kit"), master, gpu=True)
    argvs[f"master + launcher, the kit's build (-include {Path(kit[kit.index('-include') + 1]).name})"] = kit
    rows = []
    for name, argv in argvs.items():
        runs = [compile_once(argv) for _ in range(args.repeat)]
        rows.append(
            {
                "build": name,
                "cpu_s": round(statistics.median(r[0] for r in runs), 2),
                "wall_s": round(statistics.median(r[1] for r in runs), 2),
                "repeat": args.repeat,
            }
        )
    load = os.getloadavg()
    for row in rows:
        print(f"{row['build']:44s} {row['cpu_s']:6.2f} s CPU  {row['wall_s']:6.2f} s wall  (median of {row['repeat']})")
    print(
        json.dumps(
            {
                "builds": rows,
                "load_1_5_15": [round(x, 2) for x in load],
                "cpus": os.cpu_count(),
                "tensorflow": tf.__version__,
            }
        )
    )


if __name__ == "__main__":
    main()
