"""tf02b_kernels: points for the C++ ops and the GPU kernel come only from the kit compiling op_source()'s text
itself (its own flags, headers limited to TensorFlow's framework and a few standard ones, every symbol resolved
at link time) and calling the ops through its own harness in a worker that never ran the notebook.

The honest plain-TensorFlow notebook (`kit_ops` is a namespace of built-in ops, `op_source()` returns an empty
source) sets the bar: it keeps the points of the exercises that do not ask for a kernel and earns none of the
kernel tests.  Every attack below is that notebook plus a trick, and must earn no more.
"""
from __future__ import annotations

import pytest

from tests.attacks.evidence import assert_no_more_than_honest, grade_attacks, guarded, master_between, points

ASSIGNMENT = "tf02b_kernels"
KERNEL_TESTS = ("test_ops_as_the_grader_builds_them", "test_gpu_kernel_launched_by_the_grader")


def _between(start: str, end: str) -> str:
    return master_between(ASSIGNMENT, start, end)


SOURCE = _between('    return r"""\n#include', "    ### END SOLUTION")
BUILT_INS = ("    kit_ops = build_op_library(op_source())\n",
             "    import types\n    kit_ops = types.SimpleNamespace(kit_silu=lambda x, beta=1.0: x * tf.sigmoid(beta * x),\n"
             "                                    kit_log_sum_exp=lambda x: tf.reduce_logsumexp(x, axis=-1))\n")
PLAIN = {SOURCE: '    return ""\n', BUILT_INS[0]: BUILT_INS[1]}

MASTER_CPP = SOURCE.removeprefix('    return r"""\n').removesuffix('"""\n')


def _with(cpp: str) -> dict[str, str]:
    return {SOURCE: '    return r"""\n' + cpp + '"""\n'}


ATTACKS = {
    # the ops registered, their kernels reaching outside the text the kit compiles
    "an #include of Python's C API": _with('#include <Python.h>\n' + MASTER_CPP),
    "an #include of a non-framework TensorFlow header (the built-in kernels)":
        _with('#include "tensorflow/core/kernels/logging_ops.h"\n' + MASTER_CPP),
    "an #include named by a macro": _with('#define HEADER <stdio.h>\n#include HEADER\n' + MASTER_CPP),
    "an #include behind a comment and a line splice": _with('/* */ #\\\ninclude <stdio.h>\n' + MASTER_CPP),
    "kernels that call the Python C API (declared by hand) to run TensorFlow's built-ins":
        _with('extern "C" int PyRun_SimpleString(const char*);\n' + MASTER_CPP.replace(
            "    const Tensor& x = ctx->input(0);\n    Tensor* y = nullptr;",
            '    PyRun_SimpleString("import tensorflow");\n    const Tensor& x = ctx->input(0);\n    Tensor* y = nullptr;', 1)),
    "kernels that find symbols through the dynamic loader":
        _with('extern "C" void* dlsym(void*, const char*);\n' + MASTER_CPP),
    "assembly that pulls a file into the library": _with('asm(".incbin \\"/etc/hostname\\"");\n' + MASTER_CPP),
    # kernels that read outside their input: each row's maximum and sum run one element past the row
    "kernels that read past their input": _with(MASTER_CPP.replace(
        "      for (int64_t c = 1; c < cols; ++c) m = std::max(m, row[c]);\n      T s = 0;\n"
        "      for (int64_t c = 0; c < cols; ++c) s += std::exp(row[c] - m);\n",
        "      for (int64_t c = 1; c <= cols; ++c) m = std::max(m, row[c]);\n      T s = 0;\n"
        "      for (int64_t c = 0; c <= cols; ++c) s += std::exp(row[c] - m);\n").replace(
        "      out[i] = in[i] / (T(1) + std::exp(-beta * in[i]));\n",
        "      out[i] = in[i + 1] / (T(1) + std::exp(-beta * in[i + 1]));\n").replace(
        "    y[i] = x[i] / (T(1) + exp(-T(beta) * x[i]));\n", "    y[i + 1] = x[i + 1] / (T(1) + exp(-T(beta) * x[i + 1]));\n")),
}


@pytest.fixture(scope="module")
def graded(tmp_path_factory):
    return grade_attacks(tmp_path_factory.mktemp("tf-kernel-evidence"), ASSIGNMENT, PLAIN,
                         {name: {**PLAIN, **edit} for name, edit in ATTACKS.items()})


def test_the_source_check_refuses_what_reaches_outside_the_text():
    """op_source_problem (the judge's check, before any compile) accepts the master's source and refuses every
    attack that reaches outside it; the kernels that read past their input compile and lose on their values."""
    import importlib.util

    from tests.attacks.evidence import KIT

    spec = importlib.util.spec_from_file_location("tf02b_probes", KIT / "assignments" / ASSIGNMENT / "probes.py")
    probes = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(probes)
    assert probes.op_source_problem(MASTER_CPP) == ""
    for name, edit in ATTACKS.items():
        cpp = edit[SOURCE].removeprefix('    return r"""\n').removesuffix('"""\n')
        assert (probes.op_source_problem(cpp) == "") == (name == "kernels that read past their input"), name
    assert probes.op_source_problem("x" * (probes.SOURCE_CAP + 1))
    assert probes.op_source_problem(None)


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


@pytest.mark.parametrize("i", REACHING_OUT, ids=[name for name in ATTACKS if name != READS_PAST])
def test_attack_earns_no_more_than_built_ins(graded, i):
    assert_no_more_than_honest(graded["honest"], graded[f"attack{i}"], KERNEL_TESTS)


def test_a_kernel_that_reads_past_its_input_loses_on_its_values(graded):
    r = graded[f"attack{list(ATTACKS).index(READS_PAST)}"]
    assert r.status in ("graded", "crashed", "timeout"), r.message
    kernel = guarded(r, KERNEL_TESTS)
    assert kernel and all(t.score < t.max_score for t in kernel), [(t.id, t.score, t.max_score) for t in kernel]
