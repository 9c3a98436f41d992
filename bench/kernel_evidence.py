"""What the kernel evidence costs a submission: each step the kit adds to build a kernel from the student's text.

02b_kernels (each of the two C-kernel tests, in its fresh worker): cc -E (what the source includes, no asm), cc with
the kit's flags (the build itself, for scale), reading what the library imports from its ELF symbol table (`autograder.probe.elf`), building the kit's C
harness and running the kernels in it (a process without Python, under seccomp), on the public test's cases.
tf02b_kernels (once per submission, `kit_compile`): g++ -E of the source with the build's own flags (what it
includes, no asm), the same under GOOGLE_CUDA (the GPU registrations), reading the library's imports (every
undefined symbol looked up in the libraries linked, TensorFlow's framework included, whose exports the zygote
reads once: `warm_up`, measured on its own) and the build itself.  CPU
seconds of this process and its children (getrusage), median of --repeat runs, with the machine's load.

    .venv/bin/python bench/kernel_evidence.py [--repeat 3]
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
from pathlib import Path

import nbformat

ROOT = Path(__file__).resolve().parents[1]


def _module(assignment: str):
    spec = importlib.util.spec_from_file_location(
        f"{assignment}_probes", ROOT / "assignments" / assignment / "probes.py"
    )
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def _master(notebook: str, function: str) -> str:
    """function() of the master notebook's cell defining it (the kit's own, trusted code)."""
    nb = nbformat.read(ROOT / "solutions" / notebook, as_version=4)
    cell = next(c.source for c in nb.cells if c.cell_type == "code" and f"def {function}" in c.source)
    scope: dict = {}
    exec(cell, scope)  # noqa: S102 - the master's cell
    return scope[function]()


def cpu(fn) -> float:
    """CPU seconds (user + sys) of this process and its children while fn() runs."""

    def now():
        s, c = resource.getrusage(resource.RUSAGE_SELF), resource.getrusage(resource.RUSAGE_CHILDREN)
        return s.ru_utime + s.ru_stime + c.ru_utime + c.ru_stime

    t0 = now()
    fn()
    return now() - t0


def c_kernels(repeat: int) -> dict[str, float]:
    import torch

    from autograder.probe import elf

    probes = _module("02b_kernels")
    source = _master("02b_kernels.ipynb", "c_source")
    x = torch.tensor([-2.0, 0.0, 1.0, 3.0])
    rows = torch.tensor([[1.0, 2.0, 3.0], [0.0, 0.0, 1000.0], [-300.0, -250.0, -280.0]])
    cases = [
        ("silu", x, "c"),
        ("silu", x.double(), "c"),
        ("softmax", rows, "c"),
        ("softmax", rows.double(), "t"),
        ("softmax", torch.full((2, 4), -500.0, dtype=torch.float64), "c"),
    ]
    folder = tempfile.mkdtemp(prefix="bench-kernels-")
    src, lib, harness = (os.path.join(folder, n) for n in ("k.c", "k.so", "harness"))
    Path(src).write_text(source)
    Path(harness + ".c").write_text(probes.HARNESS)
    build = ["cc", *probes.C_FLAGS, "-o", lib, src, "-lm"]
    steps = {
        "cc -E, the kit's flags (what it includes, no asm)": lambda: subprocess.run(
            ["cc", *probes.C_FLAGS, "-E", "-o", src + ".i", src], check=True, capture_output=True
        ),
        "cc, the kit's flags (the build)": lambda: subprocess.run(build, check=True, capture_output=True),
        "the library's imports (ELF symbol table, libm's exports)": lambda: elf.imports_problem(
            Path(lib).read_bytes(), probes._native_libraries()
        ),
        "building the C harness": lambda: subprocess.run(
            ["cc", "-O1", "-o", harness, harness + ".c"], check=True, capture_output=True
        ),
    }
    rows_ = {name: statistics.median(cpu(step) for _ in range(repeat)) for name, step in steps.items()}
    prepared = [probes._case_bytes(*c) for c in cases]
    expected = sum((p[1] + p[2]) * c[1].element_size() for p, c in zip(prepared, cases))
    rows_["running the kernels in the harness (5 cases)"] = statistics.median(
        cpu(lambda: probes._run_harness(harness, lib, [p[0] for p in prepared], expected)) for _ in range(repeat)
    )
    rows_["c_kernels_run, all of it"] = statistics.median(
        cpu(lambda: probes.c_kernels_run({}, source, cases)) for _ in range(repeat)
    )
    return rows_


def tf_kernels(repeat: int) -> dict[str, float]:
    from autograder.probe import elf

    probes = _module("tf02b_kernels")
    source = _master("tf02b_kernels.ipynb", "op_source")
    cflags, lflags = probes.compile_flags()
    tf_include = probes.tf.sysconfig.get_include()
    folder = tempfile.mkdtemp(prefix="bench-tf-kernels-")
    argv = probes.compile_command(folder, source, gpu=True)
    std = probes._std_folder(cflags)
    subprocess.run(argv, check=True, capture_output=True)
    lib = argv[argv.index("-o") + 1]
    steps = {
        "where <cmath> is (g++ -E of one line)": lambda: probes._std_folder(cflags),
        "g++ -E, the build's flags (includes, asm)": lambda: probes._preprocess(argv, folder, False, tf_include, std),
        "g++ -E under GOOGLE_CUDA (the GPU registrations)": lambda: probes._preprocess(
            argv, folder, True, tf_include, std
        ),
        "the library's imports (its symbol table, the exports read before)": lambda: elf.imports_problem(
            Path(lib).read_bytes(), probes._linked_libraries(lflags)
        ),
        "g++, the kit's build (for scale)": lambda: subprocess.run(argv, check=True, capture_output=True),
    }

    def exports() -> None:  # what the zygote's warm_up() reads once, before any worker
        elf._EXPORTS.clear()
        probes.warm_up()

    rows = {
        "the linked libraries' exports (once per zygote: warm_up)": statistics.median(
            cpu(exports) for _ in range(repeat)
        )
    }
    return rows | {name: statistics.median(cpu(step) for _ in range(repeat)) for name, step in steps.items()}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args()
    # the probes run here outside a worker, whose private temporary folder would take their builds' folders (and
    # this bench's) with it: one of this run's own does instead
    with tempfile.TemporaryDirectory(prefix="bench-kernel-evidence-") as scratch:
        tempfile.tempdir = scratch
        try:
            result = {"02b_kernels": c_kernels(args.repeat), "tf02b_kernels": tf_kernels(args.repeat)}
        finally:
            tempfile.tempdir = None
    for assignment, rows in result.items():
        print(assignment)
        for name, seconds in rows.items():
            print(f"  {name:78s} {seconds:6.3f} s CPU")
    print(
        json.dumps(
            {
                "cpu_s": {a: {k: round(v, 3) for k, v in r.items()} for a, r in result.items()},
                "repeat": args.repeat,
                "load_1_5_15": [round(x, 2) for x in os.getloadavg()],
                "cpus": os.cpu_count(),
            }
        )
    )


if __name__ == "__main__":
    main()
