"""tf02b_kernels: points for the C++ ops and the GPU kernel come only from the kit compiling op_source()'s text
itself (its own flags; what the preprocessor made of it: headers limited to TensorFlow's framework and a few
standard ones, no asm; what the library imports: every symbol, weak ones included, defined by the libraries linked,
no loader or Python) and calling the ops through its own harness in a worker that never ran the notebook.  The GPU
kernel's registration, compiled only under CUDA, is read from the preprocessor's output under GOOGLE_CUDA.

The honest plain-TensorFlow notebook (`kit_ops` is a namespace of built-in ops, `op_source()` returns an empty
source) sets the bar: it keeps the points of the exercises that do not ask for a kernel and earns none of the
kernel tests.  Every attack below is that notebook plus a trick, and must earn no more.
"""

from __future__ import annotations

import tempfile

import pytest

from tests.attacks.evidence import assert_no_more_than_honest, grade_attacks, guarded, master_between, points

ASSIGNMENT = "tf02b_kernels"
KERNEL_TESTS = ("test_ops_as_the_grader_builds_them", "test_gpu_kernel_launched_by_the_grader")


def _between(start: str, end: str) -> str:
    return master_between(ASSIGNMENT, start, end)


SOURCE = _between('    return r"""\n#include', "    ### END SOLUTION")
BUILT_INS = (
    "    kit_ops = build_op_library(op_source())\n",
    "    import types\n    kit_ops = types.SimpleNamespace(kit_silu=lambda x, beta=1.0: x * tf.sigmoid(beta * x),\n"
    "                                    kit_log_sum_exp=lambda x: tf.reduce_logsumexp(x, axis=-1))\n",
)
PLAIN = {SOURCE: '    return ""\n', BUILT_INS[0]: BUILT_INS[1]}

MASTER_CPP = SOURCE.removeprefix('    return r"""\n').removesuffix('"""\n')


def _with(cpp: str) -> dict[str, str]:
    return {SOURCE: '    return r"""\n' + cpp + '"""\n'}


PASTE = "#define KIT_CAT(a, b) a##b\n"
# the silu kernel runs Python (and could run TensorFlow's built-in ops) through symbols of its C API declared weak:
# -z defs lets a weak symbol through unresolved, and the Python process that loads the library supplies it
WEAK_PYTHON_CPP = (
    'extern "C" __attribute__((weak)) int KIT_CAT(P, yGILState_Ensure)();\n'
    'extern "C" __attribute__((weak)) void KIT_CAT(P, yGILState_Release)(int);\n'
    'extern "C" __attribute__((weak)) int KIT_CAT(P, yRun_SimpleString)(const char*);\n'
    + MASTER_CPP.replace(
        "    const Tensor& x = ctx->input(0);\n    Tensor* y = nullptr;",
        "    int kit_g = KIT_CAT(P, yGILState_Ensure)();\n"
        "    KIT_CAT(P, yRun_SimpleString)(\"open('/tmp/kit-ran-python', 'w')\");\n"
        '    KIT_CAT(P, yGILState_Release)(kit_g);\n    const Tensor& x = ctx->input(0);\n    Tensor* y = nullptr;',
        1,
    )
)
# an #include the old text check did not see: it read the digit separator in 1'0 as a quote, and so the rest of
# the line and the next as a comment; g++ reads the sandbox's /etc/passwd, and its error quoted the file
HIDDEN_INCLUDE = "an #include hidden from a text check by a digit separator"
PASSWD_LINE = "sandboxed notebook"  # in the worker's own /etc/passwd (autograder/execute/etc/passwd)
# an honest mistake: the GPU kernel registered for the CPU, inside #if GOOGLE_CUDA, which only CUDA compiles
WRONG_DEVICE = _with(
    MASTER_CPP.replace(
        'REGISTER_KERNEL_BUILDER(Name("KitSilu").Device(DEVICE_GPU).TypeConstraint<float>("T"), KitSiluGpuOp<float>);',
        'REGISTER_KERNEL_BUILDER(Name("KitSilu").Device(DEVICE_CPU).TypeConstraint<float>("T"), KitSiluGpuOp<float>);',
    )
)
GPU_TESTS = ("test_gpu_kernel_launched_by_the_grader",)


ATTACKS = {
    # the ops registered, their kernels reaching outside the text the kit compiles
    "an #include of Python's C API": _with('#include <Python.h>\n' + MASTER_CPP),
    "an #include of a non-framework TensorFlow header (the built-in kernels)": _with(
        '#include "tensorflow/core/kernels/logging_ops.h"\n' + MASTER_CPP
    ),
    "an #include named by a macro": _with('#define HEADER <stdio.h>\n#include HEADER\n' + MASTER_CPP),
    "an #include behind a comment and a line splice": _with('/* */ #\\\ninclude <stdio.h>\n' + MASTER_CPP),
    "kernels that call the Python C API (declared by hand) to run TensorFlow's built-ins": _with(
        'extern "C" int PyRun_SimpleString(const char*);\n'
        + MASTER_CPP.replace(
            "    const Tensor& x = ctx->input(0);\n    Tensor* y = nullptr;",
            '    PyRun_SimpleString("import tensorflow");\n    const Tensor& x = ctx->input(0);\n    Tensor* y = nullptr;',
            1,
        )
    ),
    "kernels that find symbols through the dynamic loader": _with(
        'extern "C" void* dlsym(void*, const char*);\nstatic void* kit_found = dlsym(nullptr, "exp");\n' + MASTER_CPP
    ),
    "assembly that pulls a file into the library": _with('asm(".incbin \\"/etc/hostname\\"");\n' + MASTER_CPP),
    # what the preprocessor makes of the text, not its spelling: token pasting, a digit separator read as a quote
    "assembly made by token pasting that pulls a file into the library": _with(
        PASTE + 'KIT_CAT(a, sm)(".incbin \\"/etc/passwd\\"");\n' + MASTER_CPP
    ),
    "the dynamic loader named by token pasting": _with(
        PASTE + 'extern "C" void* KIT_CAT(dl, sym)(void*, const char*);\n'
        'static void* kit_found = KIT_CAT(dl, sym)(nullptr, "exp");\n' + MASTER_CPP
    ),
    "kernels that run Python through its C API, declared weak and named by token pasting": _with(
        PASTE + WEAK_PYTHON_CPP
    ),
    HIDDEN_INCLUDE: _with(
        "static int kit_a = 1'0 + '/*';\n#include \"/etc/passwd\"\nstatic int kit_b = '*/';\n" + MASTER_CPP
    ),
    # kernels that read outside their input: each row's maximum and sum run one element past the row
    "kernels that read past their input": _with(
        MASTER_CPP.replace(
            "      for (int64_t c = 1; c < cols; ++c) m = std::max(m, row[c]);\n      T s = 0;\n"
            "      for (int64_t c = 0; c < cols; ++c) s += std::exp(row[c] - m);\n",
            "      for (int64_t c = 1; c <= cols; ++c) m = std::max(m, row[c]);\n      T s = 0;\n"
            "      for (int64_t c = 0; c <= cols; ++c) s += std::exp(row[c] - m);\n",
        )
        .replace(
            "      out[i] = in[i] / (T(1) + std::exp(-beta * in[i]));\n",
            "      out[i] = in[i + 1] / (T(1) + std::exp(-beta * in[i + 1]));\n",
        )
        .replace(
            "    y[i] = x[i] / (T(1) + exp(-T(beta) * x[i]));\n",
            "    y[i + 1] = x[i + 1] / (T(1) + exp(-T(beta) * x[i + 1]));\n",
        )
    ),
}


@pytest.fixture(scope="module")
def graded(tmp_path_factory):
    return grade_attacks(
        tmp_path_factory.mktemp("tf-kernel-evidence"),
        ASSIGNMENT,
        PLAIN,
        {**{name: {**PLAIN, **edit} for name, edit in ATTACKS.items()}, "wrong device": {**PLAIN, **WRONG_DEVICE}},
    )


def _probes():
    import importlib.util

    from tests.attacks.evidence import KIT

    spec = importlib.util.spec_from_file_location("tf02b_probes", KIT / "assignments" / ASSIGNMENT / "probes.py")
    probes = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(probes)
    return probes


# refused by what g++ -E makes of the source, before any compile (the others: by what the library imports)
PREPROCESSOR = [
    "an #include of Python's C API",
    "an #include of a non-framework TensorFlow header (the built-in kernels)",
    "an #include named by a macro",
    "an #include behind a comment and a line splice",
    "assembly that pulls a file into the library",
    "assembly made by token pasting that pulls a file into the library",
    HIDDEN_INCLUDE,
]


def test_the_preprocessed_source_is_checked_before_any_compile(tmp_path, monkeypatch):
    """kit_compile (the kit's build, run here as in its fresh worker) builds the master with its GPU registrations
    read, and refuses what the preprocessor makes of each attack that reaches outside the text, before compiling;
    the judge's own check on the text only bounds it."""
    monkeypatch.setattr(tempfile, "tempdir", str(tmp_path))  # its builds' folders: the worker's TMPDIR is its own
    probes = _probes()
    built = probes.kit_compile({}, MASTER_CPP)
    assert "error" not in built and built["gpu_error"] == "", built.get("error") or built["gpu_error"]
    assert probes.op_source_problem(MASTER_CPP) == ""
    extra = {
        "#line": MASTER_CPP.replace(
            "using namespace tensorflow;\n", 'using namespace tensorflow;\n#line 1 "/etc/passwd"\n', 1
        ),
        "_Pragma": PASTE + 'KIT_CAT(_Pra, gma)("GCC optimize(\\"O3\\")")\n' + MASTER_CPP,
        "a raw string": 'static const char* kit_s = R"(")";\n' + MASTER_CPP,
    }
    for name, cpp in [
        *((n, ATTACKS[n][SOURCE].removeprefix('    return r"""\n').removesuffix('"""\n')) for n in PREPROCESSOR),
        *extra.items(),
    ]:
        got = probes.kit_compile({}, cpp)
        assert "lib" not in got and "g++ failed" not in got["error"], (name, got)
        assert PASSWD_LINE not in got["error"], (name, got)
    assert probes.op_source_problem("x" * (probes.SOURCE_CAP + 1))
    assert probes.op_source_problem(None)


def test_a_registration_is_read_under_cuda_without_a_gpu():
    """The kernels registered only under GOOGLE_CUDA, read from g++ -E of the source's own lines: the GPU kernel on
    the CPU device, a type missing, and a device the kit cannot read are each named; the master's pass."""
    probes = _probes()
    gpu = [("KitSilu", "GPU", ("float",)), ("KitSilu", "GPU", ("double",))]
    cpu = [("KitSilu", "CPU", ("float",)), ("KitLogSumExp", "CPU", ("float",))]
    assert probes.gpu_registration_problem(cpu, cpu + gpu) == ""
    assert "device CPU" in probes.gpu_registration_problem(cpu, cpu + [("KitSilu", "CPU", ("float",))] + gpu[1:])
    assert "for float" in probes.gpu_registration_problem(cpu, cpu + gpu[1:])
    assert "for float" in probes.gpu_registration_problem(cpu, cpu)
    assert "device kit_device" in probes.gpu_registration_problem(
        cpu, cpu + [("KitSilu", "kit_device", ("float",))] + gpu
    )


def test_the_built_in_notebook_earns_no_kernel_points(graded):
    r = graded["honest"]
    assert r.status == "graded", r.message
    assert points(r, KERNEL_TESTS) == 0
    assert 0 < r.score < 100  # gradients, tf.function, Keras, training and timing still earn their points
    assert {t.id.split("::")[-1] for t in r.tests if t.score == 0} >= set(KERNEL_TESTS)


# A kernel that reads one element past its input keeps a right shape function and right OP_REQUIRES errors, so
# it may keep those cases' points; what it must lose is every kernel test's values (its own test below).
READS_PAST = "kernels that read past their input"
REACHING_OUT = [i for i, name in enumerate(ATTACKS) if name != READS_PAST]
WRONG = len(ATTACKS)  # "wrong device", graded after the attacks


@pytest.mark.parametrize("i", REACHING_OUT, ids=[name for name in ATTACKS if name != READS_PAST])
def test_attack_earns_no_more_than_built_ins(graded, i):
    assert_no_more_than_honest(graded["honest"], graded[f"attack{i}"], KERNEL_TESTS)


def test_a_kernel_that_reads_past_its_input_loses_on_its_values(graded):
    r = graded[f"attack{list(ATTACKS).index(READS_PAST)}"]
    assert r.status in ("graded", "crashed", "timeout"), r.message
    kernel = guarded(r, KERNEL_TESTS)
    assert kernel and all(t.score < t.max_score for t in kernel), [(t.id, t.score, t.max_score) for t in kernel]


def test_no_file_the_source_includes_reaches_the_feedback(graded):
    """A hidden #include of the worker's /etc/passwd is refused by name: g++'s messages about it, which quote the
    file, never reach the results."""
    r = graded[f"attack{list(ATTACKS).index(HIDDEN_INCLUDE)}"]
    assert not [t.id for t in r.tests if PASSWD_LINE in (t.message or "")], [t.message[:300] for t in r.tests]


def test_a_gpu_kernel_registered_on_the_wrong_device_loses_the_gpu_points(graded):
    """The GPU kernel registered with .Device(DEVICE_CPU) inside #if GOOGLE_CUDA, which no CPU build compiles: the
    CPU grader reads the registration and the GPU test says so; the CPU ops keep their points."""
    r = graded[f"attack{WRONG}"]
    assert r.status == "graded", r.message
    gpu = guarded(r, GPU_TESTS)
    assert gpu and all(t.score == 0 for t in gpu), [(t.id, t.score) for t in gpu]
    public = [t for t in gpu if "public" in t.id]
    assert public and all("device CPU" in t.message for t in public), [t.message[:300] for t in public]
    ops = guarded(r, ("test_ops_as_the_grader_builds_them",))
    assert ops and all(t.score == t.max_score for t in ops), [(t.id, t.score, t.message[:200]) for t in ops]
