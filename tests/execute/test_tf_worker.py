"""A TensorFlow assignment's workers (`framework = "tensorflow"`): the toy kit tests/fixtures/tfkit graded end to
end through the real sandbox, and its workers, warm (forked from a zygote that imported TensorFlow) and cold (a
sandbox per worker that imports it itself), asked how they were set up.

The grading runs in a subprocess, so "the trusted side never imported TensorFlow" is a fact of that process
alone (this one imports it in other tests)."""

from __future__ import annotations

import ast
import subprocess
import sys

import pytest

from autograder.config.assignment import AssignmentError, Framework, framework_of, list_assignments, load_assignment
from autograder.config.limits import Limits
from autograder.execute.runner import NotebookRunner
from autograder.execute.sandbox import Bubblewrap, RlimitsOnly
from autograder.notebook.parse import load_cells
from tests.nbfactory import edit
from tests.tfkit import MASTER, PROBES, ROOT, TF_KIT, TF_LOG, grade


@pytest.fixture(scope="module")
def graded(tmp_path_factory):
    """The master, a wrong notebook and a chatty one, graded as a class in a grader process of their own."""
    if not Bubblewrap.available():
        pytest.fail("bubblewrap is required: the TensorFlow worker is tested in the real sandbox")
    tmp = tmp_path_factory.mktemp("tfgrade")
    good = edit(MASTER, tmp / "subs" / "good.ipynb")
    bad = edit(
        MASTER,
        tmp / "subs" / "bad.ipynb",
        replace={
            "return tf.random.normal([n])": "tf.random.set_seed(0)\n    return tf.random.normal([n])",
            "return tf.ragged.constant(lists)": "return tf.ragged.constant([row for row in lists if row])",
        },
    )
    chatty = edit(
        MASTER,
        tmp / "subs" / "chatty.ipynb",
        insert={
            8: (
                "@tf.function\ndef square(x):\n    return x * x\n\nfor i in range(8):\n    square(float(i))  # retraces: TF warns\n"
                "tf.get_logger().warning('a warning from TF')\nprint('the student speaks')"
            )
        },
    )
    return {**grade([good, bad, chatty], tmp / "out"), "good": good, "out": tmp / "out"}


def test_a_tensorflow_class_is_graded_with_values_compared_on_the_trusted_side(graded):
    good, bad = graded["results"]["good"], graded["results"]["bad"]
    assert graded["isolation"].startswith("bubblewrap")
    assert (good["status"], good["score"]) == ("graded", 10.0), good
    assert all(outcome == "passed" for outcome, _ in good["tests"].values()), good["tests"]
    # the same per-call seed gives the student's notebook the reference's draws (noisy, the Dense kernel, fit's
    # shuffle); a notebook that reseeds draws something else and loses that test alone
    assert bad["score"] == 6.0, bad
    assert bad["tests"]["test_noisy_draws_like_the_reference"][0] == "failed"
    assert bad["tests"]["test_ragged_rows"] == [
        "failed",
        "rows([[1, 2, 3], [4], []]) is a tf.RaggedTensor of dtype int32 and shape (2, None); "
        "expected shape (3, None). Check which axes you reduce, index, or broadcast over.",
    ]
    assert bad["tests"]["test_initial_kernel"][0] == bad["tests"]["test_fit_history"][0] == "passed"


def test_the_results_record_tensorflows_determinism(graded):
    """What made the values reproducible, as a result records it: TensorFlow's op determinism (torch, only the wire's
    value type in these workers, is not configured)."""
    assert graded["results"]["good"]["determinism"] == {"tf_op_determinism": True, "threads": 1}


def test_the_grader_never_imports_tensorflow(graded):
    assert graded["tf_modules"] == []


def test_a_second_grading_reads_the_references_tf_answers_from_its_cache(graded):
    """The reference's answers were cached on disk by the first grading, TF values written by the trusted side
    (without TensorFlow): read back, the master still scores full marks against them, and so does the student."""
    assert list((graded["out"] / ".cache" / "reference" / "tftoy").rglob("*/*"))
    again = grade([graded["good"]], graded["out"])
    assert (again["results"]["good"]["status"], again["results"]["good"]["score"]) == ("graded", 10.0), again
    assert again["tf_modules"] == []


def test_tensorflow_logs_stay_out_of_the_feedback(graded):
    chatty = graded["results"]["chatty"]
    assert chatty["score"] == 10.0 and "the student speaks" in chatty["stdout"]
    for result in graded["results"].values():
        text = result["stdout"] + result["stderr"] + str(result["tests"]) + str(result["cells"])
        assert not [w for w in TF_LOG if w in text], text[-2000:]


@pytest.mark.parametrize("kind", ["warm", "cold", "rlimits"])
def test_workers_are_set_up_before_student_code(sandbox, kind):
    """Logical CPUs of the manifest, TF's pools at the worker's share (threads bounded), op determinism, Grappler off,
    Keras's caches in the worker's own disk; the same per-call seed draws the same, another seed something else.
    (rlimits: how `autograder validate` runs a notebook where bubblewrap cannot.)"""
    iso = RlimitsOnly() if kind == "rlimits" else sandbox(kind)
    with NotebookRunner(
        load_cells(MASTER),
        probes=PROBES,
        limits=Limits(cell_timeout=60, submission_timeout=400, startup_timeout=240),
        isolation=iso,
        seed=3,
    ) as runner:
        runner.execute()
        assert [c.status for c in runner.cell_records] == ["ok"] * len(runner.cell_records)
        facts = runner.call("worker_facts")
        a, b, c = (runner.call("noisy", (4,), seed=s) for s in (7, 7, 8))
        k1, k2 = (runner.call("init_kernel", (2,), seed=9) for _ in range(2))
        assert "the student speaks" not in runner.stdout and not [w for w in TF_LOG if w in runner.stderr], (
            runner.stderr
        )
    assert facts["devices"] == ["/device:CPU:0", "/device:CPU:1"], facts
    assert facts["determinism"] and facts["intra"] == facts["inter"] == 1 and facts["sum"] == 64.0**3
    assert facts["threads"] <= 8, facts  # main + TF's pools of one thread each (+ torch's, if it ran)
    assert facts["keras_home"].startswith(facts["tmp"] or "/tmp")
    assert (
        facts["grappler"] is False
    )  # no graph rewrite on every traced step and tf.data iterator (docs/performance.md)
    # torch is the wire's value type here, never run: its compiler, which configuring torch's determinism imported
    # (1.4 s of CPU in each TensorFlow zygote before its first worker), is not loaded
    assert facts["torch_compiler"] == [], facts
    # tf.data without autotuning (an iterator's end waited for its model thread's timer): the same elements in the
    # same order as TF's own, autotuned iterator of that pipeline gives
    (ours, elements), (tfs, autotuned) = facts["iterated"]
    assert ours is False and tfs is not False, facts
    assert elements == autotuned and sorted(elements) == [2.0 * v for v in range(40)] != elements
    # made once per dataset (a new one each epoch had TF finalize the pipeline again), and within a traced function
    assert facts["reused"] is True and facts["traced"] == sum(elements), facts
    assert a.values.tolist() == b.values.tolist() != c.values.tolist()
    assert k1.kind == "Variable" and k1.values.tolist() == k2.values.tolist()


def test_the_zygote_refuses_a_tensorflow_that_has_started():
    """TF's context, once made, could no longer be given a worker's threads and devices: the zygote checks that
    importing TensorFlow made none (and left no thread) before it forks any worker."""
    code = (
        "import tensorflow as tf; tf.constant(1.0) + 1\n"
        "from autograder.execute import zygote\n"
        "try:\n    zygote._import_tensorflow()\nexcept RuntimeError as e:\n    print('refused:', e)"
    )
    out = subprocess.run(
        [sys.executable, "-c", code],
        capture_output=True,
        text=True,
        timeout=300,
        env={"TF_CPP_MIN_LOG_LEVEL": "2", "PATH": "/usr/bin:/bin"},
    )
    assert "refused: importing TensorFlow initialized its context" in out.stdout, out.stdout + out.stderr[-2000:]


def test_the_manifest_names_the_framework(tmp_path):
    assert load_assignment("tftoy", TF_KIT).framework == Framework("tensorflow", 2) == framework_of(PROBES)
    assert framework_of(ROOT / "tests" / "fixtures" / "kit" / "assignments" / "toy" / "probes.py") == Framework()
    assert Framework().env() == {}  # a PyTorch assignment's workers are told nothing new
    env = Framework("tensorflow", 2).env()
    assert env["AUTOGRADER_FRAMEWORK"] == "tensorflow" and env["AUTOGRADER_TF_LOGICAL_CPUS"] == "2"
    for bad in (
        'framework = "jax"',
        '[tensorflow]\nlogical_cpus = 2',
        'framework = "tensorflow"\n[tensorflow]\nlogical_cpus = 0',
        'framework = "tensorflow"\n[tensorflow]\nthreads = 2',
    ):
        folder = tmp_path / "assignments" / "x"
        folder.mkdir(parents=True, exist_ok=True)
        (folder / "manifest.toml").write_text(bad + "\n")
        with pytest.raises(AssignmentError):
            load_assignment("x", tmp_path)


@pytest.mark.parametrize("kit", [ROOT, TF_KIT], ids=["course", "toy"])
def test_no_tensorflow_probes_import_it_on_the_trusted_side(kit):
    """probes.py is imported by the judge too: a TensorFlow assignment's probes import TensorFlow in their
    bodies (in the worker), never at module level, where every judge process would pay its seconds."""
    for name in list_assignments(kit):
        a = load_assignment(name, kit)
        if a.framework.name != "tensorflow" or not a.probes.is_file():
            continue
        tree = ast.parse(a.probes.read_text())
        top = [n for n in tree.body if isinstance(n, (ast.Import, ast.ImportFrom))]
        names = {alias.name.split(".")[0] for n in top for alias in n.names} | {
            (n.module or "").split(".")[0] for n in top if isinstance(n, ast.ImportFrom)
        }
        assert not names & {"tensorflow", "keras", "tf_keras"}, f"{a.probes} imports TensorFlow at module level"


def test_a_tensorflow_assignments_gradescope_zip_installs_tensorflow(tmp_path):
    """Its workers import TensorFlow and Keras before any notebook runs, so setup.sh installs both (at the versions
    installed here) even where the notebook, probes and tests import neither; a PyTorch assignment's does not."""
    import shutil
    import zipfile

    from autograder.interop import gradescope

    kit = tmp_path / "kit"
    shutil.copytree(TF_KIT, kit)
    edit(
        MASTER,
        kit / "solutions" / "tftoy.ipynb",
        replace={"import numpy as np\nimport tensorflow as tf\nimport keras": "import numpy as np"},
    )
    for test in (kit / "assignments" / "tftoy").rglob("test_*.py"):
        test.unlink()
    (kit / "assignments" / "tftoy" / "probes.py").write_text("def raw(ns, name):\n    return ns[name]\n")
    pins = gradescope.requirements(load_assignment("tftoy", kit))
    assert any(p.lower().replace("_", "-").startswith("tensorflow-cpu==2.21.0") for p in pins), pins
    assert any(p.startswith("keras==3.") for p in pins), pins
    dtypes = [p.split("==")[1] for p in pins if p.lower().replace("-", "_").startswith("ml_dtypes==")]
    assert dtypes and tuple(int(n) for n in dtypes[0].split(".")[:2]) < (0, 7), pins  # pyproject's `tensorflow` extra
    zipped = gradescope.build_autograder_zip(kit, "tftoy", tmp_path / "autograder.zip", secret=b"s" * 32)
    setup = zipfile.ZipFile(zipped).read("setup.sh").decode()
    assert "tensorflow" in setup.lower() and "keras==" in setup
    torch_only = gradescope.requirements(load_assignment("toy", ROOT / "tests" / "fixtures" / "kit"))
    assert not [p for p in torch_only if p.lower().startswith(("tensorflow", "keras"))]
